"""measure.py - measures the cells a claim needs with `heapbench run` and picks figures out of the results files.

A spec is (workload, allocators, threads or None, params list, env string). The rows come back as
heapbench.results.load() gives them: {"runs": [...], "phases": [...], "sizes": [...], ...}.
Always holds: every cell is measured by the runner (build/heapbench run, reps times per cell)
and read back only through heapbench.results; a figure is a median over the runs whose status
is ok (phases and sizes of a run count only when the run was ok); a cell that did not run
(allocator missing, failed run) simply has no ok rows, and the claim says so.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from heapbench import cli, results

EMPTY = {"runs": [], "phases": [], "sizes": []}


def run_argv(spec, reps):
    """The `heapbench run` arguments (after 'run', without -o) that measure spec."""
    workload, allocators, threads, params, env = spec
    argv = ["-w", workload, "-a", ",".join(allocators), "-n", str(reps)]
    argv += ["-t", ",".join(str(t) for t in threads)] if threads else []
    for p in params:
        argv += ["-p", p]
    return argv + (["--env", env] if env else [])


def command(spec, reps):
    """The `heapbench run` command line that measures spec (shown in the claims table)."""
    workload, allocators, threads, params, env = spec
    cmd = f"build/heapbench run -w {workload} -a {','.join(allocators)} -n {reps}"
    cmd += f" -t {','.join(str(t) for t in threads)}" if threads else ""
    cmd += "".join(f" -p '{p}'" for p in params if p)
    return cmd + (f" --env '{env}'" if env else "")


def measure(spec, reps):
    """The rows of spec, measured reps times per cell by one `heapbench run` into a temporary
    results directory (removed afterwards); EMPTY, with a line on stderr, when it gave no results."""
    out = tempfile.mkdtemp(prefix="hb-claims-")
    try:
        argv = [cli.binary(), "run"] + run_argv(spec, reps) + ["-o", os.path.join(out, "r")]
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=cli.run_env())
        if proc.returncode == 2:
            cli.usage_exit("check-claims", f"heapbench run refused {' '.join(argv[2:])}: {proc.stderr.strip()}")
        try:
            return results.load(os.path.join(out, "r"))
        except results.ResultsError as err:
            print(f"check-claims: heapbench run gave no results ({err})", file=sys.stderr)
            return EMPTY
    finally:
        shutil.rmtree(out, ignore_errors=True)


def median(values):
    """Median of a list of numbers; None for an empty one."""
    values = list(values)
    return statistics.median(values) if values else None


def pick(rows, table, field, **where):
    """Median of field over the rows of table (runs/phases) that match every where item and whose run was ok."""
    ok = {r["run"] for r in results.ok_runs(rows["runs"])}
    vals = [r[field] for r in rows[table]
            if r["run"] in ok and r.get(field) is not None
            and all(str(r.get(k)) == str(v) for k, v in where.items())]
    return median(vals)
