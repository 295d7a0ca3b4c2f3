"""judged.py - the figures a cell is judged by: runs.csv's wall_s and maxrss_kb, except for a replay
(a trace:FILE cell), which is judged by its replay alone.

A replay process also loads and checks the trace (seconds) and holds the trace and its tables (the
replayer's own baseline, its `load` phase's RSS), so its wall time and peak RSS say little about the
allocator. Every ranking and comparison (the report's leaderboard, tables and charts, compare, ci,
tune) reads a trace run's figures through judged_runs():
- time, in wall_s: the `replay` phase's seconds less the `self` phase's (the same replay without
  allocator calls: the replayer's own cost), named replay_s where a metric is named;
- memory, in maxrss_kb: the heap, the replay's peak RSS less the `load` phase's RSS, named heap_kb. Both
  terms are the replayer's own readings of one kernel counter: the `peak` phase's rss_kb (the
  high-water mark, reset when `load` ends) and the `load` phase's rss_kb, read at that reset; a run of
  a replayer older than the `peak` phase (no such record) takes runs.csv's maxrss_kb for the peak.
Always holds: a trace run's process figures stay in process_wall_s and process_maxrss_kb; a trace run
lacking one of the phases it needs gets None (never the process figure in its place); rows of other
workloads are returned as they are (the same objects); judging a judged row changes nothing.
"""
TRACE_PREFIX = "trace:"
NAMES = {"wall_s": "replay_s", "maxrss_kb": "heap_kb"}  # a trace cell's judged figure, by its runs.csv column
WORDS = {"wall_s": "replay less the replayer's own (self)", "maxrss_kb": "heap (peak RSS less the load phase's RSS)"}
PROCESS = "process_"  # prefix of the process figures a judged row keeps


def is_trace(workload):
    """True for a replay workload (trace:FILE)."""
    return str(workload or "").startswith(TRACE_PREFIX)


def trace_phases(phases):
    """{run number: {phase name: phases.csv row}} of the replay runs' phases."""
    by_run = {}
    for row in phases:
        if is_trace(row.get("workload")):
            by_run.setdefault(row.get("run"), {})[row.get("phase")] = row
    return by_run


def _number(row, column):
    """row[column] when row exists and holds a number, else None."""
    value = row.get(column) if row else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def replay_peak_kb(run, phases):
    """The replay's peak RSS in KiB: its `peak` phase's (the replayer's reading, the counter its `load`
    RSS comes from), else the process's maxrss_kb of runs.csv (a replayer without the `peak` phase);
    None when missing. run may be judged or not."""
    peak = _number(phases.get("peak"), "rss_kb")
    return peak if peak is not None else _number({"maxrss_kb": process(run, "maxrss_kb")}, "maxrss_kb")


def replay_figures(run, phases):
    """(replay_s, heap_kb) of one replay run from its phases ({name: row}); None for a figure
    whose phase or value is missing."""
    replay, self_ = _number(phases.get("replay"), "seconds"), _number(phases.get("self"), "seconds")
    load, peak = _number(phases.get("load"), "rss_kb"), replay_peak_kb(run, phases)
    return (replay - self_ if replay is not None and self_ is not None else None,
            peak - load if peak is not None and load is not None else None)


def judged_runs(runs, phases):
    """runs.csv rows with every trace run's wall_s and maxrss_kb replaced by its replay's figures
    (copies; the process figures kept as process_wall_s, process_maxrss_kb)."""
    by_run = None
    out = []
    for row in runs:
        if not is_trace(row.get("workload")) or PROCESS + "wall_s" in row:
            out.append(row)
            continue
        if by_run is None:
            by_run = trace_phases(phases)
        replay_s, heap_kb = replay_figures(row, by_run.get(row.get("run"), {}))
        out.append(dict(row, wall_s=replay_s, maxrss_kb=heap_kb, process_wall_s=row.get("wall_s"),
                        process_maxrss_kb=row.get("maxrss_kb")))
    return out


def judged(data):
    """A copy of a results.load() dict whose runs are judged_runs() (phases, meta and the rest shared)."""
    return dict(data, runs=judged_runs(data["runs"], data.get("phases") or []))


def process(row, column):
    """The process's own figure of a row, judged or not (wall_s or maxrss_kb)."""
    return row.get(PROCESS + column, row.get(column))


def metric_name(workload, metric):
    """The name a metric is shown under for a cell of workload: replay_s and heap_kb for a replay."""
    return NAMES.get(metric, metric) if is_trace(workload) else metric
