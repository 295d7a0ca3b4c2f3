"""other.py - article 000's claims on glibc's internals: size classes, the mmap threshold, realloc growth, calloc (mmap'd and fresh top).

Always holds: each is judged on glibc, the allocator the claim is about; counts and usable sizes
from one run (exact), realloc growth from the bytes realloc moved (counts of one run), a time
only as information beside them; calloc's claim in user-space instructions (--count-instructions: they do not depend on the load;
its time is page faults on both sides, which cost ~15 us each on this VM even when idle).
"""
from heapbench.claims import verdict as V
from heapbench.claims.figures import claim, fmt, ops, ratio, run_values, secs_runs
from heapbench.claims.measure import Spec, pick

SIZES = Spec("sizes", ["glibc"], params=("--max=4096",), reps=1, warmup=0)
MMAP_P = ("--rounds=3 --sweep-max=65536", "--rounds=20003 --sweep-max=65536")
MMAP = Spec("mmap-threshold", ["glibc"], params=MMAP_P, reps=1, warmup=0)
GROWTHS = ("x1.5", "x2", "plus")
REALLOC_ELEMS = (524288, 2097152)  # 4 arrays of 1 MiB, then of 4 MiB: x4 the appends
REALLOC_P = {(g, n): f"--growth={g} --elems={n}" for n in REALLOC_ELEMS for g in GROWTHS}
REALLOC_ENV = "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432"  # every array a heap chunk: realloc copies
REALLOC = Spec("realloc-grow", ["glibc"], params=tuple(REALLOC_P.values()), envs=(REALLOC_ENV,), reps=1, warmup=0)
REALLOC_HOLDS, REALLOC_FAILS = 2.0, 1.5  # growth of plus's bytes moved per append over x4 the appends
CALLOC_P = {"calloc": "--mode=calloc", "memset": "--mode=malloc-memset"}
CALLOC = Spec("calloc", ["glibc"], params=tuple(CALLOC_P.values()))
CALLOC_INSTR = Spec("calloc", ["glibc"], params=tuple(CALLOC_P.values()), reps=1, warmup=0,
                    extra=("--count-instructions",))


def judge_sizes(rows):
    """glibc usable sizes: 1..24 -> 24 (32-byte chunk), 25 -> 40 (48-byte chunk)."""
    usable = {s["request"]: s["usable"] for s in rows[0]["sizes"] if s["allocator"] == "glibc"}
    small = {usable.get(n) for n in range(1, 25)}
    u25 = usable.get(25)
    if not usable:
        return "n/a", V.untestable(V.NO_FIGURE)
    return (f"usable(1..24) = {sorted(x for x in small if x is not None)}, usable(25) = {u25}",
            V.Verdict(V.HOLDS if small == {24} and u25 == 40 else V.NOT_HOLD))


def later_faults(rows):
    """Faults per 200 KiB round after the first, from the MMAP cell's rows (None when a run is missing)."""
    a, b = (pick(rows, "runs", "minflt", allocator="glibc", params=p) for p in MMAP_P)
    return (b - a) / 20000 if a is not None and b is not None else None


def judge_mmap(rows):
    """Faults per 200 KiB round after the first (runs of 3 and 20,003 rounds): ~0; holds under 0.5."""
    per_round = later_faults(rows[0])
    return f"faults per later round {fmt(per_round, '', 3)}", V.decide(V.exact(per_round), hi=0.5)


def moved_per_append(rows, growth, elems):
    """Bytes realloc moved to a new address (the `moved` phase) per append (`grow`'s ops) of one
    cell, None when the cell is missing."""
    where = dict(allocator="glibc", params=REALLOC_P[(growth, elems)])
    moved, appends = ops(rows, "moved", **where), ops(rows, "grow", **where)
    return ratio(moved, appends)


def judge_realloc(rows):
    """Amortisation read from what realloc moves: with every array a heap chunk, a realloc that
    cannot grow in place copies the block, so the bytes moved per append are its cost that depends on
    the heap. Under a factor growth they are bounded (at most 16 B per append at x2: every byte is
    moved at most once per doubling; shown); under constant steps they grow with the array. Holds
    when plus's bytes moved per append grow at least REALLOC_HOLDS times over x4 the appends (a
    copy per step: x4), does not hold at REALLOC_FAILS or less (as bounded as a factor growth,
    x1.04-x1.30 here); in between it is undecided (counts of one run: more runs would not decide).
    The grow phase's time at the larger size is shown (one run: information)."""
    small, big = REALLOC_ELEMS
    per = {(g, n): moved_per_append(rows[0], g, n) for g in GROWTHS for n in REALLOC_ELEMS}
    growth = {g: ratio(per[(g, big)], per[(g, small)]) for g in GROWTHS}
    secs = {g: secs_runs(rows[0], ("grow",), allocator="glibc", params=REALLOC_P[(g, big)]) for g in ("x2", "plus")}
    t = V.of_ratio(secs["plus"], secs["x2"])
    text = (f"bytes moved per append, {small:,} -> {big:,} appends: +4 KiB steps {fmt(per[('plus', small)], ' B', 1)}"
            f" -> {fmt(per[('plus', big)], ' B', 1)} (x{fmt(growth['plus'])}); x2 {fmt(per[('x2', small)], ' B', 1)} -> "
            f"{fmt(per[('x2', big)], ' B', 1)} (x{fmt(growth['x2'])}); x1.5 {fmt(per[('x1.5', small)], ' B', 1)} -> "
            f"{fmt(per[('x1.5', big)], ' B', 1)} (x{fmt(growth['x1.5'])}); grow time at {big:,} appends, +4 KiB / x2: "
            f"x{V.show(t)} (one run: information)")
    return text, V.banded(growth["plus"], (REALLOC_HOLDS, None), (REALLOC_FAILS, None),
                          "constant steps' moves stay bounded as a factor growth's")


CALLOC_BOUND = 2 / 3  # calloc's share of malloc+memset's instructions at most: the skipped memset is most of them


def judge_calloc(rows):
    """Allocation plus first use, malloc+memset against calloc, in user-space instructions of the
    whole process. The article gives no figure ("calloc can be faster"): holds when calloc does at
    most CALLOC_BOUND of malloc+memset's instructions, which needs it to skip the memset of each
    block (the memset is over half of malloc+memset's count here); the faults and the time are shown."""
    instr = {k: V.of_values(run_values(rows[1], "metric_instructions", allocator="glibc", params=p))
             for k, p in CALLOC_P.items()}
    x = instr["memset"].point / instr["calloc"].point if None not in instr.values() else None
    t = {k: secs_runs(rows[0], ("alloc", "use"), allocator="glibc", params=p) for k, p in CALLOC_P.items()}
    flt = {k: V.of_values(run_values(rows[0], "minflt", allocator="glibc", params=p)) for k, p in CALLOC_P.items()}
    return (f"user-space instructions malloc+memset / calloc x{fmt(x)} (whole process); page faults calloc "
            f"{V.show(flt['calloc'], '', 0)}, malloc+memset {V.show(flt['memset'], '', 0)}; alloc + use wall time "
            f"x{V.show(V.of_ratio(t['memset'], t['calloc']))} (calloc {V.show(V.of_values(t['calloc']), ' ms', 0, 1e3)}; "
            f"information)", V.decide(V.exact(x), lo=1 / CALLOC_BOUND))

TOP_SIZE = 4 << 20  # below the mmap threshold raised to 8 MiB, so the block comes from the brk heap (and
# inside valgrind's 8 MiB brk segment: beyond it glibc falls back to mmap'd heap space, which is never "fresh top")
TOP_P = {k: f"{v} --size={TOP_SIZE} --rounds=3" for k, v in CALLOC_P.items()}
TOP_TUNE = "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=8388608"
TOP_ENVS = {"fresh": TOP_TUNE, "reused": TOP_TUNE + ":glibc.malloc.trim_threshold=1073741824"}
CALLOC_TOP = Spec("calloc", ["glibc"], params=tuple(TOP_P.values()), envs=tuple(TOP_ENVS.values()), reps=1,
                  warmup=0, extra=("--count-instructions",))


def top_ratios(rows):
    """{heap: malloc+memset / calloc in user-space instructions} for the fresh top (the heap trimmed
    after each round, so each block is new brk memory) and the reused one (never trimmed: rounds 2
    and 3 take back memory the first round wrote); None where a cell is missing."""
    def instr(mode, heap):
        return V.of_values(run_values(rows, "metric_instructions", allocator="glibc", params=TOP_P[mode],
                                      env=TOP_ENVS[heap]))
    out = {}
    for heap in TOP_ENVS:
        c, m = instr("calloc", heap), instr("memset", heap)
        out[heap] = m.point / c.point if c and m and c.point else None
    return out


def judge_calloc_top(rows):
    """Two parts, each two-sided at 1 / CALLOC_BOUND (x1.5): on a fresh top calloc skips the clear
    (malloc+memset does at least x1.5 its instructions), and on a reused one it clears what is not
    fresh (under x1.5: with rounds 2 and 3 cleared the two variants differ by round 1's memset only)."""
    x = top_ratios(rows[0])
    bound = 1 / CALLOC_BOUND
    fresh = V.decide(V.exact(x["fresh"]), lo=bound, note="fresh top: the clear skipped")
    reused = V.decide(V.exact(x["reused"]), hi=bound, note="reused top: the non-fresh part cleared")
    return (f"malloc+memset / calloc in user-space instructions (whole process): fresh top x{fmt(x['fresh'])}, "
            f"reused top x{fmt(x['reused'])}", V.both(fresh, reused))


CLAIMS = [
    claim("sizes", "000", "64-bit glibc: malloc(1)..malloc(24) use 32-byte chunks, malloc(25) 48", "64-bit glibc",
          "`size` records (exact: one run)", "none", [SIZES], judge_sizes),
    claim("mmap-threshold", "000", "after one 200 KiB free, later rounds stop calling mmap and faulting",
          "glibc, 200 KiB malloc/free rounds", "runs.csv `minflt` of 3 against 20,003 rounds (counts: one run)",
          "none known", [MMAP], judge_mmap),
    claim("realloc-grow", "000", "growth by a factor amortises realloc's cost (constant steps do not; section: "
          "calloc and realloc: realloc grows in place when the next chunk is free or the top, else allocates, copies "
          "and frees; mmap'd chunks grow by mremap; no figure given)", "glibc 2.44's source read; no measurement",
          "4 arrays appended to in turn (they get in each other's way in the heap), grown x1.5, x2 or by 4 KiB "
          "steps, to 1 MiB and to 4 MiB each, with the mmap threshold at 32 MiB (every array a heap chunk, the "
          "path where a realloc that cannot grow in place copies); the `moved` phase (bytes of the blocks realloc "
          "moved to a new address) over the `grow` phase's appends, one run a cell (counts of a single-threaded "
          "program); holds when the 4 KiB steps' bytes moved per append grow x2 or more over x4 the appends, "
          "does not hold at x1.5 or less",
          "the sizes, the step and the array count are ours (the article measured nothing); the cost is read "
          "as bytes moved, not time: a copy's time here is mostly the page faults of the new block (~15 us each "
          "on this VM even when idle); mmap'd arrays (the default threshold) move by mremap, which remaps pages "
          "and copies nothing (the mremap row)", [REALLOC], judge_realloc),
    claim("calloc", "000", "calloc skips the zeroing of mmap'd chunks, so it can beat malloc + memset for a large "
          "zeroed array (section: calloc and realloc; no figure given)", "glibc 2.44's source read; no measurement",
          "user-space instructions of the whole process, one run each (`--count-instructions`: the claim is "
          "about allocation plus first use, which is all the program does); holds when calloc does at most "
          "2/3 of malloc + memset's instructions; the `alloc` + `use` phases timed beside them",
          "our block size and rounds (128 MiB x 3) are ours; the article measured nothing; "
          "judged in instructions, not time: both variants fault in the same pages (the time's bulk: ~15 us a "
          "fault on this VM even when idle), so the wall-time ratio measures the VM; instructions count the "
          "memset calloc skips but not the kernel's zeroing, which both variants pay",
          [CALLOC, CALLOC_INSTR], judge_calloc),
    claim("calloc/top", "000", "calloc clears only the bytes that are not freshly sbrk'd top (section: calloc and "
          "realloc, quoting glibc's comment \"clear only the bytes from non-freshly-sbrked memory\"; no figure given)",
          "glibc 2.44's source read; no measurement",
          "user-space instructions of the whole process, one run each (`--count-instructions`) of 3 rounds of a "
          "4 MiB calloc against malloc + memset, from the brk heap (mmap threshold at 8 MiB): with the heap "
          "trimmed after each free (fresh top every round) and never trimmed (trim threshold 1 GiB: rounds 2 and "
          "3 reuse written memory); holds when malloc+memset does at least x1.5 calloc's instructions on the "
          "fresh top and under x1.5 on the reused one",
          "the block size, the rounds and the two tunables are ours (the article measured nothing); instructions, "
          "not time: both variants fault the same fresh pages in; 4 MiB keeps the heap inside valgrind's brk segment "
          "(8 MiB), beyond which glibc would take mmap'd heap space, never a fresh top",
          [CALLOC_TOP], judge_calloc_top),
]
