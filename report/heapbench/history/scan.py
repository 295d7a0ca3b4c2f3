"""scan.py - the change points of a history's series (changes.change_points over Store.all_series) and its library changes.

Always holds: a series is (testbed, cell, metric) in the store's order; change points are found
on the per-point medians; each Found carries the label of the first point after the change, the
medians before and after, the change in %, p, and the typical rep-to-rep spread (median of the
points' spread / median, in %) of the segment before it; found changes come back newest first
(by the order of their first point after the change), then by testbed, cell, metric.
A library change is a point whose allocator library (sha256, else version, else path) differs
from the previous point's. A change point coincides with a load change when the same cell's load1
series (the runs' load average, points.MACHINE_METRICS) has medians before and after it that differ
by at least LOAD_STEP_ABS and by LOAD_STEP_REL of the larger: Found.load_change then says
'before->after' ('' otherwise), and such a change is not counted as a change of the code by default.
"""
import collections

from heapbench.history import changes
from heapbench.median import median

# The metrics `history changes`, `report` and `export` look at by default.
DEFAULT_METRICS = ("wall_s", "maxrss_kb", "minflt")

Found = collections.namedtuple("Found", "testbed cell metric index label order before_median after_median pct p "
                                        "spread_pct library_change load_change")
LOAD = "load1"
LOAD_STEP_ABS = 1.0    # a load change moves the load average by at least one runnable process...
# ...and by at least a quarter of the larger of the two loads: on a machine already busier than its
# CPUs, a CPU-bound run's share of a CPU falls as the load rises, so its wall time grows about as
# the load does (a rise from ~40 to ~57 on 2 CPUs moved quick cells' wall times by +80% to +200%,
# which half of the larger load, the rule before, did not mark).
LOAD_STEP_REL = 0.25


def library_id(library):
    """What tells two libraries apart: sha256, else version, else path (None when nothing is known)."""
    return library.get("sha256") or library.get("version") or library.get("path") if library else None


def library_changes(series):
    """[(index, old library, new library)] of a series of Points: where the library changed."""
    out = []
    for i in range(1, len(series)):
        old, new = library_id(series[i - 1].library), library_id(series[i].library)
        if old and new and old != new:
            out.append((i, series[i - 1].library, series[i].library))
    return out


def spread_pct(points):
    """The median of the points' spread / median in % (0 when no point has a nonzero median)."""
    rel = [p.spread / abs(p.median) * 100 for p in points if p.median]
    return median(rel) if rel else 0.0


def load_change(series, load, start, index, end):
    """'before->after' when the load1 points of the runs of series[start:index] and series[index:end]
    differ by a load change (see the module's docstring), else ''."""
    by_run = {p.run_id: p.median for p in load or []}
    before = [by_run[p.run_id] for p in series[start:index] if p.run_id in by_run]
    after = [by_run[p.run_id] for p in series[index:end] if p.run_id in by_run]
    if not before or not after:
        return ""
    b, a = median(before), median(after)
    if abs(a - b) >= LOAD_STEP_ABS and abs(a - b) >= LOAD_STEP_REL * max(a, b):
        return f"{b:.1f}->{a:.1f}"
    return ""


def series_changes(testbed, cell, metric, series, alpha, min_magnitude, load=None):
    """[Found] of one series; load: the same cell's load1 series (None: not recorded)."""
    moved = {i for i, _, _ in library_changes(series)}
    found = changes.change_points([p.median for p in series], alpha=alpha, min_magnitude=min_magnitude)
    bounds = [c.index for c in found] + [len(series)]
    out = []
    for k, c in enumerate(found):
        start = max((f.index for f in out), default=0)
        out.append(Found(testbed, cell, metric, c.index, series[c.index].label, series[c.index].order,
                         c.before_median, c.after_median, c.pct, c.p, spread_pct(series[start:c.index]),
                         c.index in moved or c.index - 1 in moved or c.index + 1 in moved,
                         load_change(series, load, start, c.index, bounds[k + 1])))
    return out


def scan(store, testbeds=None, metrics=DEFAULT_METRICS, since=None, alpha=changes.ALPHA,
         min_magnitude=changes.MIN_MAGNITUDE):
    """[Found] over the history's testbeds (names; None for all) and metrics (None for all), newest first;
    since: a label, only changes at or after its point in each testbed that has it."""
    found = []
    for name in testbeds or [t.name for t in store.testbeds()]:
        start = _order_of(store, name, since)
        every = store.all_series(name, None if metrics is None else list(metrics) + [LOAD], reps=False)
        for (cell, metric), series in sorted(every.items()):
            if metric == LOAD and (metrics is None or LOAD not in metrics):
                continue
            found += [f for f in series_changes(name, cell, metric, series, alpha, min_magnitude, every.get((cell, LOAD)))
                      if start is None or f.order >= start]
    return sorted(found, key=lambda f: (-f.order, f.testbed, f.cell, f.metric))


def _order_of(store, testbed, label):
    """The order of label's run in testbed (None when label is None or the testbed has no such label)."""
    if label is None:
        return None
    return next((r.order for r in store.runs(testbed) if r.label == label), None)
