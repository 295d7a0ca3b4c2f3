"""export.py - `heapbench history export`: the history as Bencher Metric Format, github-action-benchmark JSON, or CSV.

Always holds: bmf and github-action-benchmark describe one point of one testbed (the newest, or
--label's), as those tools read one run at a time: `bencher run --adapter json --file F`
(benchmark = the cell, measure = the metric, value the median, lower/upper the 25th/75th
percentile of the reps) and github-action-benchmark's `customSmallerIsBetter` tool (name
"cell metric", unit, value the median, range the IQR); csv holds every point of the chosen
testbeds and metrics, one row per (point, cell, metric), its first column `schema` (2: the
commit under test, tested_commit, is its last column, empty when the point has none); a file is
written whole (temporary name, then renamed).
"""
import csv
import io
import os

from heapbench import jsontext
from heapbench.history.db import HistoryError

CSV_HEADER = ("schema", "testbed", "label", "order", "run_id", "host", "cell", "metric", "median", "spread",
              "reps", "library_version", "library_sha256", "tested_commit")
CSV_SCHEMA = 2  # 2: tested_commit added as the last column


def unit(metric):
    """The unit of a metric name."""
    if metric.endswith("_s"):
        return "s"
    if metric.endswith("_ms"):
        return "ms"
    if metric.endswith("_kb"):
        return "KiB"
    if metric.split(":", 1)[0].startswith("p") or metric.startswith(("max:", "mean:")):
        return "ns"
    return "count"


def _one_point(store, names, metrics, label):
    """(testbed, label, {(cell, metric): Point}) of the newest point (or label's) of the only testbed."""
    if len(names) != 1:
        raise HistoryError(f"this format describes one testbed's point; give --testbed (the history has: {', '.join(names) or 'none'})")
    runs = store.runs(names[0])
    if not runs:
        raise HistoryError(f"testbed {names[0]} has no point")
    chosen = runs[-1].label if label is None else label
    if chosen not in {r.label for r in runs}:
        raise HistoryError(f"--label {label!r}: testbed {names[0]} has no such point; see 'heapbench history testbeds'")
    points = {}
    for key, series in store.all_series(names[0], metrics).items():
        for p in series:
            if p.label == chosen:
                points[key] = p
    if not points:
        kept = sorted({m for _, m in store.all_series(names[0], None)})
        asked = f"of metric {', '.join(metrics)}" if metrics else "at all"
        raise HistoryError(f"point {chosen} of testbed {names[0]} has no value {asked} (nothing to export); the "
                           f"testbed's metrics: {', '.join(kept) or 'none'}")
    return names[0], chosen, points


def bmf(store, names, metrics, label):
    """Bencher Metric Format JSON of one point."""
    _, _, points = _one_point(store, names, metrics, label)
    out = {}
    for (cell, metric), p in sorted(points.items()):
        out.setdefault(cell, {})[metric.replace("_", "-").replace(":", "-").replace(".", "-")] = {
            "value": p.median, "lower_value": p.lo, "upper_value": p.hi}
    return _json(out, "the bmf export")


def github_action_benchmark(store, names, metrics, label):
    """github-action-benchmark's customSmallerIsBetter JSON of one point."""
    testbed, chosen, points = _one_point(store, names, metrics, label)
    out = [{"name": f"{cell} {metric}", "unit": unit(metric), "value": p.median, "range": f"± {p.spread / 2:.6g}",
            "extra": f"testbed {testbed}, label {chosen}, {len(p.reps)} reps, library {p.library.get('version') or '-'}"}
           for (cell, metric), p in sorted(points.items())]
    return _json(out, "the github-action-benchmark export")


def _json(value, what):
    """value as JSON text; HistoryError when it holds a NaN or an infinity (JSON cannot)."""
    try:
        return jsontext.dumps(value, what, indent=1) + "\n"
    except jsontext.NotFinite as err:
        raise HistoryError(f"{err}: the history holds such a value (added by a heapbench that did not check "
                           "its ranges); remove that testbed's history and add its runs again") from None


def csv_text(store, names, metrics, label):
    """Every point as CSV (only label's when given)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for name in names:
        for (cell, metric), series in sorted(store.all_series(name, metrics).items()):
            for p in series:
                if label is None or p.label == label:
                    writer.writerow([CSV_SCHEMA, name, p.label, f"{p.order:g}", p.run_id, p.host, cell, metric, repr(p.median),
                                     repr(p.spread), " ".join(repr(v) for v in p.reps), p.library.get("version") or "",
                                     p.library.get("sha256") or "", p.tested_commit or ""])
    return buf.getvalue()


FORMATS = {"bmf": bmf, "github-action-benchmark": github_action_benchmark, "csv": csv_text}


def render(store, names, metrics, fmt, label=None):
    """The export of the testbeds names in format fmt, as text."""
    return FORMATS[fmt](store, names, metrics, label)


def write_file(path, text):
    """Writes text to path whole; HistoryError when it cannot."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as err:
        raise HistoryError(f"{path}: cannot write ({err.strerror}); give -o a writable file") from None
