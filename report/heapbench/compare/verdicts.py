"""verdicts.py - the comparison of two loaded results directories: one verdict per cell and metric.

Always holds: cells are matched by heapbench.cells (absolute figures never across hosts or
testbeds, heapbench.compare.crossing: that raises CompareError unless relative); within one metric the p-values of all
compared cells form one Holm family (unless holm=False, the screening mode of `heapbench ci`,
whose suspects must then be confirmed on fresh data); every verdict is stats.stats_verdict's
(REGRESSION/IMPROVEMENT: significant and beyond the metric's threshold; SAME: the interval within
+-threshold; UNDECIDED otherwise, with the interval's half-width as resolution); the times and
memory of runs measured under instrumentation are never judged (metricchoice.comparable); latency quantiles
of two --latency modes are never compared (CompareError), and every verdict of runs of which one
timed every call (--latency all) says so in its note. Latency
quantiles (latency.csv) are metrics like any runs.csv column: p99 stands for one metric per
phase and operation, 'p99:<phase>:<op>', whose sample is one value per ok rep (lower is better).
A replay (trace:FILE cell) is judged by its replay alone (heapbench.judged): its wall_s is the replay
less the replayer's own, its maxrss_kb its heap, and its rows name those metrics replay_s and heap_kb.
"""
from heapbench import cells
from heapbench.compare import crossing
from heapbench.compare import metricchoice
from heapbench import latency, stats
from heapbench.judged import judged as judged_data, metric_name


class CompareError(Exception):
    """A comparison that cannot be made as asked (message says what to do); exit 2."""


def known_metrics(data):
    """Numeric columns of runs.csv that can be compared (counters, rusage, metric_*)."""
    fixed = {"schema", "run_id", "host", "run", "workload", "allocator", "threads", "params", "env",
             "rep", "status", "reason", "exit_code", "signal", "served_by"}
    names = []
    for row in data["runs"][:1]:
        names = [k for k in row if k not in fixed]
    return names


def _check_metrics(metrics, base, new):
    """Raises CompareError for a metric column absent from either runs.csv, or a perf counter
    that was unavailable (all empty) in either run - with the reason meta.json gives."""
    for data in (base, new):
        known = known_metrics(data)
        if data["runs"] and known:
            unknown = [m for m in metrics if m not in known and not latency.is_metric(m)]
            if unknown:
                raise CompareError(f"{data['dir']}: no column {', '.join(unknown)} in runs.csv; "
                                     f"pick --metrics from: {', '.join(known)}")
        for metric in metrics:
            why = data["meta"].get("counters", {}).get(metric, "ok")
            if why != "ok" and all(r.get(metric) is None for r in data["runs"]):
                raise CompareError(f"{data['dir']}: counter {metric} was not measured ({why}); "
                                     "pick another --metric, e.g. task_clock_ms or minflt")


def _latency_metrics(metrics, base, new):
    """metrics with each bare latency column (p99) replaced by its per-phase, per-op metrics of
    either run (their values attached to the runs rows); raises CompareError when only latency
    metrics were asked for and neither run has latency.csv rows."""
    known = sorted(set(latency.attach(base)) | set(latency.attach(new)))
    expanded = latency.expand(metrics, known)
    if not expanded:
        raise CompareError(f"no latency.csv rows in {base['dir']} or {new['dir']}: run both with "
                           "'heapbench run --latency=sampled' (the default) or pick runs.csv --metrics")
    return expanded


def higher_metrics(base, new):
    """Metrics where higher is better according to either run's meta.json ('metrics': {NAME: 'higher'},
    the runner's --metric NAME=REGEX,higher), as runs.csv column names (metric_NAME)."""
    return {f"metric_{name}" for data in (base, new)
            for name, way in data["meta"].get("metrics", {}).items() if way == "higher"}


def latency_mode(data):
    """The --latency mode a results directory was measured with (meta.json latency.mode; off when absent)."""
    lat = data["meta"].get("latency")
    mode = lat.get("mode") if isinstance(lat, dict) else None
    return mode if isinstance(mode, str) and mode else latency.OFF


def _check_latency_modes(metrics, base, new):
    """Raises CompareError when latency quantiles of two --latency modes would be compared (all
    times every call, sampled about one in 64: the distributions differ); returns the note that
    marks every other verdict when one side ran with all (its timing distorts throughput), else ''."""
    modes = latency_mode(base), latency_mode(new)
    if modes[0] == modes[1]:
        return ""
    timed = [m for m in metrics if latency.is_metric(m)]
    if timed and latency.OFF not in modes:
        raise CompareError(f"BASE was measured with --latency {modes[0]} and NEW with --latency {modes[1]}: their "
                           f"latency quantiles ({', '.join(timed[:3])}{', ...' if len(timed) > 3 else ''}) are not "
                           "comparable; compare runs of one --latency mode, or pick runs.csv --metrics")
    if latency.ALL in modes:
        return f"latency modes differ: BASE {modes[0]}, NEW {modes[1]} ({latency.ALL} times every call: slower)"
    return ""


def _note(cell, reference):
    """Why a cell has no verdict-worthy data ('' when it has)."""
    if cell["n_base"] and cell["n_new"]:
        return ""
    side = "BASE" if not cell["n_base"] else "NEW"
    why = f"no ok run with the metric and a {reference} run of the same rep" if reference else "no ok run with the metric"
    return f"{side}: {why}"


def run(base, new, metrics=cells.DEFAULT_METRICS, thresholds=None, alpha=0.05,
        relative=False, reference="glibc", holm=True, higher=(), seed=0,
        crossing_fix="add --relative (ratios to glibc in the same run)", same_rule=stats.SAME_EQUIVALENCE):
    """Compares two results.load() dicts.

    thresholds: {metric: fraction} overriding cells.threshold(). higher: metrics where higher
    is better. same_rule: one of stats.SAME_RULES (SAME_SIGNIFICANCE: the older, lenient SAME).
    crossing_fix: what the refusal of an absolute comparison across hosts or testbeds tells the
    user to do. Returns dict(rows, missing, extra): rows are one dict per (cell, metric) with the
    fields of COLUMNS; missing/extra are cell labels only in base/new. A cell that had ok runs in
    base and whose every run in new failed, crashed or timed out is a REGRESSION (note says so).
    """
    thresholds = thresholds or {}
    higher = set(higher) | higher_metrics(base, new)
    metrics, skipped = metricchoice.comparable(metrics, base, new)
    if not metrics:
        raise CompareError(f"{skipped.split(' not gated')[0]}: nothing left to compare; compare the counts "
                           "(--metrics metric_instructions), or runs measured without --count-instructions")
    metrics = _latency_metrics(metrics, base, new)
    _check_metrics(metrics, base, new)
    base_cells = cells.group(judged_data(base)["runs"])
    new_cells = cells.group(judged_data(new)["runs"])
    pairs, missing, extra = cells.pair(base_cells, new_cells)
    try:
        crossing.check(pairs, base, new, relative, crossing_fix)
    except crossing.CrossingError as err:
        raise CompareError(str(err)) from None
    mode_note = _check_latency_modes(metrics, base, new)
    ref = reference if relative else None
    if relative:
        for data in (base, new):
            if not any(r.get("allocator") == reference for r in data["runs"]):
                raise CompareError(f"{data['dir']}: no {reference} runs, and --relative divides by them; "
                                     f"include {reference} in the run (-a ...,{reference}) or drop --relative")
        pairs = [p for p in pairs if p[0][1] != reference]
    rows = []
    for metric in metrics:
        threshold = thresholds.get(metric, thresholds.get(metric.split(":", 1)[0], cells.threshold(metric, relative)))
        judged = []
        for key, bhost, nhost in pairs:
            b = cells.sample(base_cells, key, bhost, metric, ref)
            n = cells.sample(new_cells, key, nhost, metric, ref)
            judged.append((key, bhost, nhost, stats.stats_cell(b, n, seed, stats.stats_interval_level(alpha))))
        tested = [i for i, c in enumerate(judged) if c[3]["n_base"] and c[3]["n_new"]]
        adjusted = [1.0] * len(judged)
        raw = [judged[i][3]["p"] for i in tested]
        for i, p in zip(tested, stats.stats_holm(raw) if holm else raw):
            adjusted[i] = p
        family = len(tested) if holm else 1
        for (key, bhost, nhost, cell), p_adj in zip(judged, adjusted):
            verdict, needed = stats.stats_verdict(cell, p_adj, threshold, alpha, family,
                                                  lower_is_better=metric not in higher, same_rule=same_rule)
            note = "; ".join(filter(None, (_note(cell, ref), mode_note)))
            broken = cells.broken(new_cells, key, nhost)
            if broken and cell["n_base"]:
                verdict, needed, note = stats.REGRESSION, 0, f"NEW: every run ended {broken}"
            row = dict(zip(cells.MATCH_KEY, key))
            row.update(cell, host_base=bhost, host_new=nhost, metric=metric_name(key[0], metric), note=note,
                       value="ratio to " + reference if relative else "absolute",
                       threshold=threshold, p_holm=p_adj, verdict=verdict, needed_reps=needed,
                       label=cells.label(key))
            rows.append(row)
    return {"rows": rows, "skipped": skipped,
            "missing": [cells.label(k) + f" @{h}" for k, h in missing],
            "extra": [cells.label(k) + f" @{h}" for k, h in extra]}


# resolution: the interval's half-width (stats.stats_resolution), computed by the writer from ci_low, ci_high
COLUMNS = ("workload", "allocator", "threads", "params", "env", "host_base", "host_new", "metric",
           "value", "n_base", "n_new", "base_median", "new_median", "change", "ci_low", "ci_high",
           "p", "p_holm", "threshold", "verdict", "needed_reps", "resolution", "note")


def count(result, verdict):
    """Number of rows of a run() result with the given verdict."""
    return sum(1 for r in result["rows"] if r["verdict"] == verdict)
