"""measure.py - measures a set of points with one interleaved `heapbench run` (or `exec`) and reads the results back.

Always holds: every point of one call is measured in the same runner invocation (one --env set
each, the runner interleaves them), the default point included, so the points of one call are
comparable with each other; results are read only through heapbench.results; a measured
point carries the run's tag so later comparisons stay within one run. Runs whose status is not
`ok` never enter a median.
"""
import subprocess
import sys

from heapbench import cli, judged, latency, results
from heapbench.median import median

POINT_KEY = ("workload", "threads", "params", "env", "allocator")  # a measured point: a cell, its env set, its allocator
FREE_PHASE_PREFIXES = ("free",)  # phases.csv phase names that end with the memory given back (free-all, free)


class MeasureUsageError(Exception):
    """The runner refused the options tune passed on (exit 2); its own message says which."""


def measure_env_key(env_text):
    """Order-free key of an environment word list ('A=1 B=2' == 'B=2 A=1')."""
    return tuple(sorted(env_text.split()))


def measure_points(runner_argv, envs, out_dir, clean_env, log=None, isolated=False, stdin=None):
    """Runs runner_argv plus one --env per text of envs and -o out_dir; returns results.load() of it.

    runner_argv: [heapbench, 'run', options...] or [heapbench, 'exec', options..., '--', CMD...]
    (the --env and -o options go before '--'). The runner's output goes to stderr (to the file
    object log, both streams, when given). Raises MeasureUsageError when the runner refuses the
    options (exit 2), results.ResultsError when it left no readable results; KeyboardInterrupt
    when the runner was interrupted (exit 130). isolated: the runner starts in its own session with
    /dev/null as its input (no terminal to read or to stop it; the caller forwards its signals);
    stdin: a file descriptor the runner (and the processes it measures) get as input instead.
    """
    words, command = cli.split_command(runner_argv)
    extra = [a for env in envs for a in ("--env", env)] + ["-o", out_dir]
    argv = words + extra + ([] if command is None else ["--"] + command)
    print("tune: " + " ".join(_quote(a) for a in argv), file=log or sys.stderr, flush=True)
    code = subprocess.run(argv, env=cli.run_env(clean_env), stdout=log or sys.stderr, stderr=log,
                          stdin=stdin if stdin is not None else subprocess.DEVNULL if isolated else None, start_new_session=isolated).returncode
    if code == 130:
        raise KeyboardInterrupt
    if code == 2:
        raise MeasureUsageError("the runner refused these options (its message is above); fix them and re-run tune")
    if code not in (0, 1):
        raise results.ResultsError(f"the runner exited {code} (see its message above); fix that and re-run tune")
    return results.load(out_dir)


def _quote(word):
    """A shell-quoted copy of word when it needs quoting (for the printed command line)."""
    return word if word and all(c.isalnum() or c in "-_=./,:" for c in word) else "'" + word.replace("'", "'\\''") + "'"


def measure_cells(data, tag, by_allocator=False):
    """{cell: {env key: measured point}} of one results directory.

    cell = (workload, threads, params). A replay (trace:FILE) point's time and peak are its replay's
    (heapbench.judged: the replay less the replayer's own, the heap). With by_allocator the env key is (allocator,) + env key
    (a run of several allocators). A measured point: tag, reps_ok, failed (reasons of the
    runs that were not ok), time/peak/free/faults/p99/cpu/metric (medians, None when unknown) and
    their samples time_samples, peak_samples, free_samples, faults_samples, p99_samples,
    cpu_samples, metric_samples. time is the wall time; cpu is user + sys (the process and its
    children); p99: seconds, of the run's malloc calls in every phase merged, from latency.csv
    (only when the run had --latency sampled); metric: the program's own figure, the first of the
    run's --metric (meta.json `metrics`, named in metric_name with metric_higher its direction;
    None when the run read none).
    """
    free_rss = _free_rss_by_run(data["phases"])
    p99 = _malloc_p99_by_run(data.get("latency", []))
    metric_name, metric_higher = measure_metric(data)
    groups = {}
    runs = judged.judged_runs(data["runs"], data["phases"])  # a replay's time and peak: its replay's (judged.py)
    for (workload, threads, params, env, allocator), rows in results.group(runs, POINT_KEY).items():
        key = ((allocator,) if by_allocator else ()) + measure_env_key(env)
        group = groups.setdefault((workload, threads, params), {}).setdefault(key, {
            "tag": tag, "env": env, "allocator": allocator, "failed": [], "time_samples": [], "peak_samples": [],
            "free_samples": [], "faults_samples": [], "p99_samples": [], "cpu_samples": [], "metric_samples": [],
            "metric_name": metric_name, "metric_higher": metric_higher})
        for row in rows:
            if row["status"] != "ok":
                group["failed"].append(f"{row['status']}: {row['reason']}")
                continue
            why = _thp_mismatch(row)
            if why:
                group["failed"].append(f"not applied: {why}")
                continue
            _append(group["time_samples"], row["wall_s"])
            _append(group["peak_samples"], row["maxrss_kb"])
            _append(group["free_samples"], free_rss.get(row["run"]))
            _append(group["faults_samples"], row["page_faults"] if row["page_faults"] is not None else row["minflt"])
            _append(group["p99_samples"], p99.get(row["run"]))
            user, system = row.get("user_s"), row.get("sys_s")
            if isinstance(user, (int, float)) and isinstance(system, (int, float)):
                group["cpu_samples"].append(float(user) + float(system))
            if metric_name:
                _append(group["metric_samples"], row.get("metric_" + metric_name))
    for cell in groups.values():
        for point in cell.values():
            point["reps_ok"] = len(point["time_samples"])
            for name in ("time", "peak", "free", "faults", "p99", "cpu", "metric"):
                samples = point[name + "_samples"]
                point[name] = median(samples)
    return groups


def measure_metric(data):
    """(name, higher is better) of the first program figure the run read (meta.json `metrics`,
    as the runner parsed --metric or a program definition's metric), (None, False) without one."""
    for name, direction in (data["meta"].get("metrics") or {}).items():
        return name, direction == "higher"
    return None, False


def _thp_mismatch(row):
    """Why a run of a point that sets thp (HEAPBENCH_THP in its env) does not count: the mode in
    effect (runs.csv thp) is not the one asked; None when it is, or when thp is not set."""
    asked = [w.split("=", 1)[1] for w in (row.get("env") or "").split() if w.startswith("HEAPBENCH_THP=")]
    if not asked or row.get("thp") == asked[-1]:
        return None
    return f"thp={asked[-1]} asked, {row.get('thp') or 'no mode'} in effect"


def _append(samples, value):
    """Adds value to samples when it is a number."""
    if isinstance(value, (int, float)):
        samples.append(float(value))


def _malloc_p99_by_run(rows):
    """{run number: p99 in seconds of its malloc calls, every phase merged exactly} from latency.csv rows."""
    by_run = {}
    for row in rows:
        if row["op"] == "malloc":
            by_run.setdefault(row["run"], []).append(row)
    out = {}
    for run, mine in by_run.items():
        out[run] = latency.merged_quantile(latency.merged(mine), 0.99) / 1e9
    return out


def _free_rss_by_run(phases):
    """{run number: rss_kb at the end of the run's last free phase} for runs that have one."""
    out = {}
    for row in phases:
        if str(row["phase"]).startswith(FREE_PHASE_PREFIXES) and row["rss_kb"] is not None:
            out[row["run"]] = row["rss_kb"]
    return out
