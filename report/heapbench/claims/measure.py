"""measure.py - measures the cells a claim needs with `heapbench run` and picks figures out of the results files.

A Spec names one `heapbench run`: workload, allocators, threads (None: the workload's own),
params (one -p each), envs (one --env each), and optionally reps/warmup (None: the command's
--reps and the runner's default warm-up), extra (more `heapbench run` options, such as
`--latency sampled`) and wrap (a --wrap command; "{dir}" in it is the run's
temporary directory, whose other files come back in rows["files"]; a callgrind.out file as
callgrind_annotate's inclusive listing, see profile.py).
The rows come back as heapbench.results.load() gives them: {"runs": [...], "phases": [...],
"sizes": [...], ..., "files": {name: text}, "logs": {run: text}} (logs: each run's
logs/<run>.log, the process's stdout and stderr, docs/DATA.md).
Always holds: every cell is measured by the runner (build/heapbench run) into a temporary
directory that is removed afterwards, and read back only through heapbench.results (its logs,
plain text, as they are); a Spec is
measured once per check-claims run however many claims read it; a figure is a median over the
runs whose status is ok; a cell that did not run has no ok rows, and the claim says n/a.
"""
import collections
import os
import shutil
import subprocess
import sys
import tempfile

from heapbench import cli, results
from heapbench.claims import profile
from heapbench.median import median

EMPTY = {"runs": [], "phases": [], "sizes": [], "latency": [], "files": {}, "logs": {}}

Spec = collections.namedtuple("Spec", "workload allocators threads params envs reps warmup wrap extra",
                              defaults=(None, (), (), None, None, None, ()))

_CACHE = {}


def run_argv(spec, reps):
    """The `heapbench run` arguments (after 'run', without -o) that measure spec."""
    argv = ["-w", spec.workload, "-a", ",".join(spec.allocators), "-n", str(spec.reps or reps)]
    argv += ["--warmup", str(spec.warmup)] if spec.warmup is not None else []
    argv += ["-t", ",".join(str(t) for t in spec.threads)] if spec.threads else []
    for p in spec.params:
        argv += ["-p", p]
    for e in spec.envs:
        argv += ["--env", e]
    return argv + list(spec.extra)


def command(spec, reps):
    """The `heapbench run` command line that measures spec (shown in the claims table): the values
    of -p, --env and --wrap quoted, the wrapper's temporary directory left out."""
    argv = run_argv(spec, reps) + (["--wrap", spec.wrap.replace("{dir}/", "")] if spec.wrap else [])
    words = [f"'{a}'" if prev in ("-p", "--env", "--wrap") else a for prev, a in zip([""] + argv, argv)]
    return "build/heapbench run " + " ".join(words)


def _extra_files(out):
    """{name: text} of the files a wrapper left in the temporary directory out; a callgrind.out
    file comes back as its inclusive listing (profile.annotate)."""
    files = {}
    for name in os.listdir(out):
        path = os.path.join(out, name)
        if os.path.isfile(path) and name.startswith("callgrind.out"):
            files[name] = profile.annotate(path)
        elif os.path.isfile(path):
            with open(path, errors="replace") as fh:
                files[name] = fh.read()
    return files


def _logs(path):
    """{run: text} of the logs/<run>.log files of a results directory ({} without any)."""
    logs = {}
    for name in os.listdir(path) if os.path.isdir(path) else []:
        stem = name[:-len(".log")]
        if name.endswith(".log") and stem.isdigit():
            with open(os.path.join(path, name), encoding="utf-8", errors="replace") as fh:
                logs[int(stem)] = fh.read()
    return logs


def measure(spec, reps):
    """The rows of spec, measured by one `heapbench run` (cached per spec and reps); EMPTY, with a
    line on stderr, when it gave no results."""
    key = (repr(spec), reps)
    if key not in _CACHE:
        _CACHE[key] = _measure(spec, reps)
    return _CACHE[key]


def _measure(spec, reps):
    """One `heapbench run` of spec into a temporary directory, loaded and removed."""
    out = tempfile.mkdtemp(prefix="hb-claims-")
    try:
        argv = [cli.binary(), "run"] + run_argv(spec, reps) + ["-o", os.path.join(out, "r")]
        argv += ["--wrap", spec.wrap.replace("{dir}", out)] if spec.wrap else []
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=cli.run_env())
        if proc.returncode == 2:
            cli.usage_exit("check-claims", f"heapbench run refused {' '.join(argv[2:])}: {proc.stderr.strip()}")
        try:
            rows = results.load(os.path.join(out, "r"))
        except results.ResultsError as err:
            print(f"check-claims: heapbench run gave no results ({err})", file=sys.stderr)
            return EMPTY
        rows["files"] = _extra_files(out)
        rows["logs"] = _logs(os.path.join(out, "r", "logs"))
        return rows
    finally:
        shutil.rmtree(out, ignore_errors=True)


def per_run(rows, table, field, **where):
    """[(run, value)] of field over the rows of table (runs/phases/latency) that match every where
    item and whose run was ok, in run order."""
    ok = {r["run"] for r in results.ok_runs(rows["runs"])}
    return sorted((r["run"], r[field]) for r in rows.get(table, [])
                  if r["run"] in ok and r.get(field) is not None
                  and all(str(r.get(k) or "") == str(v) for k, v in where.items()))


def pick(rows, table, field, **where):
    """Median of field over the rows of table (runs/phases) that match every where item and whose run was ok."""
    return median(v for _, v in per_run(rows, table, field, **where))
