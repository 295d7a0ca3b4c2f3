"""a001.py - article 001's claims (16 vCPUs, an older glibc): thread scaling, faults, mmap, profiles, latency and fragmentation rates.

The article ran a malloc(32)/free loop and timed the whole process; its table (throughput x time
= 1,000,000 in every row) means 1 M operations in all, split over the threads, which is what
--ops does. Claims about 16 vCPUs' contention cannot be tested on this machine's cores and say
so, with our figures beside them as information.
Always holds: times are judged on the bootstrap interval of a ratio of interleaved reps;
system-call counts come from `strace -f -c` run by the runner's --wrap (one cell per spec, so
its table is that cell's), instruction shares from callgrind's inclusive cost (profile.py);
latency figures come from latency.csv (--latency sampled), one quantile per run.
"""
import os

from heapbench import latency
from heapbench.claims import a000, glibc, profile
from heapbench.claims import verdict as V
from heapbench.claims.figures import claim, fmt, mib, ratio, rss, run_values
from heapbench.claims.measure import Spec, per_run

FAST = ["jemalloc", "tcmalloc", "mimalloc"]
THREADS = (1, 4, 8, 16, 32)
CHURN_P = "--mode=loop --size=32 --check=no --ops=1000000"
CHURN = Spec("thread-churn", ["glibc"] + FAST, threads=THREADS, params=(CHURN_P,))
USER_P = CHURN_P.replace("--ops=1000000", "--ops=20000000")  # ~0.4 s of CPU: the clocks' ticks stay small beside it
CHURN_1 = Spec("thread-churn", ["glibc"], threads=(1,), params=(USER_P,))
STRACE_AT = {t: Spec("thread-churn", ["glibc"], threads=(t,), params=(CHURN_P,), reps=1, warmup=0, wrap=profile.STRACE)
             for t in (1, 32)}
CALLGRIND_AT = {t: Spec("thread-churn", ["glibc"], threads=(t,), params=(CHURN_P,), reps=1, warmup=0,
                        wrap=profile.CALLGRIND) for t in (8, 16)}  # the article's profiles: 8 threads (opening), 16 (3.2)
LAT_P = "--mode=loop --ops=800000"
ARENA_ENVS = ("MALLOC_ARENA_MAX=1", "MALLOC_ARENA_MAX=8")
LAT_ARENA = Spec("thread-churn", ["glibc"], threads=(8,), params=(LAT_P,), envs=ARENA_ENVS,
                 extra=("--latency", latency.SAMPLED))
CORES = os.cpu_count() or 1
LAT_STABLE = Spec("thread-churn", ["glibc"] + FAST, threads=(CORES,), params=(LAT_P,),
                  extra=("--latency", latency.SAMPLED))  # no thread count quoted: the core count (the 2-core rule)
POOL_P = {"bitmap": "--alloc=bitmap --ops=600000", "malloc": "--alloc=malloc --ops=600000"}
BITMAP = Spec("bitmap-pool", ["glibc", "jemalloc"], threads=(128,), params=tuple(POOL_P.values()),
              extra=("--latency", latency.SAMPLED))
RATE_P = {"base": "--mode=batch --size=1024 --batch=1 --ops=1",
          "peak": "--mode=batch --size=1024 --batch=16384 --ops=65536"}
RATE_LIVE_KB = 16384  # the batch: 16,384 x 1 KiB held at its end
RATES = {"glibc": 8, "tcmalloc": 15, "jemalloc": 5, "mimalloc": 3}
FRAG_RATE = Spec("thread-churn", list(RATES), threads=(1,), params=tuple(RATE_P.values()))
ARENA_LIMIT = 8 * CORES  # glibc 2.36's default arena cap on 64-bit

SETUP = ("AWS c5.4xlarge, 16 vCPUs (section 3.1); an older glibc (version not quoted); each thread a loop of "
         "malloc(32)/free, 1 M operations in all split over the threads (throughput x time = 1,000,000 in every "
         "row of its table); the whole process timed with `time`")
OPENING_SETUP = ("the opening (section 1): a Linux server (not described), the same amount of allocation on 8 "
                 "threads and on 1, hot spots found with perf; its program is taken to be section 3.1's: " + SETUP)
FIG_32 = {"jemalloc": 6.8, "tcmalloc": 7.2, "mimalloc": 5.4}  # section 4.2's table; ptmalloc 59.7 s
DIFF = (f"{CORES} vCPUs, not 16: above {CORES} threads ours take turns on the cores; glibc 2.36 has a per-thread "
        "tcache and arenas")
LAT_SETUP = {
    "arena-limit": "section 2.1: on its 16-core test machine malloc's latency soars once the threads exceed 16 (the "
                   "default arena limit reached); no figure, sizes, quantile or tool given",
    "bitmap-pool": "section 8: its bitmap pool (64-byte blocks in a 1 MiB pool, a CAS on 64-bit words; code given) "
                   "against jemalloc in a 128-thread test; machine, quantile and tool not given",
    "stable": "section 4.1: jemalloc's measured latency is more stable (no figure, thread count or tool given)",
}
LAT_DIFF = (f"{CORES} vCPUs: every case above {CORES} threads oversubscribes the cores, so a thread holding a lock "
            "or a CAS'd word can be preempted for a whole time slice; the figures include the clock's cost "
            "(~18 ns), corrected for its step (docs/DATA.md)")


def contention(threads, verdict):
    """The one rule for claims about threads contending at once (CLAIMS.md, "what 2 cores can show"):
    at most CORES threads run at a time here, so a claim whose effect is `threads` threads contending
    at once (lock waits, slowdown with threads, arenas made by contention and their faults and mmap
    calls, latency under contention) cannot be tested above CORES threads: ours take turns in time
    slices, and what is measured is the scheduler. Returns verdict (a judge's decision) at or below
    CORES threads, else "cannot be tested here" with the reason; the figures stay as information."""
    if threads <= CORES:
        return verdict
    return V.untestable(f"{threads} threads contending at once; {CORES} cores run {CORES} at a time, so the "
                        f"others wait for a time slice, not for the allocator")


def _wall(rows, alloc, threads):
    """Whole-process wall seconds per run of one cell."""
    return run_values(rows[0], "wall_s", allocator=alloc, threads=threads)


def judge_scaling(rows):
    """glibc at 8 threads against 1: x5 slower; holds above half of it (the 2-core rule first)."""
    iv = V.of_ratio(_wall(rows, "glibc", 8), _wall(rows, "glibc", 1))
    return (f"glibc 8 threads / 1: x{V.show(iv)} (ideal on {CORES} cores: x1, the same work split)",
            contention(8, V.decide(iv, lo=V.half_effect(5))))


def judge_table(rows):
    """The article's 1/4/16/32-thread rows: our glibc times beside them, as information."""
    times = ", ".join(f"{t}: {V.show(V.of_values(_wall(rows, 'glibc', t)), ' s', 3)}" for t in THREADS)
    return (f"glibc wall time by threads ({times})",
            contention(max(THREADS), V.untestable("the table's absolute times are its machine's")))


def judge_32(alloc):
    """glibc against one fast allocator at 32 threads: 59.7 s against the allocator's FIG_32 (x8.3
    tcmalloc, x8.8 jemalloc, x11.1 mimalloc); holds above half of that effect."""
    def judge(rows):
        iv = V.of_ratio(_wall(rows, "glibc", 32), _wall(rows, alloc, 32))
        return (f"32 threads: glibc / {alloc} x{V.show(iv)}",
                contention(32, V.decide(iv, lo=V.half_effect(59.7 / FIG_32[alloc]))))
    return judge


def judge_faults(rows):
    """Minor faults of the whole process at 32 against 1 thread: x50; holds above half of it (glibc)."""
    def iv(alloc):
        return V.of_ratio(*(run_values(rows[0], "minflt", allocator=alloc, threads=t) for t in (32, 1)))
    others = ", ".join(f"{a} x{V.show(iv(a), '', 1)}" for a in FAST)
    return (f"glibc x{V.show(iv('glibc'), '', 1)} ({others})",
            contention(32, V.decide(iv("glibc"), lo=V.half_effect(50))))


def _strace(rows):
    """The strace -c text of a single-cell spec ('' when none)."""
    return rows.get("files", {}).get("strace.txt", "")


def judge_mmap_share(rows):
    """mmap's share of the system-call time at 32 threads (strace -c): 60%; holds above 30%."""
    table = profile.strace_table(_strace(rows[0]))
    if "mmap" not in table:
        return "n/a (no strace output)", V.untestable("strace is not installed or the run failed")
    pct, secs, calls = table["mmap"]
    top = max(table, key=lambda k: table[k][0])
    return (f"{calls} mmap calls, {secs * 1e3:.2f} ms: {pct:.2f}% of the system-call time ({top}: "
            f"{table[top][0]:.1f}%)", contention(32, V.decide(V.exact(pct / 100), lo=0.3)))


def judge_mmap_calls(rows):
    """mmap calls at 32 threads against 1 (strace -c counts): x10; holds above half of it."""
    one, many = (profile.calls(_strace(r), "mmap") for r in rows)
    x = many / one if one and many is not None else None
    return (f"mmap calls: {fmt(many, '', 0)} at 32 threads, {fmt(one, '', 0)} at 1: x{fmt(x)} (the 32-thread count "
            f"depends on how many arenas the run's timing makes)",
            contention(32, V.decide(V.exact(x), lo=V.half_effect(10))))


def judge_profile(functions, claimed, threads):
    """A share of one run's instructions inside functions (callgrind, inclusive), at the article's
    thread count: the article's share is of time spent by threads waiting for each other, which
    callgrind (one thread at a time) cannot show at any thread count; ours is information."""
    def judge(rows):
        s = profile.share(_callgrind(rows[0]), functions)
        return (f"{fmt(s and s * 100, '%', 1)} of the instructions in {' + '.join(functions)} (the article: "
                f"{claimed}% of the time)", contention(threads, V.untestable(
                    "callgrind runs one thread at a time, so no call ever waits for the lock")))
    return judge


def _callgrind(rows):
    """The callgrind inclusive listing of a single-cell spec ('' when none)."""
    return rows.get("files", {}).get("callgrind.out", "")


def _quantile(rows, q, **where):
    """One latency quantile (ns) of malloc in the churn phase, one value per run."""
    return [v for _, v in per_run(rows, "latency", q, phase="churn", op="malloc", **where)]


def judge_arena_limit(rows):
    """The claim is threads beyond glibc's default arena cap (8 x cores): more than ARENA_LIMIT threads
    at once, which the 2-core rule says cannot be tested here. Shown: the forced form (8 threads with
    MALLOC_ARENA_MAX=1 against 8), whose jump holds by construction."""
    lim, free = (_quantile(rows[0], "p99", env=e) for e in ARENA_ENVS)
    iv = V.of_ratio(lim, free)
    return (f"malloc p99, 8 threads: 1 arena {V.show(V.of_values(lim), ' ns', 0)}, 8 arenas "
            f"{V.show(V.of_values(free), ' ns', 0)}: x{V.show(iv)} (the limit forced: information)",
            contention(ARENA_LIMIT + 1, V.decide(iv, lo=1.25)))


def judge_bitmap(rows):
    """p99.9 of jemalloc's malloc(64) against the pool's get at 128 threads: x20 lower; holds above
    half of it."""
    pool = _quantile(rows[0], "p99.9", allocator="glibc", params=POOL_P["bitmap"])
    je = _quantile(rows[0], "p99.9", allocator="jemalloc", params=POOL_P["malloc"])
    iv = V.of_ratio(je, pool)
    p50 = V.of_ratio(_quantile(rows[0], "p50", allocator="jemalloc", params=POOL_P["malloc"]),
                     _quantile(rows[0], "p50", allocator="glibc", params=POOL_P["bitmap"]))
    return (f"128 threads, p99.9: jemalloc malloc(64) {V.show(V.of_values(je), ' ns', 0)}, pool get "
            f"{V.show(V.of_values(pool), ' ns', 0)}: x{V.show(iv)} (p50: x{V.show(p50)})",
            contention(128, V.decide(iv, lo=V.half_effect(20))))


def _spread(rows, alloc):
    """malloc's p99.9 / p50 per run of one allocator."""
    hi = dict(per_run(rows, "latency", "p99.9", phase="churn", op="malloc", allocator=alloc))
    lo = dict(per_run(rows, "latency", "p50", phase="churn", op="malloc", allocator=alloc))
    return [hi[r] / lo[r] for r in hi if lo.get(r)]


def judge_stable(rows):
    """jemalloc's malloc p99.9 / p50 against glibc's (at the core count: the article gives none): more
    stable when glibc's spread over jemalloc's lies above x1."""
    spread = {a: _spread(rows[0], a) for a in ["glibc"] + FAST}
    iv = V.of_ratio(spread["glibc"], spread["jemalloc"])
    return (f"malloc p99.9 / p50, {CORES} threads: " + ", ".join(f"{a} {V.show(V.of_values(s), '', 1)}"
                                                          for a, s in spread.items())
            + f"; glibc / jemalloc x{V.show(iv)}", V.decide(iv, lo=1.0))


def _rates(rows):
    """{allocator: [F per run]}, F = (peak RSS - base RSS - live) / (peak RSS - base RSS)."""
    out = {}
    for a in RATES:
        base = V.of_values(run_values(rows, "maxrss_kb", allocator=a, params=RATE_P["base"]))
        peaks = run_values(rows, "maxrss_kb", allocator=a, params=RATE_P["peak"])
        out[a] = [(p - base.point - RATE_LIVE_KB) / (p - base.point) for p in peaks if base and p > base.point]
    return out


def judge_rates(rows):
    """The article's ordering of the rates (mimalloc 3% < jemalloc 5% < ptmalloc 8% < tcmalloc 15%):
    each neighbouring pair decided by its two intervals (apart one way or the other, or overlapping)."""
    rates = {a: V.of_values(f) for a, f in _rates(rows[0]).items()}
    order = sorted(RATES, key=RATES.get)
    parts = []
    for a, b in zip(order, order[1:]):
        if rates[a] is None or rates[b] is None:
            parts.append(V.untestable(V.NO_FIGURE))
        else:
            gap = V.Interval(rates[b].point - rates[a].point, rates[b].lo - rates[a].hi, rates[b].hi - rates[a].lo,
                             min(rates[a].reps, rates[b].reps))
            parts.append(V.decide(gap, lo=0.0))
    return (", ".join(f"{a} {V.show(rates[a], '%', 1, 100)} (article {RATES[a]}%)" for a in order),
            V.both(*parts))


FOOTPRINT = Spec("tcache", ["glibc", "jemalloc"], params=("--blocks=16",), reps=1, warmup=0)


def judge_footprint(rows):
    """RSS after a program's first few small mallocs (the tcache cell's first phase), jemalloc's
    against glibc's: "larger" holds at x1.25 or more."""
    kb = {a: rss(rows[0], "size-24", allocator=a) for a in ("glibc", "jemalloc")}
    x = ratio(kb["jemalloc"], kb["glibc"])
    return (f"RSS after 32 small mallocs: jemalloc {fmt(mib(kb['jemalloc']), ' MiB', 2)}, glibc "
            f"{fmt(mib(kb['glibc']), ' MiB', 2)} (x{fmt(x)})", V.decide(V.exact(x), lo=1.25))


def judge_user_share(rows):
    """At 1 thread, user time over user + system time of the whole process (runs.csv, CPU times:
    the scheduler's load does not enter them): the article's 90% holds at 80% or more."""
    where = dict(allocator="glibc", threads=1, params=USER_P)
    user, sys_ = run_values(rows[0], "user_s", **where), run_values(rows[0], "sys_s", **where)
    iv = V.of_values([u / (u + k) for u, k in zip(user, sys_) if u + k > 0])
    return f"user share at 1 thread {V.show(iv, '%', 1, 100)}", V.decide(iv, lo=0.8)


def judge_batch(rows):
    """One block carved for every node against one malloc per node, in user-space instructions of
    the list's build: "faster" holds at x1.5 or more."""
    m, s = a000.list_instr(rows, ("build",))
    x = ratio(m, s)
    return (f"build: user-space instructions malloc per node / one block x{fmt(x)}", V.decide(V.exact(x), lo=1.5))


CLAIMS = [
    claim("thread-churn/8", "001", "glibc: 8 threads nearly 5x slower than 1 (section 1, the opening)", OPENING_SETUP,
          "the whole process's wall time (runs.csv `wall_s`)", DIFF, [CHURN], judge_scaling),
    claim("thread-churn/table", "001", "the table's 1, 4, 16 and 32-thread rows (glibc's time growing with the "
          "threads)", SETUP, "wall time at 1, 4, 8, 16, 32 threads", DIFF, [CHURN], judge_table),
] + [
    claim(f"thread-churn/32-{a}", "001", f"32 threads: glibc (ptmalloc) 59.7 s vs {a} {FIG_32[a]} s (section 4.2's "
          "table)", SETUP + "; 32 threads",
          "wall time at 32 threads", DIFF, [CHURN], judge_32(a)) for a in FAST
] + [
    claim("thread-churn/faults", "001", "page faults rise x50 at 32 threads (section 7; against what is not said: "
          "ours against 1 thread)", SETUP + "; the fault counts",
          "runs.csv `minflt` at 32 and 1 threads",
          DIFF + "; our count includes the process's start-up faults (~80); how the article counted is not quoted",
          [CHURN], judge_faults),
    claim("thread-churn/mmap", "001", "60% of the time in the mmap system call at 32 threads (section 3.2)",
          SETUP + "; perf record -g", "mmap's share in `strace -f -c` (one table for all threads)",
          DIFF + "; a share of system-call time, which strace's own overhead inflates, where the article's perf "
          "samples weigh all the process's time", [STRACE_AT[32]], judge_mmap_share),
    claim("thread-churn/mmap-calls", "001", "under high concurrency mmap is called more than 10x as often (section "
          "3.2, strace -f; no thread count given: ours 32 against 1)", SETUP + "; mmap calls counted with strace -f",
          "mmap calls in `strace -f -c` at 32 and at 1 thread (counts: one run each)",
          DIFF + "; our counts include the loader's and the thread stacks' mmaps", [STRACE_AT[1], STRACE_AT[32]],
          judge_mmap_calls),
    claim("thread-churn/lock-wait", "001", "75% of the time in __lll_lock_wait at 16 threads (section 3.2)",
          SETUP + "; perf record -g", "callgrind's inclusive cost of `__lll_lock_wait`, 16 threads", DIFF,
          [CALLGRIND_AT[16]], judge_profile(["__lll_lock_wait"], 75, 16)),
    claim("thread-churn/libc-malloc", "001", "90% of the time in __libc_malloc at 8 threads (section 1, the opening)",
          OPENING_SETUP, "callgrind's inclusive cost of `malloc` (glibc's __libc_malloc), 8 threads", DIFF,
          [CALLGRIND_AT[8]], judge_profile(["malloc"], 90, 8)),
    claim("latency/arena-limit", "001", "glibc's malloc latency jumps once threads exceed its arena limit",
          LAT_SETUP["arena-limit"], "thread-churn, 8 threads, sizes 16 B-4 KiB (above glibc's tcache, so calls take the arena "
          "lock); malloc p99 from latency.csv with MALLOC_ARENA_MAX=1 against 8", LAT_DIFF, [LAT_ARENA],
          judge_arena_limit),
    claim("latency/bitmap-pool", "001", "a lock-free bitmap pool has 20x lower latency than jemalloc at 128 threads",
          LAT_SETUP["bitmap-pool"], "bitmap-pool, 128 threads: the pool's get against jemalloc's malloc(64), p99.9 from latency.csv",
          LAT_DIFF + "; 2 cores cannot make 128 threads contend on one word the way 128 cores do; which quantile "
          "the article compared is not quoted (p99.9 judged, p50 shown)", [BITMAP], judge_bitmap),
    claim("latency/stable", "001", "jemalloc's latency is more stable (section 4.1)", LAT_SETUP["stable"],
          f"thread-churn, {CORES} threads (the core count: the article gives no thread count): malloc's p99.9 / p50 "
          "from latency.csv, glibc's against jemalloc's",
          LAT_DIFF + "; what \"stable\" measured is not quoted (our spread: p99.9 / p50)", [LAT_STABLE], judge_stable),
    claim("fragmentation-rates", "001", "fragmentation rates: ptmalloc 8%, tcmalloc 15%, jemalloc 5%, mimalloc 3%",
          "the 32-thread malloc(32)/free program (table 4.2: \"the same test program\"); rate = (mapped - "
          "allocated) / mapped from jemalloc's stats.arenas.0 (section 6.2)", "thread-churn batch of 16,384 x 1 KiB "
          "at 1 thread (live exact): F = (peak RSS - base RSS - live) / (peak RSS - base RSS), peak RSS from "
          "runs.csv `maxrss_kb`, base = the same program holding one block", "not the article's program: in it "
          "each thread holds at most one 32-byte block, so (mapped - allocated) / mapped is near 100% under any "
          "allocator, and its 3-15% cannot come from that program; ours holds a known live set so that the rate "
          "means something; the article's mapped and allocated are one allocator's own counters (jemalloc's), "
          "ours are the process's resident bytes, the same for every allocator; the ordering is judged, not the "
          "percentages", [FRAG_RATE], judge_rates),
    claim("arenas/count", "001", "64-bit: arenas = 8 x CPU cores (section 2.1)", "glibc's default (no measurement)",
          glibc.ARENAS_HOW + "; malloc_info's heaps against the cores, as arenas/cap (article 000)", "none: 64 "
          "threads exceed 8 x 2 cores", [glibc.ARENAS], glibc.judge_cap),
    claim("jemalloc-footprint", "001", "jemalloc's initial memory footprint is larger (section 4.1)", "no figure given",
          "the `tcache` workload's first phase (32 blocks of 24 bytes malloc'd, 16 freed): RSS under jemalloc against "
          "glibc (one run: RSS)", "our program; what the article measured is not quoted", [FOOTPRINT], judge_footprint),
    claim("batch", "001", "one malloc(32000) carved into 1,000 x 32 bytes is faster than 1,000 malloc(32) (section "
          "4.3)", "1,000 x malloc(32) against one malloc(32000); no figure given", "the list's `build` phase, "
          "2,000,000 nodes: one malloc per node against one block of all nodes (`--alloc=single`), in user-space "
          "instructions (callgrind; the cells of list/alloc)", "16-byte nodes linked into a list, not 32-byte "
          "blocks in an array; 2 M of them, not 1,000: at 1,000 the program's start-up (~0.2 M instructions, in "
          "the first phase's count) would outweigh the 1,000 mallocs", a000.LIST_SPECS, judge_batch),
    claim("user-share", "001", "at 1 thread, 90% of the time is in user space (section 3.2)", SETUP + "; perf "
          "record -g", "runs.csv `user_s` / (`user_s` + `sys_s`) at 1 thread, 20 M operations (~0.4 s of CPU: "
          "at the table's 1 M the process's CPU times are a few clock ticks); holds at 80% or more", DIFF + "; CPU times from getrusage, not perf samples", [CHURN_1], judge_user_share),
]
