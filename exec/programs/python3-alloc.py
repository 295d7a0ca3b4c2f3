"""python3-alloc.py - the measured script of prog:python3-alloc: CPython allocating and freeing
a lot, of small and large objects (pymalloc serves objects up to 512 bytes, the allocator under
test serves everything bigger: dict tables, list buffers, big strings and bytes).

Always holds: deterministic (fixed seed), prints one line `checksum N` that depends only on
the work done, and takes about half a second of CPU under glibc (exec/README.md).
"""
import json
import random


def build_records(rng, n):
    """n dicts of mixed fields: strings, lists and nested dicts of random sizes."""
    return [
        {
            "id": i,
            "name": "item-%d-%s" % (i, "x" * rng.randrange(0, 600)),
            "tags": [rng.randrange(1000) for _ in range(rng.randrange(0, 40))],
            "attrs": {"k%d" % k: k * i for k in range(rng.randrange(0, 12))},
        }
        for i in range(n)
    ]


def churn(rng, rounds):
    """Replaces random blobs of 16 B .. 64 KiB in a pool, like a cache under load."""
    pool = [b""] * 2000
    total = 0
    for _ in range(rounds):
        i = rng.randrange(len(pool))
        pool[i] = bytes(int(2 ** rng.uniform(4, 16)))
        total += len(pool[i])
    return total + sum(map(len, pool))


def main():
    """Records through a JSON round trip, a grouping pass, then blob churn; prints a checksum."""
    rng = random.Random(1)
    checksum = 0
    for _ in range(2):
        records = build_records(rng, 6000)
        text = json.dumps(records)
        back = json.loads(text)
        groups = {}
        for r in back:
            groups.setdefault(len(r["tags"]) % 17, []).append(r["name"])
        checksum += len(text) + sum(len(v) for v in groups.values())
        del records, back, groups, text
    checksum += churn(rng, 20000)
    print("checksum", checksum)


if __name__ == "__main__":
    main()
