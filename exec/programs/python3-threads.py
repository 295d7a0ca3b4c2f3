"""python3-threads.py - the workload of prog:python3-threads: CPython with threads that hand
objects to one another. 2 producer threads make records (a dict with a name, a list of numbers
and a blob of 64 B .. 6 KiB: the blobs and the bigger lists reach malloc, CPython's small
objects its own arenas) and put them on a bounded queue; 2 consumer threads take them, encode
each one to JSON and keep the last 6 000 in a shared cache whose evicted entries are freed by
whichever consumer evicts them, so most blocks are freed by another thread than the one that
made them. The GIL runs one thread at a time, switching every few milliseconds.

Always holds: deterministic work (fixed seeds, a fixed number of records); prints one checksum
line; runs under Debian's /usr/bin/python3.
"""
import json
import queue
import random
import threading

RECORDS = 10000  # per producer
CACHE = 6000
DONE = None


def producer(seed, q):
    rng = random.Random(seed)
    for i in range(RECORDS):
        size = int(64 * 96 ** rng.random())  # 64 B .. 6 KiB, log-uniform
        q.put({"id": (seed, i), "name": f"item-{seed}-{i}-" + "x" * rng.randrange(8, 40),
               "nums": [rng.randrange(1000) for _ in range(rng.randrange(4, 100))],
               "blob": bytes(rng.getrandbits(8) for _ in range(8)) * (size // 8)})
    q.put(DONE)


def consumer(q, cache, order, lock, sums):
    total = 0
    while True:
        rec = q.get()
        if rec is DONE:
            break
        text = json.dumps({"id": rec["id"], "name": rec["name"], "nums": rec["nums"]})
        total += len(text) + len(rec["blob"])
        with lock:
            cache[rec["id"]] = (text, rec["blob"])
            order.append(rec["id"])
            while len(order) > CACHE:
                del cache[order.pop(0)]
    sums.append(total)


def main():
    q = queue.Queue(maxsize=500)
    cache, order, lock, sums = {}, [], threading.Lock(), []
    threads = [threading.Thread(target=producer, args=(s, q)) for s in (1, 2)]
    threads += [threading.Thread(target=consumer, args=(q, cache, order, lock, sums)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("checksum", sum(sums), len(cache))


main()
