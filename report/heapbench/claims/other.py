"""other.py - article 000's claims on glibc's internals: size classes, the mmap threshold, realloc growth, calloc.

Always holds: each is judged on glibc, the allocator the claim is about; counts and usable sizes
from one run (exact), times from interleaved reps judged on the bootstrap interval of a ratio.
"""
from heapbench.claims import verdict as V
from heapbench.claims.figures import FAULTS, claim, fmt, guarded, secs_runs
from heapbench.claims.measure import Spec, pick

SIZES = Spec("sizes", ["glibc"], params=("--max=4096",), reps=1, warmup=0)
MMAP_P = ("--rounds=3 --sweep-max=65536", "--rounds=20003 --sweep-max=65536")
MMAP = Spec("mmap-threshold", ["glibc"], params=MMAP_P, reps=1, warmup=0)
REALLOC_P = {g: f"--growth={g} --elems=8000000" for g in ("x1.5", "x2", "plus")}
REALLOC = Spec("realloc-grow", ["glibc"], params=tuple(REALLOC_P.values()))
CALLOC_P = {"calloc": "--mode=calloc", "memset": "--mode=malloc-memset"}
CALLOC = Spec("calloc", ["glibc"], params=tuple(CALLOC_P.values()))


def judge_sizes(rows):
    """glibc usable sizes: 1..24 -> 24 (32-byte chunk), 25 -> 40 (48-byte chunk)."""
    usable = {s["request"]: s["usable"] for s in rows[0]["sizes"] if s["allocator"] == "glibc"}
    small = {usable.get(n) for n in range(1, 25)}
    u25 = usable.get(25)
    if not usable:
        return "n/a", V.untestable(V.NO_FIGURE)
    return (f"usable(1..24) = {sorted(x for x in small if x is not None)}, usable(25) = {u25}",
            V.Verdict(V.HOLDS if small == {24} and u25 == 40 else V.NOT_HOLD))


def judge_mmap(rows):
    """Faults per 200 KiB round after the first (runs of 3 and 20,003 rounds): ~0; holds under 0.5."""
    r = rows[0]
    a, b = (pick(r, "runs", "minflt", allocator="glibc", params=p) for p in MMAP_P)
    per_round = (b - a) / 20000 if a is not None and b is not None else None
    return f"faults per later round {fmt(per_round, '', 3)}", V.decide(V.exact(per_round), hi=0.5)


def judge_realloc(rows):
    """8 M appends, +4 KiB steps against x2 growth: holds when constant steps cost at least x2."""
    per = {g: secs_runs(rows[0], ("grow",), allocator="glibc", params=p) for g, p in REALLOC_P.items()}
    iv = V.of_ratio(per["plus"], per["x2"])
    return (f"+4 KiB / x2 growth: x{V.show(iv)} (x1.5 / x2: x{V.show(V.of_ratio(per['x1.5'], per['x2']))})",
            V.decide(iv, lo=2.0))


def judge_calloc(rows):
    """Allocation plus first use, malloc+memset against calloc (the article: 7.49 s against 6.73 s,
    x1.11): calloc is cheaper in all when the interval lies above x1."""
    t = {k: secs_runs(rows[0], ("alloc", "use"), allocator="glibc", params=p) for k, p in CALLOC_P.items()}
    a = {k: secs_runs(rows[0], ("alloc",), allocator="glibc", params=p) for k, p in CALLOC_P.items()}
    iv = V.of_ratio(t["memset"], t["calloc"])
    return (f"alloc + use: malloc+memset / calloc x{V.show(iv)} (calloc {V.show(V.of_values(t['calloc']), ' ms', 0, 1e3)}"
            f"; the alloc phase alone x{V.show(V.of_ratio(a['memset'], a['calloc']), '', 0)}; the article: 7.49 "
            f"against 6.73 s, x1.11)", V.decide(iv, lo=1.0))


CLAIMS = [
    claim("sizes", "000", "64-bit glibc: malloc(1)..malloc(24) use 32-byte chunks, malloc(25) 48", "64-bit glibc",
          "`size` records (exact: one run)", "none", [SIZES], judge_sizes),
    claim("mmap-threshold", "000", "after one 200 KiB free, later rounds stop calling mmap and faulting",
          "glibc, 200 KiB malloc/free rounds", "runs.csv `minflt` of 3 against 20,003 rounds (counts: one run)",
          "none known", [MMAP], judge_mmap),
    claim("realloc-grow", "000", "growth by a factor amortises realloc's cost (constant steps do not)",
          "arrays grown by realloc", "the `grow` phase", "glibc grows mmap'd blocks with mremap (no copy), "
          "which makes constant steps cheaper than a copying realloc would", [REALLOC], judge_realloc),
    claim("calloc", "000", "calloc of fresh mmap'd memory skips the memset: allocation plus first use 6.73 s "
          "against 7.49 s for malloc + memset", "large calloc against malloc + memset, then the memory used",
          "the `alloc` + `use` phases (the claim is about both: calloc's pages fault in at first use)",
          "our block size and rounds (128 MiB x 3) are ours; the article's absolute times are its machine's",
          [CALLOC, FAULTS], guarded(judge_calloc)),
]
