"""a001.py - article 001's claims (16 vCPUs, an older glibc): thread scaling, page faults and mmap at 32 threads.

The article ran a malloc(32)/free loop with a fixed count per thread and timed the whole process;
our cells do the same (--size=32 --check=no --per-thread) and read runs.csv's wall_s.
Always holds: every allocator the claims name (glibc against jemalloc, tcmalloc, mimalloc) is
judged, each in its own row; the mmap share comes from `strace -f -c` run by the runner's --wrap
(n/a when strace is not installed); the latency rows are placeholders owned by issue 13.
"""
import os
import re
import shutil

from heapbench.claims.figures import at_least, claim, fmt, placeholder, ratio, wall
from heapbench.claims.measure import Spec, pick

FAST = ["jemalloc", "tcmalloc", "mimalloc"]
CHURN_P = "--mode=loop --size=32 --check=no --per-thread=1000000"
CHURN = Spec("thread-churn", ["glibc"] + FAST, threads=(1, 8, 32), params=(CHURN_P,))
STRACE = Spec("thread-churn", ["glibc"], threads=(32,), params=(CHURN_P,), reps=1, warmup=0,
              wrap="strace -f -c -o {dir}/strace.txt" if shutil.which("strace") else None)

SETUP = ("16 vCPUs; an older glibc (version not quoted); each thread a loop of malloc(32)/free, a fixed count "
         "per thread (the count is not quoted); the whole process timed")
DIFF = ("2 vCPUs cannot test a 16-vCPU contention claim: here 8 threads take 4x one thread's time even without "
        "contention; glibc 2.36 has a per-thread tcache and arenas; 1 M pairs per thread is our guess")


def judge_scaling(rows):
    """glibc wall time at 8 vs 1 thread against ideal scaling on this machine's cores: the claim
    (5x slower on 16 vCPUs, where ideal is x1) holds when 8 threads are >= 4x slower than ideal."""
    t1, t8 = (wall(rows[0], allocator="glibc", threads=t) for t in (1, 8))
    ideal = 8 / min(8, os.cpu_count() or 1)
    x = ratio(t8, t1)
    slow = ratio(x, ideal)
    return (f"glibc 1 thread {fmt(t1, ' s', 3)}, 8 threads {fmt(t8, ' s', 3)}: x{fmt(x)} against an ideal "
            f"x{fmt(ideal)} on {os.cpu_count()} cores (x{fmt(slow)} of ideal)", at_least(slow, 4.0), "")


def judge_32(alloc):
    """glibc vs one fast allocator at 32 threads: the claim is ~60 s vs ~5-7 s (x9-12); holds at >= x5."""
    def judge(rows):
        g, a = (wall(rows[0], allocator=x, threads=32) for x in ("glibc", alloc))
        x = ratio(g, a)
        return f"32 threads: glibc {fmt(g, ' s', 3)}, {alloc} {fmt(a, ' s', 3)}: x{fmt(x)}", at_least(x, 5.0), ""
    return judge


def judge_faults(rows):
    """Minor faults of the whole process at 32 vs 1 thread: the claim is x50; holds at >= x25 (glibc)."""
    def x(alloc):
        f1, f32 = (pick(rows[0], "runs", "minflt", allocator=alloc, threads=t) for t in (1, 32))
        return f1, f32, ratio(f32, f1)
    g1, g32, gx = x("glibc")
    others = ", ".join(f"{a} x{fmt(x(a)[2], '', 1)}" for a in FAST)
    return (f"glibc {fmt(g32, '', 0)} faults at 32 threads, {fmt(g1, '', 0)} at 1: x{fmt(gx, '', 1)} ({others})",
            at_least(gx, 25.0), "")


def strace_table(text):
    """{syscall: (percent, seconds, calls)} from `strace -c` output (empty when unparsable)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d.]+)\s+([\d.]+)\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m and m.group(4) != "total":
            out[m.group(4)] = (float(m.group(1)), float(m.group(2)), int(m.group(3)))
    return out


def judge_mmap(rows):
    """mmap's share of the system-call time at 32 threads (strace -c): the claim is 60%; holds at >= 30%."""
    table = strace_table(rows[0].get("files", {}).get("strace.txt", ""))
    if "mmap" not in table:
        return "n/a (no strace output: strace not installed or the run failed)", False, ""
    pct, secs, calls = table["mmap"]
    top = max(table, key=lambda k: table[k][0])
    return (f"{calls} mmap calls, {secs * 1e3:.2f} ms: {pct:.2f}% of the system-call time ({top}: "
            f"{table[top][0]:.1f}%)", pct >= 30.0, "")


CLAIMS = [
    claim("thread-churn/8", "001", "glibc: 8 threads 5x slower than 1", SETUP,
          "the whole process's wall time (runs.csv `wall_s`)", DIFF, [CHURN], judge_scaling),
] + [
    claim(f"thread-churn/32-{a}", "001", f"32 threads: glibc ~60 s vs ~5-7 s with {a}", SETUP + "; 32 threads",
          "wall time at 32 threads", DIFF, [CHURN], judge_32(a)) for a in FAST
] + [
    claim("thread-churn/faults", "001", "page faults x50 at 32 threads against 1", SETUP + "; the fault counts",
          "runs.csv `minflt` at 32 and 1 threads",
          "our count includes the process's start-up faults (~80); how the article counted is not quoted",
          [CHURN], judge_faults),
    claim("thread-churn/mmap", "001", "60% of the time in mmap at 32 threads", SETUP + "; a syscall profile",
          "mmap's share in `strace -f -c` (one table for all threads; `perf trace -s` works here too but "
          "prints one per thread)",
          "a share of system-call time; the article's tool is not quoted", [STRACE], judge_mmap),
    placeholder("latency/arena-limit", "001", "glibc's malloc latency jumps once threads exceed its arena limit"),
    placeholder("latency/bitmap-pool", "001",
                "a lock-free bitmap pool has 20x lower latency than jemalloc at 128 threads"),
    placeholder("latency/stable", "001", "jemalloc's latency is more stable"),
    placeholder("fragmentation-rates", "001",
                "fragmentation rates: ptmalloc 8%, tcmalloc 15%, jemalloc 5%, mimalloc 3%"),
]
