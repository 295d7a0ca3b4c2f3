"""speed.py - which figure is a program's speed: wall time, CPU time, malloc's p99, or its own printed figure.

Always holds: the speed axis of a measured point is lower-is-better seconds (a printed figure
that is higher-is-better, a throughput, becomes seconds per unit, 1 / figure, so that the front
and the tests need no second direction; every p-value is the same, the tests being rank tests);
`auto` ranks on the program's printed figure when the run read one (--metric, or a program
definition's metric), else on wall time; wall time (asked or by default) is refused as the speed of
a program whose wall time stays flat across the points while its CPU time or printed figure
moves (a program that runs for a fixed time) unless told to rank on it anyway (--wall-anyway).
"""
from heapbench import stats

CHOICES = ("auto", "wall", "cpu", "metric", "p99")
# Wall time follows a figure that moved when its median moved by at least this share of the figure's change.
WALL_SHARE = 1.0 / 3


def speed_resolve(asked, records):
    """The speed axis to rank on: asked ('auto', 'wall', ...) resolved against the measured records.

    auto -> 'metric' when the records carry a printed figure, else 'wall'. Raises ValueError
    with what to do for 'metric' without a figure.
    """
    has_metric = any(r.get("metric_name") for r in records)
    if asked == "auto":
        return "metric" if has_metric else "wall"
    if asked == "metric" and not has_metric:
        raise ValueError("--speed metric: the runs printed no figure; give --metric NAME=REGEX[,higher] "
                         "(e.g. --metric 'ops=([0-9.]+) ops/s,higher')")
    return asked


def speed_apply(record, axis):
    """Sets record['time'] and record['time_samples'] to the speed axis (lower is better).

    Keeps the wall time in record['wall'] / record['wall_samples'] (first call only).
    axis: 'wall', 'cpu', 'metric' or 'p99'.
    """
    record.setdefault("wall", record["time"])
    record.setdefault("wall_samples", list(record["time_samples"]))
    if axis == "wall":
        samples = record["wall_samples"]
    elif axis == "metric":
        samples = speed_metric_seconds(record)
    else:
        samples = record[axis + "_samples"]
    record["time_samples"] = list(samples)
    record["time"] = stats.stats_median(samples) if samples else None


def speed_metric_seconds(record):
    """The printed figure's samples as lower-is-better values: 1/x for a higher-is-better figure
    (zeros dropped: no finite time per unit), x itself otherwise."""
    samples = record.get("metric_samples") or []
    if record.get("metric_higher"):
        return [1.0 / v for v in samples if v > 0]
    return list(samples)


def speed_name(axis, records):
    """What the speed axis is called in the output: 'wall time', 'CPU time', 'ops (higher is better)'..."""
    if axis == "metric":
        rec = next((r for r in records if r.get("metric_name")), {})
        way = "higher" if rec.get("metric_higher") else "lower"
        return f"{rec.get('metric_name', 'metric')} ({way} is better)"
    return {"wall": "wall time", "cpu": "CPU time (user+sys)", "p99": "malloc p99"}[axis]


def speed_moves(base, new, key, threshold, alpha):
    """Whether the figure key ('wall', 'cpu', 'metric') of new differs from base's: significant beyond threshold."""
    a, b = base.get(key + "_samples") or [], new.get(key + "_samples") or []
    if not a or not b:
        return False
    return stats.compare_samples(a, b, threshold, alpha)["verdict"] in (stats.IMPROVEMENT, stats.REGRESSION)


def speed_wall_flat(points, defaults, threshold, alpha):
    """None when wall time may rank these points; else the reason it may not (one sentence).

    Wall time is no speed of a program when a point moves its printed figure (without one, its CPU time)
    significantly beyond threshold while its wall time does not follow: its median moves less
    than WALL_SHARE of the figure's change as a time (a throughput that falls 61% is +156% of
    time per unit; a wall time that moves as much, significantly or not, follows the figure;
    one that moves a little, even significantly, does not). Such a program runs for a fixed time. points
    carry wall_samples (speed_apply).
    """
    for p in points:
        base = defaults.get(p["tag"])
        if p["env"] == "" or base is None or not p.get("wall_samples") or not base.get("wall_samples"):
            continue
        wall = stats.compare_samples(base["wall_samples"], p["wall_samples"], threshold, alpha)
        key, name = ("metric", p["metric_name"]) if p.get("metric_name") else ("cpu", "CPU time")
        if speed_moves(base, p, key, threshold, alpha):
            figure = stats.compare_samples(base[key + "_samples"], p[key + "_samples"], threshold, alpha)
            as_time = figure["change"] if key == "cpu" else stats.compare_samples(
                speed_metric_seconds(base), speed_metric_seconds(p), threshold, alpha)["change"]
            followed = abs(wall["change"]) >= WALL_SHARE * abs(as_time)
            if not followed:
                return (f"wall time is not this program's speed: {p['label']} moved {name} by "
                        f"{figure['change'] * 100:+.1f}% while wall time moved {wall['change'] * 100:+.1f}% "
                        f"({wall['verdict']}) (a program that runs for a fixed time?); give --metric "
                        f"NAME=REGEX[,higher] to rank on the figure it prints, --speed cpu if it does a fixed "
                        f"amount of work, or --wall-anyway to rank on wall time anyway")
    return None
