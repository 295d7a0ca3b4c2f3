"""launch.py - how every `heapbench ci` mode starts the runner: `heapbench run` or `exec` into one directory.

Always holds: the runner is build/heapbench (or $HEAPBENCH_BIN), started without the shard
variables (a gate measures all of its own matrix), its progress on stderr; a runner that cannot
start, exits 2 (usage) or leaves no runs.csv is one line and exit 2 from the gate (exit 1 of the
runner, a failed cell, is data: the comparison judges it); a runner still running at its caller's
deadline is interrupted with SIGINT and its finished rows are kept. Runners started together (a duet) each
run on their own CPUs, and all of them have ended before the gate goes on or stops. The pass-through options keep run's
spelling (cli.VOCABULARY).
"""
import os
import signal
import subprocess
import sys
import time

from heapbench import cli, judged
from heapbench import results

RUN_SHORT = {short: concept for concept, (short, _, _) in cli.VOCABULARY.items()}  # '-w' -> 'workloads'
# Passed to every run of every batch of a gate.
BOTH_BATCHES = ("--allocator", "--workload-bin", "--pin", "--timeout", "--priority")


def passed(args, names):
    """The run options named in names, as argv words, from the parsed ci options."""
    words = []
    for name in names:
        for value in getattr(args, RUN_SHORT.get(name) or name.lstrip("-").replace("-", "_")):
            words += [name, value]
    return words


def measure_words(args):
    """The measurement options of ci passed to every run: --count-instructions, --latency."""
    words = ["--count-instructions"] if args.count_instructions else []
    return words + (["--latency", args.latency] if args.latency else [])


def raise_priority(prog, args):
    """--priority nice|rt: raises this process (the gate: its looks and the runners' starts) to nice
    -20, reset on fork (the runners it starts raise themselves), trying the level first, which checks
    that it is permitted here; one line and exit 2 when not, before anything is measured."""
    level = (args.priority or ["normal"])[-1]
    if level == "normal":
        return
    try:
        if level == "rt":  # what each runner will ask for itself: tried, then left
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        os.sched_setscheduler(0, os.SCHED_OTHER | os.SCHED_RESET_ON_FORK, os.sched_param(0))
        os.setpriority(os.PRIO_PROCESS, 0, -20)
    except PermissionError:
        cli.usage_exit(prog, f"--priority {level} is not permitted here (it needs root or CAP_SYS_NICE); run as "
                             "root, or give --priority normal")


def _start(prog, words, out_dir, cpus=None):
    """Starts `heapbench WORDS` (WORDS holds -o out_dir), on the CPUs cpus (it and every process it
    starts) when given; exits 2 if it could not start."""
    binary = cli.binary()
    cmd = [binary] + words
    os.makedirs(os.path.dirname(out_dir), exist_ok=True)  # the runner creates out_dir, not its parent
    print("ci: " + " ".join(cmd), file=sys.stderr, flush=True)
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    try:
        return subprocess.Popen(cmd, stdout=sys.stderr, env=cli.run_env(), preexec_fn=pin)
    except OSError as err:
        cli.usage_exit(prog, f"cannot run {binary} ({err}); build it with 'make'")


def _check(prog, status, words, out_dir):
    """Exits 2 when a finished runner exited 2 (usage) or left no runs.csv."""
    if status == 2 or not os.path.exists(os.path.join(out_dir, "runs.csv")):
        cli.usage_exit(prog, f"'heapbench {words[0]}' failed (exit {status}); see its message above")


def runner(prog, words, out_dir, deadline=None):
    """Runs `heapbench WORDS` (WORDS holds -o out_dir); exits 2 if it could not run. At deadline
    (time.monotonic()) the runner is interrupted as Ctrl-C would (it keeps the rows it has)."""
    proc = _start(prog, words, out_dir)
    try:
        status = proc.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        print(f"ci: the budget's end: interrupting 'heapbench {words[0]}' (its finished runs are kept)",
              file=sys.stderr, flush=True)
        proc.send_signal(signal.SIGINT)
        status = proc.wait()
        status = 0 if status == 130 else status
    _check(prog, status, words, out_dir)


def together(prog, jobs):
    """Runs several `heapbench WORDS` at the same time, each (words, out_dir, cpus) on its own CPUs;
    waits for all of them, then exits 2 if any could not run."""
    procs = []
    try:
        for words, out_dir, cpus in jobs:
            procs.append(_start(prog, words, out_dir, cpus))
    finally:
        statuses = [proc.wait() for proc in procs]
    for (words, out_dir, _), status in zip(jobs, statuses):
        _check(prog, status, words, out_dir)


def batch(args, out_dir, matrix_words, reps):
    """Runs `heapbench run --quick -n reps -o out_dir` with matrix_words and ci's pass-through options."""
    words = ["run", "--quick", "-n", str(reps), "-o", out_dir] + matrix_words
    words += passed(args, BOTH_BATCHES + ("--warmup",)) + measure_words(args)
    runner("heapbench ci", words, out_dir)


def rerun(args, suspects, out_dir, reps, reference=None, stem="confirm"):
    """Re-runs each suspect row's cell on its own (with the reference allocator when given) into
    out_dir/STEM-K, reps reps; returns the runs.csv rows of all of them."""
    keys = sorted({results.cell_key(r, results.MATCH_KEY) for r in suspects})
    runs = []
    for k, (workload, allocator, threads, params, env) in enumerate(keys, start=1):
        words = ["-w", workload, "-a", allocator + ("," + reference if reference else ""), "-t", str(threads), "-p", params]
        words += ["--env", env] if env else []
        directory = os.path.join(out_dir, f"{stem}-{k}")
        batch(args, directory, words, reps)
        runs += judged.judged(results.load(directory))["runs"]  # judged per batch: run numbers repeat across them
    return runs
