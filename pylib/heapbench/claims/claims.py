"""claims.py - the published claims of issue 3, each with the cells that check it and how to judge it.

Each claim is a dict: id, text (the claim as published), specs (cells to measure, see
measure.py), judge(rows) -> (measured, holds, why). rows is the list of row sets, one per spec.
Always holds: judge states what was measured on this machine in figures; `holds` is decided
from the measured figures against a threshold written next to it, never by adjusting a workload.
"""
import os

from heapbench.claims.measure import pick

FAST = ["jemalloc", "tcmalloc", "mimalloc"]
CHURN_P = "--mode=loop --ops=800000"


def _ratio(a, b):
    """a / b, or None when either is missing."""
    return a / b if a is not None and b else None


def _fmt(x, unit="", digits=2):
    """A figure for the table ('n/a' when missing)."""
    return "n/a" if x is None else f"{x:.{digits}f}{unit}"


def _verdict(measured, holds, yes, no):
    """A judge's answer: (measured, holds, why) with why = yes when the claim holds, else no."""
    return measured, holds, yes if holds else no


def judge_churn_scaling(rows):
    """glibc churn time at 8 vs 1 thread for the same total work, against ideal scaling on this
    machine's cores: the claim (8 threads 5x slower) holds when 8 threads are >= 4x slower than ideal."""
    r = rows[0]
    t1, t8 = (pick(r, "phases", "seconds", allocator="glibc", threads=t, phase="churn") for t in (1, 8))
    ideal = 1 / min(8, os.cpu_count() or 1)
    ratio = _ratio(t8, t1)
    slowdown = ratio / ideal if ratio is not None else None
    holds = slowdown is not None and slowdown >= 4.0
    return _verdict(f"glibc, same total work: 1 thread {_fmt(t1, ' s', 3)}, 8 threads {_fmt(t8, ' s', 3)} "
                    f"(x{_fmt(ratio)}; ideal on {os.cpu_count()} cores x{_fmt(ideal)}, so {_fmt(slowdown)}x slower "
                    "than ideal)", holds, yes="threads contend on glibc's arenas as claimed",
                    no="glibc 2.36 gives each thread its own tcache and arena, so 8 threads on 2 cores just share "
                       "the cores; the 5x came from an older glibc on 16 vCPUs")


def judge_churn_32(rows):
    """glibc vs the fast allocators at 32 threads: the claim is ~60 s vs ~5-7 s (about 10x)."""
    r = rows[0]
    g = pick(r, "phases", "seconds", allocator="glibc", threads=32, phase="churn")
    fast = [x for x in (pick(r, "phases", "seconds", allocator=a, threads=32, phase="churn") for a in FAST) if x]
    best = min(fast) if fast else None
    ratio = _ratio(g, best)
    holds = ratio is not None and ratio >= 5.0
    return _verdict(f"32 threads: glibc {_fmt(g, ' s', 3)}, best of {'/'.join(FAST)} {_fmt(best, ' s', 3)}: "
                    f"x{_fmt(ratio)}", holds, yes="glibc is far slower at 32 threads as claimed",
                    no="the gap needs many cores and an older glibc; on 2 cores with glibc 2.36 tcache it is small")


def judge_frag(rows):
    """glibc RSS after free-all (and after malloc_trim): the claim is ~199 MB stays."""
    r = rows[0]
    after = pick(r, "phases", "rss_kb", allocator="glibc", phase="free-all")
    trim = pick(r, "phases", "rss_kb", allocator="glibc", phase="trim")
    half = pick(r, "phases", "rss_kb", allocator="glibc", phase="free-half")
    holds = after is not None and after >= 150 * 1024
    return _verdict(f"glibc RSS: half freed {_fmt(half and half / 1024, ' MiB', 1)}, all freed "
                    f"{_fmt(after and after / 1024, ' MiB', 1)}, after trim {_fmt(trim and trim / 1024, ' MiB', 1)}",
                    holds, yes="RSS stays after everything is freed, as claimed",
                    no="freeing every block coalesces them into the top chunk, which glibc trims "
                       "(M_TRIM_THRESHOLD); the RSS only stays while every other block is held (free-half)")


def judge_parser_nodes(rows):
    """Nodes per line of the generator, extrapolated to a 2.3 M-line day: the claim is ~11.9 M."""
    r = rows[0]
    nodes = pick(r, "phases", "ops", allocator="glibc", params="--alloc=malloc --scale=10 --files=4", phase="parse")
    day = nodes / (4 * 23000) * 2.3e6 if nodes else None
    holds = day is not None and abs(day - 11.9e6) / 11.9e6 < 0.05
    return (f"{_fmt(day and day / 1e6, ' M', 2)} nodes per 2.3 M-line day (from 92,000 lines)", holds,
            "by construction: the generator's field probabilities were chosen for ~5.2 nodes per line")


def judge_parser_speed(rows):
    """Parse time malloc vs arena under glibc: the claim is ~9x faster with the arena."""
    r = rows[0]
    m = pick(r, "phases", "seconds", allocator="glibc", params="--alloc=malloc --scale=10 --files=4", phase="parse")
    a = pick(r, "phases", "seconds", allocator="glibc", params="--alloc=arena --scale=10 --files=4", phase="parse")
    ratio = _ratio(m, a)
    holds = ratio is not None and ratio >= 6.0
    return (f"parse malloc {_fmt(m, ' s', 3)}, arena {_fmt(a, ' s', 3)}: x{_fmt(ratio)}", holds,
            "node allocation is only part of parsing here (tokenising, copying strings and hashing every "
            "node cost as much), and glibc's tcache makes small mallocs cheap" if not holds else "as claimed")


def judge_parser_growth(rows):
    """RSS per file, noreset vs reset: the claim is growth with every file (~1.5 GB / 30 files) vs flat."""
    r = rows[0]
    files = range(1, 9)
    nr = [pick(r, "phases", "rss_kb", allocator="glibc", params="--alloc=noreset --scale=10 --files=8",
               phase=f"file-{i}") for i in files]
    rs = [pick(r, "phases", "rss_kb", allocator="glibc", params="--alloc=reset --scale=10 --files=8",
               phase=f"file-{i}") for i in files]
    if None in nr or None in rs:
        return "n/a (runs missing)", False, "the cells did not run"
    grows = all(b > a for a, b in zip(nr, nr[1:]))
    flat = max(rs[1:]) <= rs[1] * 1.05
    per_file_day = (nr[-1] - nr[0]) / 7 / 1024 * 100  # MiB per file at full scale (scale 10 = 1/100 day)
    return (f"noreset RSS {nr[0] // 1024}->{nr[-1] // 1024} MiB over 8 files (~{per_file_day * 30 / 1024:.2f} GiB "
            f"per 30 full-day files extrapolated); reset {min(rs) // 1024}-{max(rs) // 1024} MiB",
            grows and flat, "the arena never reset keeps every file's nodes; a reset reuses the same blocks")


def judge_list(rows):
    """List total and free time, malloc vs arena: the claim is ~8x faster in total, free 61 ms -> ~0."""
    r = rows[0]
    tot = {}
    free = {}
    for a in ("malloc", "arena"):
        p = f"--alloc={a} --nodes=2000000"
        ph = [pick(r, "phases", "seconds", allocator="glibc", params=p, phase=x) for x in ("build", "traverse", "free")]
        tot[a] = sum(ph) if None not in ph else None
        free[a] = ph[2]
    ratio = _ratio(tot["malloc"], tot["arena"])
    holds = ratio is not None and ratio >= 5.0
    return (f"total malloc {_fmt(tot['malloc'], ' s', 3)}, arena {_fmt(tot['arena'], ' s', 3)}: x{_fmt(ratio)}; "
            f"free {_fmt(free['malloc'] and free['malloc'] * 1e3, ' ms', 1)} vs "
            f"{_fmt(free['arena'] and free['arena'] * 1e3, ' ms', 1)}", holds,
            "glibc carves each 16-byte node as a 32-byte chunk off the top, cheap at -O2; the arena saves that call "
            "and half the memory and page faults: x2-3 here, not the x8 measured at -O0" if not holds else "as claimed")


def judge_pool(rows):
    """Time per alloc+free pair, pool vs malloc: the claim is 0.41 us vs 0.90 us (at -O0)."""
    r = rows[0]
    per = {}
    for a in ("malloc", "pool"):
        ph = [pick(r, "phases", "seconds", allocator="glibc", params=f"--alloc={a}", phase=x) for x in ("alloc", "free")]
        per[a] = sum(ph) / 1e6 * 1e6 if None not in ph else None
    ratio = _ratio(per["malloc"], per["pool"])
    holds = ratio is not None and ratio >= 1.8
    return (f"per pair: pool {_fmt(per['pool'], ' us', 3)}, malloc {_fmt(per['malloc'], ' us', 3)}: x{_fmt(ratio)}",
            holds, "at -O2 the per-call difference is small next to what both variants pay alike: page faults and "
                   "pattern writes for 256 MB; the claim was measured at -O0" if not holds else "as claimed")


def judge_churn_random(rows):
    """glibc default vs tcache_count=0 vs mmap_threshold=131072: us/step, RSS live, RSS after free-all."""
    out, fig = [], {}
    for label, r in zip(("default", "tcache_count=0", "mmap_threshold=131072"), rows):
        steps = pick(r, "phases", "ops", allocator="glibc", phase="steady")
        secs = pick(r, "phases", "seconds", allocator="glibc", phase="steady")
        live = pick(r, "phases", "rss_kb", allocator="glibc", phase="steady")
        after = pick(r, "phases", "rss_kb", allocator="glibc", phase="free-all")
        fig[label] = (secs and steps and secs / steps * 1e6, live, after)
        out.append(f"{label}: {_fmt(fig[label][0], ' us', 3)}/step, RSS {_fmt(live and live / 1024, '', 1)} -> "
                   f"{_fmt(after and after / 1024, ' MiB', 2)}")
    d, t, m = fig["default"], fig["tcache_count=0"], fig["mmap_threshold=131072"]
    try:
        holds = t[2] < d[2] / 2 and m[0] > 3 * d[0] and m[2] < d[2]
    except TypeError:
        holds = False
    return ("; ".join(out), holds,
            "the ordering is checked (tcache off frees more, a fixed mmap threshold is slower and frees more), not the "
            "absolute figures: every block here is touched page by page, the original did not")


def judge_sizes(rows):
    """glibc usable sizes: 1..24 -> 24 (32-byte chunk), 25 -> 40 (48-byte chunk)."""
    r = rows[0]
    usable = {s["request"]: s["usable"] for s in r["sizes"] if s["allocator"] == "glibc"}
    small = {usable.get(n) for n in range(1, 25)}
    u25 = usable.get(25)
    holds = small == {24} and u25 == 40
    return (f"usable(1..24) = {sorted(x for x in small if x is not None)}, usable(25) = {u25}", holds,
            "64-bit glibc: 16-byte alignment, 8-byte size header, minimum chunk 32")


def judge_mmap(rows):
    """Faults per 200 KiB round after the first (runs with 3 vs 20003 rounds): the claim is ~0."""
    r = rows[0]
    a = pick(r, "runs", "minflt", allocator="glibc", params="--rounds=3 --sweep-max=65536")
    b = pick(r, "runs", "minflt", allocator="glibc", params="--rounds=20003 --sweep-max=65536")
    first = pick(r, "phases", "seconds", allocator="glibc", params="--rounds=20003 --sweep-max=65536", phase="first")
    later = pick(r, "phases", "seconds", allocator="glibc", params="--rounds=20003 --sweep-max=65536", phase="later")
    per_round = (b - a) / 20000 if a is not None and b is not None else None
    holds = per_round is not None and per_round < 0.5
    return (f"faults per later round {_fmt(per_round, '', 3)}; round 1 {_fmt(first and first * 1e6, ' us', 1)}, "
            f"later rounds {_fmt(later and later / 20001 * 1e6, ' us', 2)} each", holds,
            "the first free of a mmap'd 200 KiB block raises the threshold above it; later blocks come from the heap"
            if holds else "later rounds still fault")


def judge_realloc(rows):
    """us per append, x2 vs +4 KiB: the claim is that factor growth amortises, constant steps do not."""
    r = rows[0]
    per = {g: pick(r, "phases", "seconds", allocator="glibc", params=f"--growth={g} --elems=8000000", phase="grow")
           for g in ("x1.5", "x2", "plus")}
    ratio = _ratio(per["plus"], per["x2"])
    holds = ratio is not None and ratio >= 2.0
    return (f"grow 8 M appends: x1.5 {_fmt(per['x1.5'], ' s', 3)}, x2 {_fmt(per['x2'], ' s', 3)}, "
            f"+4 KiB {_fmt(per['plus'], ' s', 3)}: plus/x2 x{_fmt(ratio)}", holds,
            "glibc grows big (mmap'd) blocks with mremap, which moves page tables, not bytes, so constant steps stay "
            "cheap" if not holds else "constant steps cost much more, as claimed")


def judge_calloc(rows):
    """alloc phase time, calloc vs malloc+memset of 128 MiB: the claim is calloc skips the memset."""
    r = rows[0]
    c = pick(r, "phases", "seconds", allocator="glibc", params="--mode=calloc", phase="alloc")
    m = pick(r, "phases", "seconds", allocator="glibc", params="--mode=malloc-memset", phase="alloc")
    cu = pick(r, "phases", "seconds", allocator="glibc", params="--mode=calloc", phase="use")
    mu = pick(r, "phases", "seconds", allocator="glibc", params="--mode=malloc-memset", phase="use")
    ratio = _ratio(m, c)
    holds = ratio is not None and ratio >= 10
    return (f"alloc: calloc {_fmt(c and c * 1e3, ' ms', 2)}, malloc+memset {_fmt(m and m * 1e3, ' ms', 1)} (x{_fmt(ratio, '', 0)}); "
            f"use: {_fmt(cu and cu * 1e3, ' ms', 0)} vs {_fmt(mu and mu * 1e3, ' ms', 0)}", holds,
            "fresh mmap'd pages are already zero; the faulting cost moves to first use")


CLAIMS = [
    dict(id="thread-churn/8", text="glibc: 8 threads 5x slower than 1", judge=judge_churn_scaling,
         specs=[("thread-churn", ["glibc"], [1, 8], [CHURN_P], "")]),
    dict(id="thread-churn/32", text="32 threads: glibc ~60 s vs ~5-7 s with tcmalloc/jemalloc/mimalloc",
         judge=judge_churn_32, specs=[("thread-churn", ["glibc"] + FAST, [32], [CHURN_P], "")]),
    dict(id="frag", text="RSS stays at ~199 MB after everything is freed", judge=judge_frag,
         specs=[("frag", ["glibc"], None, ["--blocks=200000"], "")]),
    dict(id="parser/nodes", text="a 2.3 M-line day file has ~11.9 M nodes", judge=judge_parser_nodes,
         specs=[("parser", ["glibc"], None, ["--alloc=malloc --scale=10 --files=4"], "")]),
    dict(id="parser/arena", text="the arena is ~9x faster than malloc per node", judge=judge_parser_speed,
         specs=[("parser", ["glibc"], None, ["--alloc=malloc --scale=10 --files=4",
                                             "--alloc=arena --scale=10 --files=4"], "")]),
    dict(id="parser/reset", text="without reset RSS grows with every file (~1.5 GB / 30 files), with reset flat",
         judge=judge_parser_growth, specs=[("parser", ["glibc"], None, ["--alloc=noreset --scale=10 --files=8",
                                                                         "--alloc=reset --scale=10 --files=8"], "")]),
    dict(id="list", text="2 M nodes: ~8x faster in total with an arena, free 61 ms -> ~0", judge=judge_list,
         specs=[("list", ["glibc"], None, ["--alloc=malloc --nodes=2000000", "--alloc=arena --nodes=2000000"], "")]),
    dict(id="pool", text="1 M x 256 B: pool 0.41 us vs malloc 0.90 us per pair (-O0)", judge=judge_pool,
         specs=[("pool", ["glibc"], None, ["--alloc=malloc", "--alloc=pool"], "")]),
    dict(id="churn-random", text="glibc 0.079 us/step, 19.0 -> 19.0 MiB; tcache_count=0 0.121 us, -> 0.25 MiB; "
                                 "mmap_threshold=131072 0.843 us, -> 5.85 MiB", judge=judge_churn_random,
         specs=[("churn-random", ["glibc"], None, ["--steps=300000"], env) for env in
                ("", "GLIBC_TUNABLES=glibc.malloc.tcache_count=0", "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072")]),
    dict(id="sizes", text="64-bit glibc: malloc(1)..malloc(24) use 32-byte chunks, malloc(25) 48", judge=judge_sizes,
         specs=[("sizes", ["glibc"], None, ["--max=4096"], "")]),
    dict(id="mmap-threshold", text="after one 200 KiB free, later rounds stop calling mmap and faulting",
         judge=judge_mmap, specs=[("mmap-threshold", ["glibc"], None,
                                   ["--rounds=3 --sweep-max=65536", "--rounds=20003 --sweep-max=65536"], "")]),
    dict(id="realloc-grow", text="growth by a factor amortises realloc's cost (constant steps do not)",
         judge=judge_realloc, specs=[("realloc-grow", ["glibc"], None,
                                      [f"--growth={g} --elems=8000000" for g in ("x1.5", "x2", "plus")], "")]),
    dict(id="calloc", text="calloc of fresh mmap'd memory skips the memset", judge=judge_calloc,
         specs=[("calloc", ["glibc"], None, ["--mode=calloc", "--mode=malloc-memset"], "")]),
]
