"""insn_ratio.py (reference_alloc/bench/insn-ratio) - refmalloc's instruction count against
glibc's, counted by valgrind's callgrind (independent of machine load), on the small
malloc/free loop of glibc's bench-malloc-simple (bench/small_loop.c); with --benchtests, on
glibc's own benchtests bench-malloc-simple (every block size glibc's benchtests Makefile runs)
and bench-malloc-thread (1, 8, 16 and 32 threads, as that Makefile), built from Debian's
glibc-source tarball with reduced iteration counts; with --list, on every workload cell of
workloads/LIST at its quick size with at most --max-threads threads (default 8; a workload
that cannot run under valgrind gets a row saying why). Prints a Markdown table.

Usage: reference_alloc/bench/insn-ratio [--iters N] [--benchtests] [--list] [--max-threads N]
       [--only NAME,...]   (env RM_LIB: the refmalloc library to preload instead of build/lib's)
Always holds: each case runs the same binary and arguments twice, without and with
LD_PRELOAD=build/lib/librefmalloc.so (or RM_LIB); a preloaded run that did not load refmalloc (no
REFMALLOC_REPORT line on stderr) or any run that fails stops the script with exit 1 (no silent
substitution); the ratio is refmalloc's whole-process instructions over glibc's. The project
must be built (make). Nothing of glibc is kept: the benchtests are extracted into a temporary
directory, with bench/shim/hp-timing.h standing in for glibc's internal timing header.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from heapbench import cli, worklist

# RM_LIB=PATH measures another build of refmalloc (an older commit's, for a "before" column).
LIB = os.environ.get("RM_LIB") or os.path.join(ROOT, "build", "lib", "librefmalloc.so")


def instructions(argv, tmp, preload):
    """Whole-process instruction count of argv under callgrind; exits 1 on a failed run."""
    out = os.path.join(tmp, "cg.out")
    env = dict(os.environ)
    env.pop("HEAPBENCH_PHASE_FD", None)
    if preload:
        env.update(LD_PRELOAD=LIB, REFMALLOC_REPORT="1")
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv,
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"insn-ratio: {' '.join(argv)} failed (exit {proc.returncode}"
                 f"{', refmalloc' if preload else ''}): {proc.stderr.strip()[-400:]}")
    if preload and "refmalloc: glibc.malloc.arena_max=" not in proc.stderr:
        sys.exit(f"insn-ratio: refmalloc was not loaded for {' '.join(argv)}; run make first")
    with open(out) as f:
        m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
    if not m:
        sys.exit(f"insn-ratio: no instruction total in callgrind's output for {' '.join(argv)}")
    return int(m.group(1))


# glibc's benchtests as glibc's benchtests/Makefile runs them (bench-malloc target), with the
# iteration counts cut so that both allocators under callgrind take minutes, not hours.
BENCH_SIMPLE_SIZES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
BENCH_SIMPLE_ITERS = 20000      # glibc's NUM_ITERS is 200,000
BENCH_THREADS = (1, 8, 16, 32)
BENCH_THREAD_ITERS = 20000      # per thread; glibc's runs as many as 10 seconds allow


# LIST workloads that cannot run under valgrind, with the reason printed in their row.
NOT_UNDER_VALGRIND = {
    "os-costs": "not measurable: it moves the break by 1 GiB, beyond valgrind's brk segment",
}


def edited(text, old, new, path):
    """text with old replaced by new once; exits 1 when old is not there exactly once."""
    if text.count(old) != 1:
        sys.exit(f"insn-ratio: {path} no longer contains '{old}' once; adapt the edit in "
                 f"reference_alloc/bench/insn_ratio.py to this glibc version")
    return text.replace(old, new)


def build_benchtests(tmp):
    """Builds glibc's bench-malloc-simple and bench-malloc-thread from the tarball of the running
    glibc (Debian's glibc-source package) in tmp; returns their paths."""
    version = os.confstr("CS_GNU_LIBC_VERSION").split()[-1]
    tarball = f"/usr/src/glibc/glibc-{version}.tar.xz"
    if not os.access(tarball, os.R_OK):
        sys.exit(f"insn-ratio: {tarball} not found; install Debian's glibc-source package (make deps)")
    top = f"glibc-{version}/benchtests"
    subprocess.run(["tar", "-xJf", tarball, "-C", tmp, "--strip-components=2",
                    f"{top}/bench-malloc-simple.c", f"{top}/bench-malloc-thread.c",
                    f"{top}/bench-timing.h", f"{top}/json-lib.c", f"{top}/json-lib.h"], check=True)
    edits = {
        "bench-malloc-simple": [("#define NUM_ITERS 200000", f"#define NUM_ITERS {BENCH_SIMPLE_ITERS}")],
        # a fixed count per thread instead of a 10 s alarm (callgrind runs ~50x slower)
        "bench-malloc-thread": [("while (!timeout)", f"while (!timeout && iters < {BENCH_THREAD_ITERS})"),
                                ("#define BENCHMARK_DURATION\t10", "#define BENCHMARK_DURATION\t100000")],
    }
    shim = os.path.join(ROOT, "reference_alloc", "bench", "shim")
    progs = []
    for name, changes in edits.items():
        src = os.path.join(tmp, name + ".c")
        with open(src) as f:
            text = f.read()
        for old, new in changes:
            text = edited(text, old, new, src)
        with open(src, "w") as f:
            f.write(text)
        prog = os.path.join(tmp, name)
        subprocess.run(["cc", "-O2", "-w", "-D_GNU_SOURCE", f"-I{shim}", f"-I{tmp}", "-o", prog, src,
                        os.path.join(tmp, "json-lib.c"), "-lm", "-pthread"], check=True)
        progs.append(prog)
    return progs


def cases(tmp, iters, opts, only):
    """(label, argv) of every case: the small loop, glibc's benchtests, then LIST's quick cells."""
    prog = os.path.join(tmp, "small_loop")
    src = os.path.join(ROOT, "reference_alloc", "bench", "small_loop.c")
    subprocess.run(["cc", "-O2", "-o", prog, src], check=True)
    if not only or "small-loop" in only:
        yield f"small malloc/free loop, 16-271 B, 64 slots, {iters} iterations", [prog, str(iters)]
    if opts["benchtests"] and (not only or only & {"bench-malloc-simple", "bench-malloc-thread"}):
        simple, thread = build_benchtests(tmp)
        if not only or "bench-malloc-simple" in only:
            for size in BENCH_SIMPLE_SIZES:
                yield (f"glibc bench-malloc-simple {size} ({BENCH_SIMPLE_ITERS} iterations)",
                       [simple, str(size)])
        if not only or "bench-malloc-thread" in only:
            for n in BENCH_THREADS:
                yield (f"glibc bench-malloc-thread {n} ({BENCH_THREAD_ITERS} iterations per thread)",
                       [thread, str(n)])
    if opts["list"]:
        for name, argv in worklist.cells(worklist.read_list(ROOT), True, ROOT):
            threads = [int(a.split("=", 1)[1]) for a in argv if a.startswith("--threads=")]
            if (not only or name in only) and (not threads or threads[0] <= opts["max_threads"]):
                args = " ".join(a for a in argv[1:] if a != "--quick")
                yield f"{name} {args} (quick)", None if name in NOT_UNDER_VALGRIND else argv


def parse(args):
    """The options (usage errors: one line, exit 2; --help: the usage, exit 0)."""
    p = cli.ArgParser(prog="insn-ratio", description=__doc__.split("\n\n")[0])
    p.add_argument("--iters", type=int, default=200000, help="iterations of the small loop (default 200000)")
    p.add_argument("--benchtests", action="store_true", help="also glibc's benchtests bench-malloc-simple and -thread")
    p.add_argument("--list", action="store_true", help="also every workload cell of workloads/LIST at its quick size")
    p.add_argument("--max-threads", type=int, default=8, help="with --list: cells of at most N threads (default 8)")
    p.add_argument("--only", default="", help="comma-separated case names (workload names, small-loop, "
                   "bench-malloc-simple, bench-malloc-thread)")
    return p.parse_args(args)


def main(args):
    """Runs every case without and with refmalloc and prints the table."""
    a = parse(args)
    iters, only = a.iters, set(filter(None, a.only.split(",")))
    opts = {"list": a.list, "benchtests": a.benchtests, "max_threads": a.max_threads}
    print("| case | glibc instructions | refmalloc instructions | ratio |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in cases(tmp, iters, opts, only):
            if argv is None:
                print(f"| {label} | - | - | {NOT_UNDER_VALGRIND[label.split()[0]]} |", flush=True)
                continue
            g = instructions(argv, tmp, preload=False)
            r = instructions(argv, tmp, preload=True)
            print(f"| {label} | {g:,} | {r:,} | {r / g:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
