"""a000.py - article 000's claims (macOS): RSS after freeing 200,000 x 1 KiB, malloc_trim, the linked list with an arena, mimalloc's metadata and pages.

Always holds: the frag claim's row is the article's code (its RSS reader runs once before the
blocks are allocated, so nothing it allocates lies above them), and the form with one live chunk
above the blocks (--pin=yes, the mechanism the article describes in words: one live chunk near the
top keeps everything below it) is a second, labelled row; RSS figures come from one run (they do
not depend on the load); the list claims compare the
article's arena (--alloc=single, one malloc of the capacity) with malloc per node in user-space
instructions (callgrind, per phase: they do not depend on the load), the page faults and the
wall time of interleaved reps beside them as information (a fault costs ~15 us on this VM even
when idle, so the wall-time ratio measures the VM).
"""
import os
import re

from heapbench.claims import a004
from heapbench.claims import verdict as V
from heapbench.claims.figures import (FAULTS, claim, fault_text, fmt, instr_spec, instructions, mib, ratio, rss,
                                      run_values, secs_runs)
from heapbench.claims.measure import Spec, pick

FRAG_P = "--blocks=200000 --first=even"
PIN_P = FRAG_P + " --pin=yes"
FRAG_PIN = Spec("frag", ["glibc"], params=(PIN_P,), reps=1, warmup=0)
FRAG_NOPIN = Spec("frag", ["glibc"], params=(FRAG_P,), reps=1, warmup=0)
LIST_P = {a: f"--alloc={a} --nodes=2000000" for a in ("malloc", "arena", "single")}
LIST = Spec("list", ["glibc"], params=tuple(LIST_P.values()))
LIST_INSTR = {a: instr_spec("list", LIST_P[a]) for a in ("malloc", "single")}
LIST_SPECS = [LIST, LIST_INSTR["malloc"], LIST_INSTR["single"], FAULTS]
WALKS = 16  # the traversal's cells walk the list this many times: a phase of ~0.1 s, which preemption
# under load stretches alike in both variants, where one walk of 3-8 ms is either preempted or not
WALK_P = {a: f"{LIST_P[a]} --walks={WALKS}" for a in ("malloc", "single")}
LIST_WALK = Spec("list", ["glibc"], params=tuple(WALK_P.values()), reps=9)  # a wall-time row: 9 reps narrow its interval
IDLE_S = 12
SERVER_P = f"--profile=mixed --cycles=1 --load-ms=1000 --idle-ms={IDLE_S * 1000}"
SERVER = Spec("server", ["jemalloc", "tcmalloc"], params=(SERVER_P,), reps=1, warmup=0)
LIST_INSTR_DIFF = ("; judged in user-space instructions, not time: the article timed its run, and our wall "
                   "time is mostly page faults (malloc's side faults twice the arena's pages), which cost ~15 us "
                   "each on this VM even when idle, so the wall-time ratio measures the VM; instructions do not "
                   "weigh cache misses or the faults' kernel time")
KEPT = 0.75  # "stays at ~199 MB": at least 3/4 of the RSS after alloc still resident

FRAG_SETUP = ("macOS (section: fragmentation); 200,000 x 1 KiB malloc'd; the even blocks freed first, then the "
              "rest; RSS read before the blocks and after each step; the article says glibc behaves the same")
FRAG_DIFF = ("glibc, not macOS's allocator; the blocks are written (`--check=yes`): with `--check=no` jemalloc "
             "keeps 11.7 MiB resident after allocating 200 MB and tbbmalloc 58.5 MiB (they never write a 1 KiB "
             "block), so the claim's starting point, ~200 MB resident, needs the blocks touched, as macOS's were")
PIN_DIFF = ("; our variant, not the article's code: one 64-byte block allocated right after the batch and kept live "
            "(`--pin=yes`), the case the article describes in words (one live chunk near the top keeps the free "
            "space below it)")
LIST_SETUP = ("Apple M3 Max, macOS 26.5, clang 21, `cc -O2` (section: not using a general-purpose allocator); a "
              "list of 2,000,000 16-byte nodes built, walked, destroyed, each step timed (malloc 59.3 + 5.6 + 61.3 = "
              "126.2 ms, arena 8.0 + 8.0 + 0.0 = 16.1 ms); the arena is one malloc(capacity), an inline bump that "
              "rounds to 16 and returns NULL when full, one free")
LIST_DIFF = ("glibc carves each 16-byte node as a 32-byte chunk, so malloc'd nodes fault twice the pages the arena "
             "does; macOS's allocator has 16-byte quanta; both at -O2")


def _frag(r, params):
    """(alloc, free-half, free-all, trim) RSS KiB of glibc's frag cell."""
    return tuple(rss(r, p, allocator="glibc", params=params) for p in ("alloc", "free-half", "free-all", "trim"))


def _kept(r, params):
    """The interval of RSS after free-all over RSS after alloc (one run: exact)."""
    a, _, after, _ = _frag(r, params)
    return V.exact(ratio(after, a))


def _frag_text(r, params):
    """The frag cell's RSS after each step."""
    a, half, after, trim = (fmt(mib(x), " MiB", 1) for x in _frag(r, params))
    return f"glibc: RSS after alloc {a}, after free-half {half}, after free-all {after}, after malloc_trim(0) {trim}"


def judge_kept(params):
    """RSS after free-all at least 3/4 of the RSS after alloc, on the frag cell of these params."""
    def judge(rows):
        return _frag_text(rows[0], params), V.decide(_kept(rows[0], params), lo=KEPT)
    return judge


def judge_trim_threshold(rows):
    """free() shrinks the heap when the top chunk exceeds the trim threshold: RSS after free-all (the
    whole batch coalesced into the top, ~200 MB above 128 KiB) under a tenth of the RSS after alloc."""
    x = _kept(rows[0], FRAG_P)
    return _frag_text(rows[0], FRAG_P), V.decide(x, hi=0.1)


MI_BLOCKS = (100000, 200000)
MI_P = tuple(f"--blocks={n} --first=even" for n in MI_BLOCKS)
FRAG_MI = Spec("frag", ["mimalloc", "glibc"], params=MI_P, reps=1, warmup=0)
MI_BOUND = 0.004  # "about 0.2%": at most twice the claim


def beyond_blocks(r, alloc="mimalloc"):
    """An allocator's bytes beyond the blocks per block byte, from RSS after `alloc` at the two block
    counts (the difference cancels the program, libc and the allocator's start-up; the block table's
    8 bytes per block are taken off), or None. glibc's gives the method's check: its 16 bytes of
    header and rounding per 1 KiB block are 1.56%."""
    kb = [rss(r, "alloc", allocator=alloc, params=p) for p in MI_P]
    if None in kb:
        return None
    blocks = MI_BLOCKS[1] - MI_BLOCKS[0]
    return ((kb[1] - kb[0]) * 1024 - blocks * (1024 + 8)) / (blocks * 1024)


def judge_mimalloc_meta(rows):
    """Metadata share (RSS beyond the blocks and their table, per block byte, one run each: exact)
    at most MI_BOUND holds, above it does not."""
    x, g = beyond_blocks(rows[0]), beyond_blocks(rows[0], "glibc")
    kb = [rss(rows[0], "alloc", allocator="mimalloc", params=p) for p in MI_P]
    return (f"mimalloc: beyond the blocks {fmt(x and x * 100, '%', 2)} of their bytes (RSS after alloc "
            f"{fmt(mib(kb[0]), ' MiB', 1)} at {MI_BLOCKS[0]:,} blocks, {fmt(mib(kb[1]), ' MiB', 1)} at "
            f"{MI_BLOCKS[1]:,}); the same figure of glibc, the method's check: {fmt(g and g * 100, '%', 2)} "
            f"(its headers: 1.56%)", V.decide(V.exact(x), hi=MI_BOUND))


PAGES_P = "--blocks=20000 --size-a=32 --size-b=48 --window=65536"
PAGES = Spec("pages", ["mimalloc", "glibc", "jemalloc"], params=(PAGES_P,), reps=1, warmup=0)
PAGE = 65536
MIXED_HOLDS, MIXED_FAILS = 0.1, 0.5  # share of 64 KiB windows holding both sizes
RUN_HOLDS, RUN_FAILS = (PAGE * 3 // 4, PAGE), (PAGE // 2, 2 * PAGE)  # the median run's span, bytes


def page_figures(rows, alloc):
    """(share of the windows holding both sizes, the median run's span in bytes) of one allocator's
    pages cell, None where a figure is missing."""
    where = dict(allocator=alloc, params=PAGES_P)
    windows, mixed, span = (pick(rows, "phases", "ops", phase=p, **where) for p in ("windows", "mixed", "run-bytes"))
    return ratio(mixed, windows), span


def judge_mimalloc_pages(rows):
    """Two parts on mimalloc's addresses (counts of one run): one size class per page holds when at
    most MIXED_HOLDS of the 64 KiB windows hold both sizes (does not hold above MIXED_FAILS); 64 KiB
    pages hold when the median run of one size spans 48-64 KiB (a 64 KiB page less its start), and
    do not hold outside 32-128 KiB. glibc's and jemalloc's figures are shown as the method's check."""
    fig = {a: page_figures(rows[0], a) for a in ("mimalloc", "glibc", "jemalloc")}
    mixed, span = fig["mimalloc"]
    one = V.banded(mixed, (None, MIXED_HOLDS), (None, MIXED_FAILS), "windows of 64 KiB hold both sizes")
    size = V.banded(span, RUN_HOLDS, RUN_FAILS, "its pages are not ~64 KiB")

    def show(a):
        m, s = fig[a]
        return f"{fmt(m and m * 100, '%', 0)} of the windows mixed, median run {fmt(s, ' B', 0)}"
    return (f"mimalloc: {show('mimalloc')}; the method's check: glibc {show('glibc')}, jemalloc {show('jemalloc')}",
            V.both(one, size))


def judge_half(rows):
    """RSS after freeing every other block within 5% of the RSS after alloc (the article's code: no pin)."""
    a, half, _, _ = _frag(rows[0], FRAG_P)
    x = ratio(half, a)
    return (f"RSS after free-half / after alloc: {fmt(x, '', 3)} ({fmt(mib(half), ' MiB', 1)} / "
            f"{fmt(mib(a), ' MiB', 1)})", V.decide(V.exact(x), lo=0.95, hi=1.05))


def judge_trim(rows):
    """malloc_trim(0) "does little" with the free space below a live chunk: it returns under a quarter
    of the RSS after free-all."""
    _, _, after, trim = _frag(rows[0], PIN_P)
    returned = ratio(after - trim, after) if None not in (after, trim) else None
    return (f"malloc_trim(0) returned {fmt(returned and returned * 100, '%', 1)} of the RSS after free-all "
            f"({fmt(mib(after), ' MiB', 1)} -> {fmt(mib(trim), ' MiB', 1)})",
            V.decide(V.exact(returned), hi=0.25, note="glibc 2.36's malloc_trim returns free pages from inside "
                     "the heap with madvise, not only its top"))


def _list(rows, variant, phases):
    """Seconds of the phases summed, per run, of one list variant."""
    return secs_runs(rows[0], phases, allocator="glibc", params=LIST_P[variant])


def list_instr(rows, phases):
    """(malloc's, the single arena's) user-space instructions over the phases (LIST_SPECS rows)."""
    return instructions(rows[1], phases), instructions(rows[2], phases)


def _list_info(rows, phases):
    """The load-dependent figures beside a list verdict: whole-process page faults of each variant
    and the wall-time ratio, with what a fault costs here."""
    flt = {v: V.of_values(run_values(rows[0], "minflt", allocator="glibc", params=LIST_P[v])) for v in ("malloc", "single")}
    t = V.of_ratio(_list(rows, "malloc", phases), _list(rows, "single", phases))
    return (f"page faults (whole process) malloc {V.show(flt['malloc'], '', 0)}, single arena "
            f"{V.show(flt['single'], '', 0)}; wall time malloc / single arena x{V.show(t)}, information: "
            f"{fault_text(rows[3])}")


def judge_list_ratio(phases, k):
    """malloc against the article's arena over the phases, in user-space instructions: the claim is
    xk faster; holds above half the effect."""
    def judge(rows):
        m, s = list_instr(rows, phases)
        x = ratio(m, s)
        return (f"{' + '.join(phases)}: user-space instructions malloc / single arena x{fmt(x)} ({fmt(m, '', 0)} "
                f"against {fmt(s, '', 0)}); {_list_info(rows, phases)}", V.decide(V.exact(x), lo=V.half_effect(k)))
    return judge


def judge_list_free(rows):
    """The free phase, the article's arena against malloc, in user-space instructions: "~0" means
    under a fifth of malloc's (its one munmap's kernel time is not in them: shown in the row)."""
    m, s = list_instr(rows, ("free",))
    x = ratio(s, m)
    mm = V.of_values(_list(rows, "malloc", ("free",)))
    return (f"free: user-space instructions single arena / malloc x{fmt(x, '', 5)} ({fmt(s, '', 0)} against "
            f"{fmt(m, '', 0)}); malloc's free {V.show(mm, ' ms', 1, 1e3)} (the article's 61 ms: information); "
            f"{_list_info(rows, ('free',))}", V.decide(V.exact(x), hi=0.2))


TRAVERSE_K = 8.0 / 5.6  # the article's traversal: the arena's 8.0 ms against malloc's 5.6 ms


def judge_traverse(rows):
    """The traversal, the article's arena against malloc, in wall time of interleaved reps of the
    WALKS-walk cells (the nodes are resident by then: no fault in the phase): "slower" holds above
    half the article's x1.43; times shown per walk."""
    t = {v: secs_runs(rows[0], ("traverse",), allocator="glibc", params=WALK_P[v]) for v in WALK_P}
    iv = V.of_ratio(t["single"], t["malloc"])
    m, s = (V.of_values(t[v]) for v in ("malloc", "single"))
    return (f"traverse: single arena / malloc x{V.show(iv)} (a walk: single arena {V.show(s, ' ms', 1, 1e3 / WALKS)}, "
            f"malloc {V.show(m, ' ms', 1, 1e3 / WALKS)})", V.decide(iv, lo=V.half_effect(TRAVERSE_K)))


JE_STATS = Spec("tcache", ["jemalloc"], params=("--blocks=16",), envs=("MALLOC_CONF=stats_print:true",), reps=1,
                warmup=0)


def jemalloc_defaults():
    """The defaults article 000 gives for jemalloc, on this machine: {option: value}."""
    return {"narenas": 4 * (os.cpu_count() or 1), "tcache_max": 32 * 1024, "dirty_decay_ms": 10000,
            "muzzy_decay_ms": 0}


def judge_je_defaults(rows):
    """jemalloc's options as its stats_print at exit lists them (opt.<name>: value), each equal to
    the article's default."""
    text = "\n".join(rows[0].get("logs", {}).values())
    got = {k: re.search(rf"^\s*opt\.{k}: (-?\d+)", text, re.M) for k in jemalloc_defaults()}
    got = {k: int(m.group(1)) if m else None for k, m in got.items()}
    if None in got.values():
        return "n/a", V.untestable(V.NO_FIGURE)
    want = jemalloc_defaults()
    return (", ".join(f"{k} {got[k]} (article {want[k]})" for k in want),
            V.Verdict(V.HOLDS if got == want else V.NOT_HOLD))


def judge_idle(alloc):
    """RSS at the end of 12 s of idle (no allocator call) against the end of the load: "gives memory
    back" is at least 10% less."""
    def judge(rows):
        load = rss(rows[0], "c1-load", allocator=alloc, params=SERVER_P)
        idle = rss(rows[0], f"c1-idle-{IDLE_S}s", allocator=alloc, params=SERVER_P)
        back = ratio(load - idle, load) if None not in (load, idle) else None
        return (f"{alloc}: RSS {fmt(mib(load), ' MiB', 1)} at the end of the load, {fmt(mib(idle), ' MiB', 1)} after "
                f"{IDLE_S} s idle ({fmt(back and back * 100, '%', 1)} given back)", V.decide(V.exact(back), lo=0.1))
    return judge


def judge_lower_threshold(rows):
    """RSS after free-all with mmap_threshold lowered to 128 KiB against the default's (churn-random,
    3 envs interleaved): "returns memory" holds at x0.8 or less."""
    kept = V.of_ratio(a004.rss_values(rows, "free-all", "mmap"), a004.rss_values(rows, "free-all", "default"))
    return f"RSS after free-all, mmap_threshold=131072 / default: x{V.show(kept)}", V.decide(kept, hi=0.8)


CLAIMS = [
    claim("frag", "000", "RSS stays at ~199 MB after everything is freed, and glibc does the same", FRAG_SETUP,
          "RSS at the end of `free-all` against `alloc` (RSS does not depend on the load: one run); nothing "
          "allocated above the blocks, as in the article's code", FRAG_DIFF, [FRAG_NOPIN], judge_kept(FRAG_P)),
    claim("frag/pin", "000", "(second row, our variant) the same with one live chunk above the blocks", FRAG_SETUP,
          "as above, with one 64-byte block kept live right after the batch", FRAG_DIFF + PIN_DIFF, [FRAG_PIN],
          judge_kept(PIN_P)),
    claim("frag/half", "000", "RSS is unchanged after freeing every other block (section: fragmentation: 199.0 "
          "MB after alloc and after freeing every other block)", FRAG_SETUP,
          "RSS at the end of `free-half` against `alloc`, in the article's code (frag's cell, no pin: the odd "
          "blocks still live lie above the freed ones); holds within 5%", FRAG_DIFF, [FRAG_NOPIN], judge_half),
    claim("frag/trim", "000", "malloc_trim(0) does little when the free space is not at the top of the heap",
          "no measurement: malloc_trim(0) is a remedy listed after the fragmentation experiment (section: "
          "fragmentation: it does little when the top chunk is not contiguous); that experiment: " + FRAG_SETUP, "RSS at the end of `trim` against `free-all`, with the pin "
          "of frag/pin (the claim's condition: the top is not free)", FRAG_DIFF + PIN_DIFF,
          [FRAG_PIN], judge_trim),
    claim("list/total", "000", "2 M nodes: ~8x faster in total with an arena", LIST_SETUP,
          "build + traverse + free in user-space instructions (callgrind, one run: they do not depend on the "
          "load); `single` is the article's arena; holds above x4.5 (half the effect); faults and wall time "
          "shown", LIST_DIFF + LIST_INSTR_DIFF, LIST_SPECS, judge_list_ratio(("build", "traverse", "free"), 8)),
    claim("list/alloc", "000", "2 M nodes: ~7x faster allocation with an arena", LIST_SETUP,
          "the `build` phase in user-space instructions; holds above x4", LIST_DIFF + LIST_INSTR_DIFF, LIST_SPECS,
          judge_list_ratio(("build",), 7)),
    claim("list/traverse", "000", "the arena's list is traversed slower than malloc's (8.0 against 5.6 ms)",
          LIST_SETUP + "; the traversal alone", f"the `traverse` phase's wall time, interleaved reps (no page fault "
          f"in it: the nodes were written in `build`), the list walked {WALKS} times in the phase (`--walks`); "
          "holds above x1.21 (half the article's x1.43)", LIST_DIFF + ": our arena's nodes lie 16 bytes apart, "
          f"malloc's 32; {WALKS} walks timed together where the article timed one: malloc's 64 MB list does not "
          "stay in the caches from one walk to the next, the arena's 32 MB is this machine's L3 (32 MiB, shared "
          "with other jobs), so part of it may", [LIST_WALK], judge_traverse),
    claim("list/free", "000", "freeing the 2 M nodes takes 61 ms with malloc, ~0 with the arena",
          LIST_SETUP + "; the free phase alone", "the `free` phase in user-space instructions; holds under x0.2",
          LIST_DIFF + LIST_INSTR_DIFF + "; the arena's one free of 32 MB is a munmap here, which unmaps ~7,800 "
          "resident pages: kernel time, in no instruction count (its wall time grows with the load)",
          LIST_SPECS, judge_list_free),
] + [
    claim(f"background/{a}", "000", f"{a} gives memory back through background madvise (while the program makes "
          "no allocator call; section: fragmentation, its remedies)", "a remedy in a list: no program, setting or "
          "figure given", f"server, one cycle of 1 s load (mixed profile) then {IDLE_S} s with no "
          "allocator call; RSS at the end of the idle against the end of the load (one run)",
          "default settings: jemalloc's decay runs inside allocator calls unless background_thread:true "
          "(docs/MEMORY.md has the long form, with and without it); the article gives no settings",
          [SERVER], judge_idle(a)) for a in ("jemalloc", "tcmalloc")
] + [
    claim("frag/lower-mmap-threshold", "000", "lowering M_MMAP_THRESHOLD returns memory (large blocks go through "
          "mmap; section: fragmentation, its remedies)", "no figure given", "the churn-random cells of "
          "churn-random/mmap: RSS after free-all with `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072` against "
          "the default; holds at x0.8 or less", a004.CHURN_DIFF + "; 128 KiB is article 004's setting (000 names "
          "no value)", [a004.CHURN], judge_lower_threshold),
    claim("jemalloc-defaults", "000", "jemalloc's defaults: arenas 4 x CPUs, tcache_max 32 KiB, dirty_decay_ms 10 s, "
          "muzzy_decay_ms 0 (section: jemalloc)", "no measurement; the values as the article lists them",
          "jemalloc's own `stats_print` at exit (`--env MALLOC_CONF=stats_print:true`, the `tcache` workload, one "
          "run): its opt.narenas, opt.tcache_max, opt.dirty_decay_ms, opt.muzzy_decay_ms", "Debian's jemalloc "
          "5.3.0", [JE_STATS], judge_je_defaults),
    claim("frag/trim-threshold", "000", "M_TRIM_THRESHOLD (default 128KB): free shrinks the heap once the top chunk "
          "exceeds it (section: mmap threshold)", "no measurement", "the frag cell of the frag row (nothing live "
          "above the blocks): RSS at the end of `free-all` against `alloc`; holds under x0.1", "the threshold's "
          "value is not tested: the top chunk here is ~200 MB, far above it", [FRAG_NOPIN], judge_trim_threshold),
    claim("mimalloc/meta", "000", "mimalloc's metadata overhead is about 0.2% (section: mimalloc, citing its README)",
          "no measurement; the figure as mimalloc's README states it", "RSS at the end of `alloc` of frag's cell "
          f"(1 KiB blocks, written) under mimalloc at {MI_BLOCKS[0]:,} and {MI_BLOCKS[1]:,} blocks, one run each: "
          "the difference's bytes beyond the blocks and their 8-byte table entries, over the blocks' bytes (glibc's "
          "cells beside it check the method against its 16-byte headers); holds "
          f"at {MI_BOUND:.1%} or less (twice the claim), does not hold above",
          "Debian's mimalloc 2.0.9; one size (1 KiB, a size class of its own, so no rounding counts as "
          "metadata); the figure also holds any page mimalloc keeps partly used, which a 1 KiB class fills "
          "exactly; the article's other sentence on mimalloc, 64 KiB pages of one size class, is the row "
          "mimalloc/pages", [FRAG_MI], judge_mimalloc_meta),
    claim("mimalloc/pages", "000", "mimalloc's pages are usually 64 KiB, each holding one size class (section: "
          "mimalloc)", "no measurement; mimalloc's design as its README describes it",
          "`pages`: 20,000 blocks of 32 B and 20,000 of 48 B malloc'd in turn and held, their addresses sorted "
          "(one run: counts): the share of 64 KiB-aligned windows holding both sizes (one size class per page: "
          "holds at 10% or less, does not hold above 50%) and the median run of one size, from its first block to "
          "its last (the page's span: holds at 48-64 KiB, does not hold outside 32-128 KiB); glibc and jemalloc "
          "beside it, the method's check", "Debian's mimalloc 2.0.9; two small sizes (32 and 48 B) of our "
          "choosing; a run of one size could span two adjacent pages of the same class, which allocating the two "
          "sizes in turn makes unlikely", [PAGES], judge_mimalloc_pages),
]
