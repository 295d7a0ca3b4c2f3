"""metricchoice.py - which metrics a gate may judge: none measured under instrumentation but the
counts, and the counts instead of times where the times spread too much from rep to rep.

Always holds: under instrumentation (meta.json's instrumented: valgrind ran every process) only the
counts the instrumentation makes (metric_*: metric_instructions, metric_alloc_instructions and the
user's own figures) are the program's; every runs.csv time, memory and counter column and every
latency quantile of such a run is valgrind's, so it is left out and one line says so. A time
metric's spread is the median over cells (at least 3 ok reps, a positive median) of the
interquartile range of its reps over their median; when it is above half the metric's threshold,
the default metrics of `heapbench ci` trade it for the counts the runs hold (COUNTS), and one line
says so. Nothing here measures: it reads loaded results (heapbench.results) only.
"""
import statistics

from heapbench import latency
from heapbench import cells
from heapbench.median import median

# Time metrics: the machine's load moves them (latency quantiles, p99:<phase>:<op>, are time too).
TIME = ("wall_s", "user_s", "sys_s", "task_clock_ms", "cycles", "replay_s")
# Counts that no load moves, in the order a gate takes them: valgrind's instructions, the
# allocator's share, page faults and the system calls an allocator makes (the kernel's counts).
COUNTS = ("metric_instructions", "metric_alloc_instructions", "minflt",
          "sys_mmap", "sys_munmap", "sys_mremap", "sys_madvise", "sys_brk", "sys_mprotect")
MIN_REPS = 3


def is_time(metric):
    """Whether metric is a time (TIME or a latency quantile)."""
    return metric in TIME or latency.is_metric(metric)


def instrumented(*datas):
    """What instrumented the runs of the first loaded directory that was (meta.json's
    instrumented, e.g. 'valgrind cachegrind (--count-instructions)'), else None."""
    for data in datas:
        what = data.get("meta", {}).get("instrumented")
        if what:
            return what
    return None


def comparable(metrics, *datas):
    """(metrics to judge, note): under instrumentation only metric_* columns, and the note names
    what was left out and why ('' when nothing was)."""
    what = instrumented(*datas)
    if not what:
        return list(metrics), ""
    kept = [m for m in metrics if m.startswith("metric_")]
    left = [m for m in metrics if not m.startswith("metric_")]
    if not left:
        return kept, ""
    return kept, (f"{', '.join(left)} not gated: measured under instrumentation ({what}), so they are "
                  "the instrumentation's, not the program's; only the counts (metric_*) are compared")


def spread(data, metric):
    """The median relative rep-to-rep spread (IQR / median) of metric over the cells of a loaded
    directory with at least MIN_REPS ok reps; None when no cell has them."""
    per_cell = []
    for hosts in cells.group(data["runs"]).values():
        for rows in hosts.values():
            values = [r[metric] for r in rows if r.get("status") == "ok" and isinstance(r.get(metric), (int, float))]
            if len(values) < MIN_REPS:
                continue
            mid = median(values)
            q = statistics.quantiles(values, n=4, method="inclusive")
            if mid > 0:
                per_cell.append((q[2] - q[0]) / mid)
    return median(per_cell)


def available_counts(data):
    """The COUNTS of a loaded directory that some ok run has a non-zero value for."""
    return [m for m in COUNTS
            if any(r.get("status") == "ok" and isinstance(r.get(m), (int, float)) and r.get(m) for r in data["runs"])]


def choose(metrics, data, thresholds, relative):
    """(metrics, line): metrics with each time metric whose spread in data (the runs the gate just
    measured) is above half its threshold replaced by the counts data holds; line says what was
    traded and why ('' when nothing was, or when there are no counts to gate on instead)."""
    noisy = []
    for m in metrics:
        if not is_time(m) or latency.is_metric(m):
            continue  # latency quantiles stay: their own spread is per phase, not in runs.csv
        s = spread(data, m)
        limit = thresholds.get(m, cells.threshold(m, relative)) / 2
        if s is not None and s > limit:
            noisy.append((m, s, limit))
    counts = [c for c in available_counts(data) if c not in metrics]
    if not noisy or not counts:
        return list(metrics), ""
    dropped = {m for m, _, _ in noisy}
    if "wall_s" in dropped:  # the quantiles are times measured in the same noise
        dropped |= {m for m in metrics if latency.is_metric(m)}
    kept = [m for m in metrics if m not in dropped] + counts
    said = ", ".join(f"{m} spreads {s * 100:.1f}% from rep to rep (above half its {limit * 200:.3g}% threshold)"
                     for m, s, limit in noisy)
    return kept, (f"{said}: gating on the counts {', '.join(counts)} instead of "
                  f"{', '.join(sorted(dropped))} (give --metrics to choose)")


def for_gate(metrics, data, thresholds, relative):
    """(metrics, line): a gate's default metrics for the runs it just measured (data, loaded): the
    counts (metric_*) those runs hold when they ran under instrumentation, else choose()'s; line
    says what was traded and why ('' when nothing was)."""
    what = instrumented(data)
    if what:
        counts = [m for m in available_counts(data) if m.startswith("metric_")]
        return (counts, f"the runs are instrumented ({what}): gating on the counts {', '.join(counts)}") \
            if counts else (list(metrics), "")
    return choose(metrics, data, thresholds, relative)

