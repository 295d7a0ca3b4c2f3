"""glibc.py - article 000's claims on glibc's arenas, mmap threshold and realloc, read from glibc 2.36 through counts that do not depend on the load.

The arena claims read one run of the `arenas` workload (threads alive at once, allocating one
after another, so which arena each gets does not depend on timing): the arenas malloc_info
lists, the address space the turns reserved, RSS with every block held, and mallinfo2's bytes
in use. The mmap-threshold claims read page faults of whole runs (a 200 KiB round that goes
through mmap faults its 50 pages again; one served from the heap does not), the realloc claim
strace's count of mremap calls.
Always holds: every figure is a count of one run (arenas, KiB, faults, calls: exact intervals);
every judge can say holds and does not hold, and a missing figure gives no verdict.
"""
from heapbench.claims import profile
from heapbench.claims import verdict as V
from heapbench.claims.figures import claim, fmt, mib, ratio
from heapbench.claims.measure import Spec, pick

ARENAS_P = "--threads=64 --kib=4096 --keep=16"
ARENA_MAX = "MALLOC_ARENA_MAX=2"
ARENAS = Spec("arenas", ["glibc"], params=(ARENAS_P,), reps=1, warmup=0)
ARENAS_MAX2 = Spec("arenas", ["glibc"], params=(ARENAS_P,), envs=(ARENA_MAX,), reps=1, warmup=0)
HEAP_MIB = 64
PAGES_200K = 200 * 1024 // 4096  # the pages a 200 KiB block faults in when it is mmap'd afresh
FIXED_ENV = "MALLOC_MMAP_THRESHOLD_=131072"
FIXED_P = ("--rounds=3 --sweep-max=65536", "--rounds=1003 --sweep-max=65536")
FIXED = Spec("mmap-threshold", ["glibc"], params=FIXED_P, envs=(FIXED_ENV,), reps=1, warmup=0)
MAX_REPS = (2, 6)
MAX_P = tuple(f"--rounds=3 --sweep-max=33554432 --sweep-reps={r}" for r in MAX_REPS)
MAX = Spec("mmap-threshold", ["glibc"], params=MAX_P, reps=1, warmup=0)
PAGES_32M = 32 * 1024 * 1024 // 4096
MREMAP_STEPS = 64  # 1 MiB steps to 64 MiB: 63 reallocs of an mmap'd block (the first is a malloc)
MREMAP_P = f"--growth=plus --arrays=1 --step=1048576 --elems={MREMAP_STEPS * 1048576 // 8}"
RETURN_P = "--growth=plus --arrays=4 --step=1048576 --elems=2097152"  # 4 arrays of 4 MiB, each its own mapping
RETURN = Spec("realloc-grow", ["glibc", "mmap"], params=(RETURN_P,), reps=1, warmup=0)
TCACHE = Spec("tcache", ["glibc"], params=("--blocks=16",), reps=1, warmup=0)
INPLACE_P = {n: f"--growth=plus --step=4096 --arrays={n} --elems={n * 12000}" for n in (1, 4)}
INPLACE = Spec("realloc-grow", ["glibc"], params=tuple(INPLACE_P.values()), reps=1, warmup=0)
MALLINFO_GIB = (3, 5)
MALLINFO_P = {g: f"--gib={g}" for g in MALLINFO_GIB}
MALLINFO = Spec("mallinfo", ["glibc"], params=tuple(MALLINFO_P.values()), reps=1, warmup=0)
TCACHE0_ENV = "GLIBC_TUNABLES=glibc.malloc.tcache_count=0"
TCACHE0 = Spec("tcache", ["glibc"], params=("--blocks=16",), envs=(TCACHE0_ENV,), reps=1, warmup=0)
TCACHE_KEEPS = {24: 7, 1032: 7, 1033: 0, 2048: 0}  # request size: chunks the claim says tcache keeps of 16 freed
MREMAP = Spec("realloc-grow", ["glibc"], params=(MREMAP_P,), reps=1, warmup=0, wrap=profile.STRACE)

ARENA_SETUP = "glibc source read (malloc/arena.c), no measurement"
ARENAS_HOW = ("`arenas`: 64 threads alive at once, each in turn allocating 4 MiB in 64..1024-byte blocks and "
              "freeing all but one in 16 (one run: counts do not depend on the load)")


def _arena_fig(rows, phase, env=None):
    """The ops of one phase of the arenas cell (env: the --env of the run, None for none)."""
    where = dict(allocator="glibc", params=ARENAS_P)
    if env:
        where["env"] = env
    return pick(rows, "phases", "ops", phase=phase, **where)


def judge_cap(rows):
    """The arenas malloc_info lists with 64 threads alive equal 8 x the cores (the main one
    included); cannot be tested when 64 threads do not exceed 8 x cores."""
    arenas, cores = _arena_fig(rows[0], "arenas"), _arena_fig(rows[0], "cores")
    if arenas is None or not cores:
        return "n/a", V.untestable(V.NO_FIGURE)
    text = f"{arenas:.0f} arenas with 64 threads alive on {cores:.0f} cores (8 x cores = {8 * cores:.0f})"
    if 8 * cores >= 64:
        return text, V.untestable("64 threads do not exceed 8 x this machine's cores")
    return text, V.Verdict(V.HOLDS if arenas == 8 * cores else V.NOT_HOLD)


def judge_heap(rows):
    """Address space the turns added per non-main arena within 62..68 MiB (one 64 MiB heap each;
    the main arena's brk growth from the threads that reuse it is inside the total), and RSS under
    a quarter of it (only touched pages are resident)."""
    arenas, kib = _arena_fig(rows[0], "arenas"), _arena_fig(rows[0], "reserve")
    rss = pick(rows[0], "phases", "rss_kb", phase="fill", allocator="glibc", params=ARENAS_P)
    per = mib(kib / (arenas - 1)) if arenas and arenas > 1 and kib is not None else None
    touched = ratio(rss, kib)
    return (f"{fmt(per, ' MiB', 1)} of address space per non-main arena ({fmt(mib(kib), ' MiB', 0)} over "
            f"{fmt(arenas and arenas - 1, '', 0)}); RSS {fmt(mib(rss), ' MiB', 1)}, {fmt(touched and touched * 100, '%', 1)} "
            f"of it", V.both(V.decide(V.exact(per), lo=HEAP_MIB - 2, hi=HEAP_MIB + 4),
                             V.decide(V.exact(touched), hi=0.25)))


def judge_arena_max(rows):
    """RSS with every block held under MALLOC_ARENA_MAX=2 against the default: "lowers" is at
    least 20% less."""
    rss = {e: pick(r, "phases", "rss_kb", phase="fill", allocator="glibc", params=ARENAS_P)
           for e, r in (("default", rows[0]), ("max2", rows[1]))}
    arenas = {"default": _arena_fig(rows[0], "arenas"), "max2": _arena_fig(rows[1], "arenas", ARENA_MAX)}
    x = ratio(rss["max2"], rss["default"])
    return (f"RSS {fmt(mib(rss['max2']), ' MiB', 1)} with {ARENA_MAX} ({fmt(arenas['max2'], '', 0)} arenas) against "
            f"{fmt(mib(rss['default']), ' MiB', 1)} by default ({fmt(arenas['default'], '', 0)}): x{fmt(x)}",
            V.decide(V.exact(x), hi=0.8))


def judge_mallinfo2(rows):
    """mallinfo2's bytes in use against the bytes the threads hold (almost all in non-main arenas):
    "main arena only" holds when it reports under a quarter of them."""
    used = _arena_fig(rows[0], "mallinfo2")
    live = pick(rows[0], "phases", "live_bytes", phase="mallinfo2", allocator="glibc", params=ARENAS_P)
    x = ratio(used, live)
    return (f"mallinfo2().uordblks {fmt(mib(used and used / 1024), ' MiB', 1)} while the threads hold "
            f"{fmt(mib(live and live / 1024), ' MiB', 1)} (x{fmt(x)}; tcache's cached chunks count as in use)",
            V.decide(V.exact(x), hi=0.25, note="glibc 2.36's mallinfo2 adds up every arena: the man page's sentence does "
                     "not describe this glibc" if x is not None and x > 0.25 else ""))


def faults_per_round(rows, params, rounds, env=None):
    """(faults of the longer run - the shorter's) / the rounds between them: one run each."""
    where = dict(allocator="glibc", env=env) if env else dict(allocator="glibc")
    a, b = (pick(rows, "runs", "minflt", params=p, **where) for p in params)
    return (b - a) / rounds if a is not None and b is not None else None


def judge_fixed(rows):
    """With MALLOC_MMAP_THRESHOLD_ set to 128 KiB, a 200 KiB round keeps faulting its pages (the
    threshold no longer rises): holds at half of its 50 pages or more per round."""
    per = faults_per_round(rows[0], FIXED_P, 1000, FIXED_ENV)
    return (f"{FIXED_ENV}: {fmt(per, '', 2)} faults per 200 KiB round after the first (a block mmap'd afresh: "
            f"{PAGES_200K} pages; the default's: row mmap-threshold)", V.decide(V.exact(per), lo=PAGES_200K / 2))


def judge_max(rows):
    """After a sweep 64 KiB..16 MiB has raised the threshold, 32 MiB blocks still go through mmap
    (each round faults its 8,192 pages again): holds at half of that or more per round."""
    per = faults_per_round(rows[0], MAX_P, MAX_REPS[1] - MAX_REPS[0])
    return (f"{fmt(per, '', 0)} faults per later round of the sweep up to 32 MiB (a 32 MiB block mmap'd afresh: "
            f"{PAGES_32M:,} pages; the smaller sizes are heap-served by then)", V.decide(V.exact(per), lo=PAGES_32M / 2))


def judge_mremap(rows):
    """mremap calls (strace) against the 63 reallocs of an mmap'd block: holds when at least 9 in
    10 of them went through mremap."""
    n = profile.calls(rows[0].get("files", {}).get("strace.txt", ""), "mremap")
    if n is None:
        return "n/a (no strace output)", V.untestable("strace is not installed or the run failed")
    x = n / (MREMAP_STEPS - 1)
    return (f"{n} mremap calls for {MREMAP_STEPS - 1} reallocs of an mmap'd block (x{fmt(x)})",
            V.decide(V.exact(x), lo=0.9))


def judge_returned(alloc):
    """The share of the arrays' bytes (mmap'd blocks) that RSS gives back in the `free` phase:
    "returned at once" holds at 90% or more."""
    def judge(rows):
        grow, free = (pick(rows[0], "phases", "rss_kb", phase=p, allocator=alloc, params=RETURN_P)
                      for p in ("grow", "free"))
        held = pick(rows[0], "phases", "live_bytes", phase="grow", allocator=alloc, params=RETURN_P)
        back = ratio(grow - free, held / 1024) if None not in (grow, free, held) else None
        return (f"{alloc}: RSS {fmt(mib(grow), ' MiB', 1)} holding {fmt(mib(held and held / 1024), ' MiB', 1)} of arrays, "
                f"{fmt(mib(free), ' MiB', 1)} once they are freed ({fmt(back and back * 100, '%', 1)} of them given "
                f"back)", V.decide(V.exact(back), lo=0.9))
    return judge


RETURN_HOW = ("`realloc-grow`, 4 arrays grown in turn by 1 MiB steps to 4 MiB each (so each is a mapping of its "
              "own): RSS at the end of `grow` against the end of `free`, per byte of the arrays (one run: RSS)")


def judge_tcache(rows):
    """Of 16 freed blocks of each size, the chunks that still count as in use (tcache's): 7 up to
    1,032 bytes and none above, exactly."""
    kept = {n: pick(rows[0], "phases", "ops", phase=f"size-{n}", allocator="glibc") for n in TCACHE_KEEPS}
    if None in kept.values():
        return "n/a", V.untestable(V.NO_FIGURE)
    text = ", ".join(f"{n} B: {kept[n]:.0f}" for n in TCACHE_KEEPS)
    return (f"chunks tcache keeps of 16 freed: {text}",
            V.Verdict(V.HOLDS if all(kept[n] == k for n, k in TCACHE_KEEPS.items()) else V.NOT_HOLD))


def _hblkhd(rows, gib):
    """(mallinfo2's, mallinfo's) hblkhd in KiB of the mallinfo cell holding gib GiB."""
    return tuple(pick(rows, "phases", "ops", phase=p, allocator="glibc", params=MALLINFO_P[gib])
                 for p in ("mallinfo2", "mallinfo"))


def judge_mallinfo(rows):
    """With 5 GiB held in mmap'd blocks, mallinfo()'s int hblkhd differs from mallinfo2()'s (it
    wrapped); equal figures do not hold; a mallinfo2 under 4 GiB cannot test it (nothing counted)."""
    new, old = _hblkhd(rows[0], 5)
    new3, old3 = _hblkhd(rows[0], 3)
    if new is None or old is None:
        return "n/a", V.untestable(V.NO_FIGURE)
    text = (f"hblkhd with 5 GiB held: mallinfo2 {fmt(mib(new), ' MiB', 0)}, mallinfo {fmt(mib(old), ' MiB', 0)}; "
            f"with 3 GiB: mallinfo2 {fmt(mib(new3), ' MiB', 0)}, mallinfo's 32 bits {fmt(mib(old3), ' MiB', 0)}"
            + (" (as an int: negative, already past 2 GiB)" if old3 is not None and old3 * 1024 >= 2 ** 31 else ""))
    if new * 1024 < 4 * 2 ** 30:
        return text, V.untestable("mallinfo2 counts under 4 GiB in mmap'd blocks: the allocator keeps no glibc "
                                  "statistics of them")
    return text, V.Verdict(V.HOLDS if old != new else V.NOT_HOLD)


def _moved(rows, arrays):
    """(reallocs of a held block, those that moved it) of the in-place cell with that many arrays."""
    return tuple(pick(rows, "phases", "ops", phase=p, allocator="glibc", params=INPLACE_P[arrays])
                 for p in ("reallocs", "moves"))


def judge_inplace(rows):
    """One array grown by 4 KiB steps to 94 KiB (below the mmap threshold), alone at the top of the
    heap: in place holds when at most 1 in 10 of its reallocs moved it; four arrays grown in turn
    (each one's next chunk is mostly another array) are shown beside it."""
    n1, m1 = _moved(rows[0], 1)
    n4, m4 = _moved(rows[0], 4)
    x = ratio(m1, n1)
    return (f"one array at the top: {fmt(m1, '', 0)} of {fmt(n1, '', 0)} reallocs moved it; four arrays in turn: "
            f"{fmt(m4, '', 0)} of {fmt(n4, '', 0)}", V.decide(V.exact(x), hi=0.1))


def _probe(rows, phase, env=None):
    """The ops (1 or 0) of one probe phase of a tcache cell (env: its --env, None for none)."""
    where = dict(allocator="glibc", env=env) if env else dict(allocator="glibc")
    return pick(rows, "phases", "ops", phase=phase, **where)


def judge_safe_linking(rows):
    """The probe read the word at a freed block's start as the other freed block's address masked
    by its own address >> 12 (1), not the raw address or anything else (0)."""
    got = _probe(rows[0], "safe-linking")
    if got is None:
        return "n/a", V.untestable(V.NO_FIGURE)
    return (("the next pointer of a cached 24-byte block is stored as (its address >> 12) XOR the next "
             "block's address" if got == 1 else "the next pointer of a cached block is not stored masked"),
            V.Verdict(V.HOLDS if got == 1 else V.NOT_HOLD))


def judge_double_free(rows):
    """free(a), free(b), free(a) of 24-byte blocks aborted the child (1) by default; with the cache
    off (second cell) the fastbin's check of its head alone is shown beside it."""
    got, off = _probe(rows[0], "double-free"), _probe(rows[1], "double-free", TCACHE0_ENV)
    if got is None:
        return "n/a", V.untestable(V.NO_FIGURE)
    said = {1: "aborted (SIGABRT)", 0: "went unnoticed", None: "n/a"}
    return (f"free(a), free(b), free(a): {said[got]} with tcache; {said[off]} with {TCACHE0_ENV} (the fastbin "
            f"checks only its head)", V.Verdict(V.HOLDS if got == 1 else V.NOT_HOLD))


CLAIMS = [
    claim("arenas/cap", "000", "the arenas are capped at 8 x cores (glibc up to 2.43); article 001: 8 x cores "
          "on 64-bit (section 2.1)", ARENA_SETUP + "; arena_test 8 on 64-bit", ARENAS_HOW + "; the `arenas` "
          "phase (malloc_info's heaps) against the `cores` phase (the CPUs the process may run on)", "none: "
          "64 threads exceed 8 x 2 cores, so the cap, not the thread count, is what is counted", [ARENAS], judge_cap),
    claim("arenas/heap-64m", "000", "a non-main arena reserves its heap in 64 MiB units and only touched pages "
          "use memory", ARENA_SETUP + "; HEAP_MAX_SIZE = 2 x 32 MB = 64 MB", ARENAS_HOW + "; the `reserve` phase "
          "(address space the turns added) per non-main arena, and RSS against it", "the threads that reuse the "
          "main arena grow its brk heap inside the same total (a few MiB)", [ARENAS], judge_heap),
    claim("arenas/arena-max", "000", "MALLOC_ARENA_MAX=2 lowers a multithreaded program's RSS", "`MALLOC_ARENA_MAX=2 "
          "./myserver` (no figure given)", ARENAS_HOW + "; RSS at the end of `fill` with and without "
          f"`--env {ARENA_MAX}`; holds at x0.8 or less", "our program, not a server: each thread leaves holes "
          "between its kept blocks, which another thread fills only when it shares the arena", [ARENAS, ARENAS_MAX2],
          judge_arena_max),
    claim("arenas/mallinfo2", "000", "mallinfo2() reports the main arena only (quoting the man page)", "the man "
          "page quoted; no measurement", ARENAS_HOW + "; mallinfo2().uordblks against the bytes held; holds under "
          "x0.25", "none", [ARENAS], judge_mallinfo2),
    claim("mmap-threshold/fixed", "000", "setting M_MMAP_THRESHOLD stops its dynamic adjustment",
          "`mallopt(M_MMAP_THRESHOLD, ...)` or MALLOC_MMAP_THRESHOLD_; 200 KB blocks", "`mmap-threshold` 200 KiB "
          f"rounds with `--env {FIXED_ENV}`: runs.csv `minflt` of 3 against 1,003 rounds (counts: one run)",
          "the environment variable, not mallopt (the same parameter)", [FIXED], judge_fixed),
    claim("mmap-threshold/max", "000", "the threshold rises to 32 MB at most on 64-bit", "4*1024*1024*sizeof(long) "
          "(=32MB)", "`mmap-threshold`, a sweep 64 KiB..32 MiB after the 200 KiB rounds, with 2 and 6 rounds per "
          "size: the faults the 4 extra rounds add, per round (one run each)", "none", [MAX], judge_max),
    claim("realloc-mremap", "000", "realloc of an mmap'd chunk goes through mremap, without copying",
          "glibc source read (mremap_chunk); no measurement", "`realloc-grow`, one array grown by 1 MiB steps to "
          "64 MiB under `strace -f -c`: mremap calls per realloc of an mmap'd block (one run)", "the copy is not "
          "measured: a realloc that went through mremap moved page-table entries, not bytes", [MREMAP], judge_mremap),
    claim("tcache/count", "000", "tcache keeps 7 chunks per size (16 from glibc 2.43) for sizes up to 1,032 bytes "
          "(summary)", "glibc source and manual read; no measurement", "`tcache`: 16 blocks each of 24, 1,032, "
          "1,033 and 2,048 bytes freed between live guards; the chunks that still count as in use in mallinfo2 "
          "(one run: counts); holds at exactly 7, 7, 0, 0", "glibc 2.36 (7 per size, the article's figure up to 2.42)",
          [TCACHE], judge_tcache),
    claim("mmap-free", "000", "an mmap'd block's free returns it to the system at once (munmap; section: mmap "
          "threshold, its advantages)", "M_MMAP_THRESHOLD default 128*1024 (128KB); no measurement", RETURN_HOW,
          "RSS is read once all four arrays are freed, not after each", [RETURN], judge_returned("glibc")),
    claim("tcache/safe-linking", "000", "tcache's next pointers are masked with ASLR randomness (safe-linking; "
          "section: tcache)", "glibc 2.44's source comment read; no measurement", "`tcache`'s `safe-linking` "
          "phase: a child frees two 24-byte blocks a then b and reads the word at b's start; holds when it is "
          "(b >> 12) XOR a, the form glibc's PROTECT_PTR gives, not a itself (one run: a fact)",
          "the mask's randomness is not measured: the probe checks the form, whose shifted address is what "
          "ASLR randomises", [TCACHE], judge_safe_linking),
    claim("tcache/double-free", "000", "tcache's key field detects a double free (section: tcache)",
          "glibc 2.44's source read; no measurement", "`tcache`'s `double-free` phase: a child frees a, b, then a "
          "again (not in a row, which only the key catches); holds when it dies of SIGABRT; the same with "
          f"`--env {TCACHE0_ENV}` shown beside it", "none", [TCACHE, TCACHE0], judge_double_free),
    claim("mallinfo/overflow", "000", "mallinfo()'s int fields overflow past 4 GB (mallinfo2 came with glibc "
          "2.33; section: measuring)", "the man page read; no measurement", "`mallinfo`: 3 and 5 blocks of "
          "1 GiB held (mmap'd, never written), then mallinfo2().hblkhd against mallinfo().hblkhd (one run each: "
          "counts); holds when at 5 GiB mallinfo's figure is not mallinfo2's", "none: a signed int is already "
          "negative past 2 GiB, which the 3 GiB cell shows", [MALLINFO], judge_mallinfo),
    claim("realloc/in-place", "000", "realloc grows a block in place when the next chunk is free or the top "
          "(section: calloc and realloc)", "glibc 2.44's source read; no measurement", "`realloc-grow` +4 KiB steps "
          "to 94 KiB (under the mmap threshold): the `reallocs` and `moves` phases (reallocs of a held block and those "
          "that returned a new address; one run: counts); holds when at most 1 in 10 moved the one array, whose next "
          "chunk is always the top; four arrays in turn shown beside it", "the free-neighbour case is not isolated: "
          "among four arrays a realloc that stays in place had the top or a free chunk after it", [INPLACE],
          judge_inplace),
]
