"""points.py - what one results directory adds to a history: per host, its cells' points (reps, median, spread) per metric.

Always holds: the directory is read only through heapbench.results (meta.json, runs.csv,
latency.csv; never the big rss.csv); a point holds one value per ok repetition of a cell
(cells.sample's rule: never a failed run or an empty counter) and exists only when it has at
least one; a cell is named by compare's cells.label (workload/allocator/tN [params] {env}); the
spread is the interquartile range of the reps (hi - lo: their 25th and 75th percentiles; 0 for one rep), in the
metric's unit.
"""
import collections
import os
import statistics

from heapbench import latency
from heapbench import results
from heapbench import cells
from heapbench.median import median

# runs.csv columns that are a run's figures (docs/DATA.md), besides metric_* and latency quantiles.
RUN_METRICS = ("wall_s", "user_s", "sys_s", "maxrss_kb", "minflt", "majflt", "nvcsw", "nivcsw",
               "task_clock_ms", "page_faults", "context_switches", "cpu_migrations", "cycles",
               "instructions", "cache_misses", "branch_misses", "dtlb_load_misses",
               "sys_mmap", "sys_munmap", "sys_mremap", "sys_madvise", "sys_brk", "sys_mprotect")
# The machine's state of each run kept beside its figures (docs/DATA.md): `history changes` tells a
# change of load from a change of the code with it; never a figure of the allocator.
MACHINE_METRICS = ("load1",)
# The latency columns kept in a history (of latency.COLUMNS), per phase and op.
LATENCY_METRICS = ("p50", "p99", "p99.9")

Entry = collections.namedtuple("Entry", "cell workload allocator metric reps median spread lo hi")


def quartiles(reps):
    """(25th, 75th percentile) of reps (statistics' inclusive method, numpy's default; both the value for one rep)."""
    if len(reps) < 2:
        return reps[0], reps[0]
    q = statistics.quantiles(reps, n=4, method="inclusive")
    return q[0], q[2]


def metric_names(header, latency_names):
    """The metrics of a directory: RUN_METRICS and MACHINE_METRICS present in runs.csv's header, its
    metric_* columns, and the LATENCY_METRICS of each latency (phase, op)."""
    names = [m for m in RUN_METRICS + MACHINE_METRICS if m in header] + sorted(h for h in header if h.startswith("metric_"))
    return names + [n for n in latency_names if n.split(":", 1)[0] in LATENCY_METRICS]


def read(directory):
    """(meta, {host: [Entry]}) of a results directory; ResultsError when it cannot be read."""
    meta = results.read_meta(directory)
    data = {"runs": results.read_csv(os.path.join(directory, "runs.csv")),
            "latency": results.read_csv(os.path.join(directory, "latency.csv"), required=False)}
    header = results.read_header(os.path.join(directory, "runs.csv")) or []
    names = metric_names(header, latency.attach(data))
    by_host = {}
    for (host, *key), rows in results.group(data["runs"]).items():
        ok = [r for r in results.ok_runs(rows)]
        label = cells.label(tuple(key))
        out = by_host.setdefault(host, [])
        for metric in names:
            reps = [float(r[metric]) for r in ok if isinstance(r.get(metric), (int, float))]
            if reps:
                lo, hi = quartiles(reps)
                out.append(Entry(label, key[0], key[1], metric, reps, median(reps), hi - lo, lo, hi))
    return meta, by_host
