"""a000.py - article 000's claims (macOS): RSS after freeing 200,000 x 1 KiB, malloc_trim, and the linked list with an arena.

Always holds: the frag claim's row is the article's form (a live chunk above the freed blocks,
--pin=yes: the article read RSS in a way that allocates, and any live chunk above the blocks,
even a stdio FILE, keeps glibc from trimming), the form without it a second, labelled row;
RSS figures come from one run (they do not depend on the load); the list claims compare the
article's arena (--alloc=single, one malloc of the capacity) with malloc per node from
interleaved reps, judged on the bootstrap interval of the ratio.
"""
from heapbench.claims import verdict as V
from heapbench.claims.figures import FAULTS, claim, fmt, guarded, mib, ratio, rss, secs_runs
from heapbench.claims.measure import Spec

FRAG_P = "--blocks=200000 --first=even"
PIN_P = FRAG_P + " --pin=yes"
FRAG_PIN = Spec("frag", ["glibc"], params=(PIN_P,), reps=1, warmup=0)
FRAG_NOPIN = Spec("frag", ["glibc"], params=(FRAG_P,), reps=1, warmup=0)
LIST_P = {a: f"--alloc={a} --nodes=2000000" for a in ("malloc", "arena", "single")}
LIST = Spec("list", ["glibc"], params=tuple(LIST_P.values()))
IDLE_S = 12
SERVER_P = f"--profile=mixed --cycles=1 --load-ms=1000 --idle-ms={IDLE_S * 1000}"
SERVER = Spec("server", ["jemalloc", "tcmalloc"], params=(SERVER_P,), reps=1, warmup=0)
KEPT = 0.75  # "stays at ~199 MB": at least 3/4 of the RSS after alloc still resident

FRAG_SETUP = ("macOS; 200,000 x 1 KiB malloc'd; the blocks frozen unwritten; the even blocks freed first, "
              "then the rest; RSS read after each step, by code that allocates")
FRAG_DIFF = ("glibc, not macOS's allocator; the blocks are written (`--check=yes`): with `--check=no` jemalloc "
             "keeps 11.7 MiB resident after allocating 200 MB and tbbmalloc 58.5 MiB (they never write a 1 KiB "
             "block), so the claim's starting point, ~200 MB resident, needs the blocks touched, as macOS's were; "
             "the article's RSS reading allocated, which leaves a live chunk above the blocks: our `--pin=yes` "
             "allocates one 64-byte block right after the batch for that")
LIST_SETUP = ("macOS, built at -O2; a list of 2,000,000 16-byte nodes built, walked, freed; the arena is one "
              "malloc(capacity) bumped through")
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


def judge_frag(rows):
    """The article's form: RSS after free-all at least 3/4 of the RSS after alloc."""
    return _frag_text(rows[0], PIN_P), V.decide(_kept(rows[0], PIN_P), lo=KEPT)


def judge_frag_nopin(rows):
    """The same judge on the form with nothing above the blocks (our own reader allocates nothing)."""
    return _frag_text(rows[0], FRAG_P), V.decide(_kept(rows[0], FRAG_P), lo=KEPT)


def judge_half(rows):
    """RSS after freeing every other block within 5% of the RSS after alloc."""
    a, half, _, _ = _frag(rows[0], PIN_P)
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


def judge_list_ratio(phases, k):
    """malloc against the article's arena over the phases: the claim is xk faster; holds when the
    interval lies above half the effect."""
    def judge(rows):
        m, s, a = (_list(rows, v, phases) for v in ("malloc", "single", "arena"))
        iv = V.of_ratio(m, s)
        return (f"{' + '.join(phases)}: malloc / single arena x{V.show(iv)} (1 MiB-block arena "
                f"x{V.show(V.of_ratio(m, a))}); single arena {fmt(V.of_values(s) and V.of_values(s).point, ' s', 3)}",
                V.decide(iv, lo=V.half_effect(k)))
    return judge


def judge_list_free(rows):
    """Free time, the article's arena against malloc: "~0" means under a fifth of malloc's (61 ms on
    the article's machine: information)."""
    m, s = _list(rows, "malloc", ("free",)), _list(rows, "single", ("free",))
    iv = V.of_ratio(s, m)
    mm = V.of_values(m)
    return (f"free: single arena / malloc x{V.show(iv, '', 3)}; malloc {V.show(mm, ' ms', 1, 1e3)} "
            f"(the article's 61 ms: information)", V.decide(iv, hi=0.2))


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


CLAIMS = [
    claim("frag", "000", "RSS stays at ~199 MB after everything is freed", FRAG_SETUP,
          "RSS at the end of `free-all` against `alloc` (RSS does not depend on the load: one run)", FRAG_DIFF,
          [FRAG_PIN], judge_frag),
    claim("frag/no-pin", "000", "(second row, our form) the same with nothing allocated above the blocks",
          FRAG_SETUP, "as above, without `--pin`: our RSS reader allocates nothing", FRAG_DIFF.split("; the article's")[0]
          + "; nothing above the blocks: they coalesce into the top of glibc's heap, which free() trims at once "
          "(M_TRIM_THRESHOLD)", [FRAG_NOPIN], judge_frag_nopin),
    claim("frag/half", "000", "RSS is unchanged after freeing every other block", FRAG_SETUP,
          "RSS at the end of `free-half` against `alloc`", FRAG_DIFF, [FRAG_PIN], judge_half),
    claim("frag/trim", "000", "malloc_trim(0) does little when the free space is not at the top of the heap",
          FRAG_SETUP + "; malloc_trim(0) after free-all", "RSS at the end of `trim` against `free-all`", FRAG_DIFF,
          [FRAG_PIN], judge_trim),
    claim("list/total", "000", "2 M nodes: ~8x faster in total with an arena", LIST_SETUP,
          "build + traverse + free; `single` is the article's arena, `arena` bumps 1 MiB blocks", LIST_DIFF,
          [LIST, FAULTS], guarded(judge_list_ratio(("build", "traverse", "free"), 8))),
    claim("list/alloc", "000", "2 M nodes: ~7x faster allocation with an arena", LIST_SETUP,
          "the `build` phase", LIST_DIFF, [LIST, FAULTS], guarded(judge_list_ratio(("build",), 7))),
    claim("list/free", "000", "freeing the 2 M nodes takes 61 ms with malloc, ~0 with the arena",
          LIST_SETUP + "; the free phase alone", "the `free` phase",
          LIST_DIFF + "; the arena's one free of 32 MB is a munmap here, which unmaps ~7,800 resident pages "
          "(its cost grows with the load)", [LIST, FAULTS], guarded(judge_list_free)),
] + [
    claim(f"background/{a}", "000", f"{a} gives memory back through background madvise (while the program makes "
          "no allocator call)", "not quoted", f"server, one cycle of 1 s load (mixed profile) then {IDLE_S} s with no "
          "allocator call; RSS at the end of the idle against the end of the load (one run)",
          "default settings: jemalloc's decay runs inside allocator calls unless background_thread:true "
          "(docs/MEMORY.md has the long form, with and without it); which settings the article used is not quoted",
          [SERVER], judge_idle(a)) for a in ("jemalloc", "tcmalloc")
]
