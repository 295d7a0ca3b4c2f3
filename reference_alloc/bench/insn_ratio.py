"""insn_ratio.py (reference_alloc/bench/insn-ratio) - refmalloc's instruction count against
glibc's, counted by valgrind's callgrind (independent of machine load), on the small
malloc/free loop of glibc's bench-malloc-simple (bench/small_loop.c) and, with --list, on every
workload cell of workloads/LIST at its quick size. Prints a Markdown table.

Usage: reference_alloc/bench/insn-ratio [--iters N] [--list] [--only NAME,...]
Always holds: each case runs the same binary and arguments twice, without and with
LD_PRELOAD=build/lib/librefmalloc.so; a preloaded run that did not load refmalloc (no
REFMALLOC_REPORT line on stderr) or any run that fails stops the script with exit 1 (no silent
substitution); the ratio is refmalloc's whole-process instructions over glibc's. The project
must be built (make).
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "workloads"))
from heapbench import worklist  # noqa: E402
from list_time import cells  # noqa: E402  (the runner's cells, as workloads/list-time runs them)

LIB = os.path.join(ROOT, "build", "lib", "librefmalloc.so")


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


def cases(tmp, iters, with_list, only):
    """(label, argv) of every case: the small loop first, then LIST's quick cells."""
    prog = os.path.join(tmp, "small_loop")
    src = os.path.join(ROOT, "reference_alloc", "bench", "small_loop.c")
    subprocess.run(["cc", "-O2", "-o", prog, src], check=True)
    if not only or "small-loop" in only:
        yield f"small malloc/free loop, 16-271 B, 64 slots, {iters} iterations", [prog, str(iters)]
    if with_list:
        for name, argv in cells(worklist.read_list(ROOT), quick=True):
            if not only or name in only:
                args = " ".join(a for a in argv[1:] if a != "--quick")
                yield f"{name} {args} (quick)", argv


def main(args):
    """Runs every case without and with refmalloc and prints the table."""
    iters, only = 200000, set()
    try:
        if "--iters" in args:
            iters = int(args[args.index("--iters") + 1])
        if "--only" in args:
            only = set(args[args.index("--only") + 1].split(","))
    except (IndexError, ValueError):
        print("insn-ratio: --iters takes a count, --only a comma-separated list of workload names "
              "(or small-loop); see the usage line in reference_alloc/bench/insn_ratio.py", file=sys.stderr)
        return 2
    print("| case | glibc instructions | refmalloc instructions | ratio |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in cases(tmp, iters, "--list" in args, only):
            g = instructions(argv, tmp, preload=False)
            r = instructions(argv, tmp, preload=True)
            print(f"| {label} | {g:,} | {r:,} | {r / g:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
