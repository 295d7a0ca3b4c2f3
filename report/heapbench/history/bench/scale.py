#!/usr/bin/python3
"""scale.py - history add, changes and report on a generated history the size of the default matrix (the figures docs/HISTORY.md gives).

Always holds: everything is written under a temporary directory that is removed at the end
(--keep DIR keeps it there instead); the cells are the default matrix's (`heapbench run
--list-shard 1/1`, plus its three trace workloads) with 5 reps each: 1,680 runs per results
directory, every runs.csv figure filled; point k's medians move with a 2% noise, and two steps
are planted (jemalloc's library changes at point 60: wall_s +6%; every allocator's maxrss_kb of
one workload +8% at point 80). The commands are run as a user runs them (build/heapbench history
...); each figure is wall time and the peak RSS of the command's largest process, printed with
its target, MET or NOT MET. A benchmark, not a test: it exits 0 either way.
Usage: report/py report/heapbench/history/bench/scale.py [--points N] [--keep DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
BIN = os.path.join(ROOT, "build", "heapbench")
import fixture  # compare's synthetic results writer (on the path through report/py)

METRICS = ("wall_s", "user_s", "sys_s", "maxrss_kb", "minflt", "majflt", "nvcsw", "nivcsw", "task_clock_ms",
           "page_faults", "context_switches", "cpu_migrations")
TRACES = ("python3-alloc", "sqlite3", "gcc")


def default_cells():
    """The default matrix's cells (workload, allocator, threads, params, env)."""
    out = subprocess.run([BIN, "run", "--list-shard", "1/1"], capture_output=True, text=True, check=True).stdout
    cells = []
    for line in out.splitlines()[1:]:
        _, workload, threads, params, env, allocator = line.split("\t")
        cells.append((workload, allocator, int(threads), params, env))
    allocators = sorted({c[1] for c in cells})
    cells += [(f"trace:results/traces/{t}.hbt", a, 1, "", "") for t in TRACES for a in allocators]
    return cells


def write_point(directory, cells, k, rng, base):
    """Point k's results directory (5 reps per cell), facts of one machine, jemalloc's library by point."""
    data = {}
    for i, key in enumerate(cells):
        level = 1 + rng.normal(0, 0.02)
        values = {}
        for m in METRICS:
            step = 1.08 if (m == "maxrss_kb" and key[0] == "frag" and k >= 80) else 1.0
            step *= 1.06 if (m == "wall_s" and key[1] == "jemalloc" and k >= 60) else 1.0
            center = base[i] * level * step * (1000 if m != "wall_s" else 1)
            values[m] = list(center * (1 + rng.normal(0, 0.01, 5)))
        data[key] = values
    fixture.fixture_write(directory, data, host="bench", run_id=f"p{k:03d}")
    path = os.path.join(directory, "meta.json")
    meta = json.load(open(path))
    meta.update(cores=2, kernel="6.1.0-bench", thp="madvise", glibc_version="2.36", mem_total_kb=24598016,
                containment="none: bench", virtualization="vm", git_commit=f"{k + 1:012x}" + "0" * 28)
    meta["allocators"]["jemalloc"] = {"status": "found", "path": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
                                      "version": "5.3.0-1" if k < 60 else "5.3.0-2",
                                      "sha256": ("a" if k < 60 else "b") * 64}
    json.dump(meta, open(path, "w"))


def timed(args, env):
    """(seconds, peak RSS in MiB of the command's largest process, its stdout) of build/heapbench ARGS
    (wait4's rusage: the process and the descendants it waited for); CPU[0] gets its CPU seconds."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([BIN] + args, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        took = time.monotonic() - start
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        sys.exit(f"scale.py: {' '.join(args[:3])} failed: {stderr.strip()}")
    CPU[0] = usage.ru_utime + usage.ru_stime
    return took, usage.ru_maxrss / 1024, stdout


CPU = [0.0]  # CPU seconds of the last timed command (user + system, its waited-for descendants included)


def verdict(value, target):
    return "MET" if value <= target else "NOT MET"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=100)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    args = parser.parse_args()
    tmp = args.keep or tempfile.mkdtemp(prefix="hb-history-scale-")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, HEAPBENCH_RESULTS=os.path.join(tmp, "results"))
    env.pop("HEAPBENCH_HISTORY", None)
    try:
        cells = default_cells()
        rng = np.random.default_rng(1)
        base = rng.uniform(0.05, 5, len(cells))
        dirs = []
        for k in range(args.points):
            d = os.path.join(tmp, f"p{k:03d}")
            if not os.path.exists(os.path.join(d, "meta.json")):
                write_point(d, cells, k, rng, base)
            dirs.append(d)
        runs = len(cells) * 5
        print(f"commit {subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}, "
              f"cells {len(cells)}, runs per directory {runs}, points {args.points}, load {os.getloadavg()[0]:.1f}")
        db = os.path.join(tmp, "h.sqlite")
        for f in (db, db + "-wal", db + "-shm"):
            if os.path.exists(f):
                os.remove(f)
        took, peak, _ = timed(["history", "add", "--db", db, dirs[0]], env)
        print(f"add of one directory ({runs} runs) into a new SQLite history: {took:.2f} s (target <= 2 s: "
              f"{verdict(took, 2)}; CPU {CPU[0]:.2f} s), peak RSS {peak:.0f} MiB (target <= 200 MB: "
              f"{verdict(peak * 1.048576, 200)})")
        adds, peaks, cpus = [], [], []
        for d in dirs[1:]:
            took, peak, _ = timed(["history", "add", "--db", db, d], env)
            adds.append(took)
            peaks.append(peak)
            cpus.append(CPU[0])
        if adds:
            print(f"add of each further directory into the growing history: median {np.median(adds):.2f} s "
                  f"(CPU {np.median(cpus):.2f} s), largest {max(adds):.2f} s; peak RSS of any add {max(peaks):.0f} MiB")
        print(f"history file: {os.path.getsize(db) / 2**20:.0f} MiB")
        took, peak, done = timed(["history", "changes", "--db", db, "--json"], env)
        found = json.loads(done)
        print(f"changes over {args.points} points x {len(cells)} cells x 3 metrics: {took:.1f} s "
              f"(target <= 30 s: {verdict(took, 30)}; CPU {CPU[0]:.1f} s), peak RSS {peak:.0f} MiB, {len(found)} change points")
        jem = sum(1 for f in found if "/jemalloc/" in f["cell"] and f["metric"] == "wall_s" and abs(f["order"] - 61) <= 1)
        frag = sum(1 for f in found if f["cell"].startswith("frag/") and f["metric"] == "maxrss_kb"
                   and abs(f["order"] - 81) <= 1)
        jem_cells = sum(1 for c in cells if c[1] == "jemalloc")
        frag_cells = sum(1 for c in cells if c[0] == "frag")
        print(f"  planted: jemalloc wall_s +6% at point 60 found within ±1 point in {jem}/{jem_cells} cells; "
              f"frag maxrss_kb +8% at point 80 in {frag}/{frag_cells}; other change points: "
              f"{len(found) - jem - frag}")
        print(f"load average now {os.getloadavg()[0]:.1f}")
        site = os.path.join(tmp, "site")
        took, peak, _ = timed(["history", "report", "--db", db, "-o", site], env)
        size = sum(os.path.getsize(os.path.join(site, f)) for f in os.listdir(site))
        print(f"report: {took:.1f} s (target <= 20 s: {verdict(took, 20)}; CPU {CPU[0]:.1f} s), peak RSS {peak:.0f} MiB, "
              f"{len(os.listdir(site))} files, {size / 2**20:.1f} MiB")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
