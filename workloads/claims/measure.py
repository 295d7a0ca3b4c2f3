"""measure.py - runs the cells a claim needs and returns their rows, through `heapbench run` or, if it is unusable, the binaries.

A spec is (workload, allocators, threads or None, params list, env string). Either way the rows
come back shaped like report/hbresults.load(): {"runs": [...], "phases": [...], "sizes": [...]},
each row a dict with workload, allocator, threads, params, env, rep and the DATA.md columns
(runs: status, wall_s, minflt, maxrss_kb; phases: phase, seconds, ops, live_bytes, rss_kb;
sizes: request, usable). Always holds: a spec is measured reps times per cell; a cell that did
not run (allocator missing, failed run) simply has no ok rows, and the claim says so.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "report"))
import hbresults  # noqa: E402  (the shared reader of results directories)

HEAPBENCH = os.path.join(ROOT, "build", "heapbench")


def runner_usable():
    """True when build/heapbench exists and answers `list` (the runner has landed and builds)."""
    if not os.access(HEAPBENCH, os.X_OK):
        return False
    try:
        return subprocess.run([HEAPBENCH, "list"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def via_runner(spec, reps):
    """Measures spec with one `heapbench run` into a temporary results dir; returns its loaded rows."""
    workload, allocators, threads, params, env = spec
    out = tempfile.mkdtemp(prefix="hb-claims-")
    argv = [HEAPBENCH, "run", "-w", workload, "-a", ",".join(allocators), "-n", str(reps), "-o", out]
    argv += ["-t", ",".join(str(t) for t in threads)] if threads else []
    for p in params:
        argv += ["-p", p]
    argv += ["--env", env] if env else []
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return hbresults.load(out)
    except hbresults.ResultsError as err:
        print(f"check-claims: heapbench run gave no results ({err})", file=sys.stderr)
        return {"runs": [], "phases": [], "sizes": []}


def registry_paths():
    """allocator name -> library path ('' for the system allocator, None when not installed)."""
    paths = {}
    with open(os.path.join(ROOT, "allocators", "registry.tsv")) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [f.strip() for f in line.split("|")]
            libs = fields[1]
            paths[fields[0]] = "" if libs == "-" else next((p for p in libs.split(":")
                                                            if os.path.exists(os.path.join(ROOT, p))), None)
    return paths


def parse_records(text, key):
    """phase and size rows (dicts extended with key) from a workload's phase-protocol output."""
    phases, sizes = [], []
    for line in text.splitlines():
        f = line.split("\t")
        if f[0] == "phase" and len(f) == 6:
            phases.append(dict(key, phase=f[1], seconds=float(f[2]), ops=int(f[3]), live_bytes=int(f[4]),
                               rss_kb=int(f[5])))
        elif f[0] == "size" and len(f) == 3:
            sizes.append(dict(key, request=int(f[1]), usable=int(f[2])))
    return phases, sizes


def run_once(argv, env):
    """Runs one process; returns (exit code, stdout text, wall seconds, rusage of that child)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out, time.monotonic() - t0, usage


def via_binaries(spec, reps):
    """Measures spec by running build/workloads/<name> directly (LD_PRELOAD from the registry)."""
    workload, allocators, threads, params, env_text = spec
    paths = registry_paths()
    rows = {"runs": [], "phases": [], "sizes": []}
    for rep in range(1, reps + 1):
        for p in params:
            for t in threads or [None]:
                for alloc in allocators:
                    lib = paths.get(alloc)
                    if lib is None:
                        continue
                    env = dict(os.environ)
                    env.pop("HEAPBENCH_PHASE_FD", None)
                    env.update(kv.split("=", 1) for kv in env_text.split())
                    if lib:
                        env["LD_PRELOAD"] = os.path.join(ROOT, lib)
                    argv = [os.path.join(ROOT, "build", "workloads", workload)] + p.split()
                    argv += [f"--threads={t}"] if t else []
                    key = dict(workload=workload, allocator=alloc, threads=t or 1, params=p, env=env_text, rep=rep)
                    rc, out, wall, usage = run_once(argv, env)
                    phases, sizes = parse_records(out, key)
                    rows["runs"].append(dict(key, status="ok" if rc == 0 else "failed", wall_s=wall,
                                             minflt=usage.ru_minflt, maxrss_kb=usage.ru_maxrss))
                    rows["phases"] += phases
                    rows["sizes"] += sizes
    return rows


def command(spec, reps):
    """The `heapbench run` command line that measures spec (shown in the claims table)."""
    workload, allocators, threads, params, env = spec
    cmd = f"build/heapbench run -w {workload} -a {','.join(allocators)} -n {reps}"
    cmd += f" -t {','.join(str(t) for t in threads)}" if threads else ""
    cmd += "".join(f" -p '{p}'" for p in params if p)
    return cmd + (f" --env '{env}'" if env else "")


def measure(spec, reps, use_runner):
    """The rows of spec, measured reps times per cell, by the runner or by the binaries."""
    return via_runner(spec, reps) if use_runner else via_binaries(spec, reps)


def median(values):
    """Median of a list of numbers; None for an empty one."""
    values = list(values)
    return statistics.median(values) if values else None


def pick(rows, table, field, **where):
    """Median of field over the rows of table (runs/phases) that match every where item and whose run was ok."""
    ok_runs = {(r["allocator"], r["threads"], r["params"], r["env"], r["rep"]) for r in rows["runs"]
               if r.get("status") == "ok"}
    vals = [r[field] for r in rows[table]
            if all(str(r.get(k)) == str(v) for k, v in where.items())
            and (table == "runs" and r.get("status") == "ok"
                 or table != "runs" and (r["allocator"], r["threads"], r["params"], r["env"], r["rep"]) in ok_runs)
            and r.get(field) is not None]
    return median(vals)

