"""other.py - the claims of issue 3 whose article the project's notes do not name: size classes, the mmap threshold, realloc growth, calloc.

Always holds: each is judged on glibc, the allocator the claim is about, from one run of its cells.
"""
from heapbench.claims.figures import at_least, claim, fmt, ratio, secs
from heapbench.claims.measure import Spec, pick

SIZES = Spec("sizes", ["glibc"], params=("--max=4096",))
MMAP_P = ("--rounds=3 --sweep-max=65536", "--rounds=20003 --sweep-max=65536")
MMAP = Spec("mmap-threshold", ["glibc"], params=MMAP_P)
REALLOC_P = {g: f"--growth={g} --elems=8000000" for g in ("x1.5", "x2", "plus")}
REALLOC = Spec("realloc-grow", ["glibc"], params=tuple(REALLOC_P.values()))
CALLOC = Spec("calloc", ["glibc"], params=("--mode=calloc", "--mode=malloc-memset"))


def judge_sizes(rows):
    """glibc usable sizes: 1..24 -> 24 (32-byte chunk), 25 -> 40 (48-byte chunk)."""
    usable = {s["request"]: s["usable"] for s in rows[0]["sizes"] if s["allocator"] == "glibc"}
    small = {usable.get(n) for n in range(1, 25)}
    u25 = usable.get(25)
    return (f"usable(1..24) = {sorted(x for x in small if x is not None)}, usable(25) = {u25}",
            small == {24} and u25 == 40, "")


def judge_mmap(rows):
    """Faults per 200 KiB round after the first (runs with 3 vs 20003 rounds): the claim is ~0; holds under 0.5."""
    r = rows[0]
    a, b = (pick(r, "runs", "minflt", allocator="glibc", params=p) for p in MMAP_P)
    first = secs(r, "first", allocator="glibc", params=MMAP_P[1])
    later = secs(r, "later", allocator="glibc", params=MMAP_P[1])
    per_round = (b - a) / 20000 if a is not None and b is not None else None
    return (f"faults per later round {fmt(per_round, '', 3)}; round 1 {fmt(first and first * 1e6, ' us', 1)}, "
            f"later rounds {fmt(later and later / 20001 * 1e6, ' us', 2)} each",
            per_round is not None and per_round < 0.5, "")


def judge_realloc(rows):
    """8 M appends, +4 KiB steps against x2 growth: holds when constant steps cost >= x2."""
    per = {g: secs(rows[0], "grow", allocator="glibc", params=p) for g, p in REALLOC_P.items()}
    x = ratio(per["plus"], per["x2"])
    return (f"x1.5 {fmt(per['x1.5'], ' s', 3)}, x2 {fmt(per['x2'], ' s', 3)}, +4 KiB {fmt(per['plus'], ' s', 3)}: "
            f"x{fmt(x)}", at_least(x, 2.0), "")


def judge_calloc(rows):
    """alloc phase, calloc vs malloc+memset of fresh memory: holds at >= x10."""
    r = rows[0]
    c, m = (secs(r, "alloc", allocator="glibc", params=p) for p in ("--mode=calloc", "--mode=malloc-memset"))
    cu, mu = (secs(r, "use", allocator="glibc", params=p) for p in ("--mode=calloc", "--mode=malloc-memset"))
    return (f"alloc: calloc {fmt(c and c * 1e3, ' ms', 2)}, malloc+memset {fmt(m and m * 1e3, ' ms', 1)} "
            f"(x{fmt(ratio(m, c), '', 0)}); first use: {fmt(cu and cu * 1e3, ' ms', 0)} vs "
            f"{fmt(mu and mu * 1e3, ' ms', 0)}",
            at_least(ratio(m, c), 10.0), "")


CLAIMS = [
    claim("sizes", "", "64-bit glibc: malloc(1)..malloc(24) use 32-byte chunks, malloc(25) 48", "64-bit glibc",
          "`size` records", "none", [SIZES], judge_sizes),
    claim("mmap-threshold", "", "after one 200 KiB free, later rounds stop calling mmap and faulting",
          "glibc, 200 KiB malloc/free rounds", "runs.csv `minflt` of 3 against 20,003 rounds", "none known",
          [MMAP], judge_mmap),
    claim("realloc-grow", "", "growth by a factor amortises realloc's cost (constant steps do not)",
          "arrays grown by realloc", "the `grow` phase", "glibc grows mmap'd blocks with mremap (no copy), "
          "which makes constant steps cheaper than a copying realloc would", [REALLOC], judge_realloc),
    claim("calloc", "", "calloc of fresh mmap'd memory skips the memset", "large calloc against malloc + memset",
          "the `alloc` and `use` phases", "none known", [CALLOC], judge_calloc),
]
