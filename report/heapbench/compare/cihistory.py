"""cihistory.py - `heapbench ci --history URL`: the gate against the same testbed's own past (heapbench.history).

Always holds: the new run is compared only with points of its own testbed (history.testbed: the
machine facts that move the numbers), in absolute values; a history with no point of that
testbed is exit 2 naming the testbeds it has. Per cell and metric the reference is the window of
the series: its last WINDOW points (default 10) after its last change point (history.changes), so
a change that was accepted earlier is the new normal. The test is a prediction test on medians:
the new run's median against the window's point medians, t = (x - mean) / (sd * sqrt(1 + 1/N))
with N - 1 degrees of freedom, two-sided; it carries the run-to-run spread of the machine, which
the reps of one run do not. Fewer than MIN_POINTS points is UNKNOWN (the gate is then UNDECIDED
unless --allow-unknown). Like the baseline mode, batch 1 screens uncorrected and only a suspect
confirmed on a re-run (Holm over the suspects of a metric) fails. --add adds batch 1 to the
history only when the gate passed; --update-baseline adds it without gating (to seed a testbed).
"""
import math
import os
import sys
import time

import numpy as np
from scipy import stats as scipy_stats

from heapbench import cli
from heapbench import latency
from heapbench import results
from heapbench import stats
from heapbench.compare import cells
from heapbench.compare import metricchoice
from heapbench.compare import gate
from heapbench.compare import launch
from heapbench.history import changes
from heapbench.history.db import HistoryError
from heapbench.history.store import open_store
from heapbench.history.testbed import testbed_of

PROG = "heapbench ci"
WINDOW = 10
MIN_POINTS = 3


def open_history(url):
    """The Store of --history's URL ('' or None: the default history); exit 2 when it cannot be opened."""
    try:
        return open_store(url or None)
    except HistoryError as err:
        cli.usage_exit(PROG, str(err))


def window(points, last=WINDOW):
    """(the last `last` points after the series' last change point, that change or None)."""
    found = changes.change_points([p.median for p in points])
    start = found[-1].index if found else 0
    return points[start:][-last:], (found[-1] if found else None)


def prediction(x, medians):
    """(p, half width of the 95% prediction interval) of a new median x against a window's medians:
    two-sided t test of x as one more draw of their distribution; (1.0, nan) below MIN_POINTS."""
    n = len(medians)
    if n < MIN_POINTS:
        return 1.0, float("nan")
    mean, sd = float(np.mean(medians)), float(np.std(medians, ddof=1))
    scale = sd * math.sqrt(1 + 1 / n)
    half = float(scipy_stats.t.ppf(0.975, n - 1)) * scale
    if scale == 0:
        return (1.0 if x == mean else 0.0), 0.0
    return float(2 * scipy_stats.t.sf(abs(x - mean) / scale, n - 1)), half


def cell(new_values, points, testbed):
    """The figures of one cell x metric (the fields of stats.stats_cell): new run's median against
    the window of the series; a note says why there is no verdict when the window is too short."""
    medians = [p.median for p in points]
    x = stats.stats_median(new_values)
    base = stats.stats_median(medians)
    p, half = prediction(x, medians)
    change = stats.stats_change(base, x)
    spread = half / abs(base) if base else float("nan")
    figures = {"n_base": len(medians), "n_new": len(new_values), "base_median": base, "new_median": x,
               "change": change, "ci_low": change - spread, "ci_high": change + spread, "p": p,
               "min_p": 0.0 if len(medians) >= MIN_POINTS else 1.0, "note": ""}
    if len(medians) < MIN_POINTS:
        figures["note"] = (f"testbed {testbed} has {len(medians)} point(s) of this series after its last change; "
                           f"needs {MIN_POINTS}: add passing runs (--add --allow-unknown, or history add)")
    return figures


def judge(new, series, metric_names, settings, testbed, holm, last=WINDOW):
    """The comparison of a loaded run with the history's series {(cell label, metric): [Point]}:
    {rows, missing, extra} like verdicts.run() (holm=False: batch 1's screening)."""
    grouped = cells.group(new["runs"])
    history_cells = {c for c, _ in series}
    rows = []
    for metric in metric_names:
        threshold = settings["thresholds"].get(metric, settings["thresholds"].get(
            metric.split(":", 1)[0], cells.threshold(metric, False)))
        judged = []
        for key in sorted(grouped):
            label = cells.label(key)
            if label not in history_cells:
                continue
            for host in sorted(grouped[key]):
                points, _ = window(series.get((label, metric), []), last)
                judged.append((key, host, cell(cells.sample(grouped, key, host, metric), points, testbed)))
        tested = [i for i, (_, _, c) in enumerate(judged) if not c["note"] and c["n_new"]]
        raw = [judged[i][2]["p"] for i in tested]
        adjusted = dict(zip(tested, stats.stats_holm(raw) if holm else raw))
        family = len(tested) if holm else 1
        for i, (key, host, figures) in enumerate(judged):
            p_adj = adjusted.get(i, 1.0)
            verdict, _ = stats.stats_verdict(figures, p_adj, threshold, settings["alpha"], family,
                                             lower_is_better=metric not in settings["higher"])
            row = dict(zip(cells.MATCH_KEY, key))
            row.update(figures, host_base=f"history:{testbed}", host_new=host, metric=metric,
                       value="absolute vs history", threshold=threshold, p_holm=p_adj, verdict=verdict,
                       needed_reps=0, label=cells.label(key))
            if not figures["n_new"]:
                row["note"] = "NEW: no ok run with the metric"
            rows.append(row)
    new_labels = {cells.label(k) for k in grouped}
    return {"rows": rows, "missing": sorted(history_cells - new_labels), "extra": sorted(new_labels - history_cells)}


def metrics_of(new, settings, store, testbed):
    """The metric names to judge: --metrics with each bare latency quantile expanded to the run's
    (phase, op) metrics; only those the history keeps for the testbed, and of a run measured under
    instrumentation only its counts (metricchoice.comparable, said in one line)."""
    expanded = latency.expand(settings["metrics"], sorted(latency.attach(new)))
    expanded, skipped = metricchoice.comparable(expanded, new)
    if skipped:
        print(f"ci: {skipped}", file=sys.stderr)
    kept = set(store.metrics(testbed))
    missing = [m for m in expanded if m not in kept]
    if missing:
        print(f"ci: warning: the history keeps no {', '.join(missing)} for testbed {testbed}; not gated",
              file=sys.stderr)
    return [m for m in expanded if m in kept]


def require_testbed(store, testbed, url):
    """Exit 2 unless the history has points of testbed, naming the testbeds it has."""
    names = [t.name for t in store.testbeds()]
    if testbed.name in names:
        return
    have = f"it has {', '.join(names)}" if names else "it is empty"
    facts = ", ".join(f"{k} {v}" for k, v in testbed.fields.items() if v is not None)
    cli.usage_exit(PROG, f"history {url or store.where} has no run of this machine's testbed {testbed.name} ({facts}); "
                   f"{have}. Seed it on this machine with 'heapbench ci --history {url or store.where} --update-baseline' "
                   "(same matrix options; adds the run without gating) or 'heapbench history add DIR'")


def add(store, run_dir, label, testbed):
    """Adds run_dir to the history (exit 2 on a history error) and says so."""
    try:
        added = store.add(run_dir, label=label)
    except HistoryError as err:
        cli.usage_exit(PROG, str(err))
    fresh = any(a for _, _, a in added)
    print(f"ci: {'added' if fresh else 'already had'} {run_dir} in the history of testbed {testbed} "
          f"({store.where})", file=sys.stderr)


def batch_name():
    """The directory of batch 1, whose name is the run id in the history: unique per time and process
    (a CI job that reuses one -o directory still adds a new run each time)."""
    return time.strftime("batch1-%Y%m%d-%H%M%S-", time.gmtime()) + str(os.getpid())


def gate_history(args, settings, out_dir, matrix):
    """The history mode of `heapbench ci`: returns (screen, confirmed, finish) where finish(status)
    adds the run after a pass with --add; None when --update-baseline already added it."""
    store = open_history(args.history)
    batch1 = os.path.join(out_dir, batch_name())
    launch.batch(args, batch1, matrix, args.reps)
    try:
        new = results.load(batch1)
    except results.ResultsError as err:
        cli.usage_exit(PROG, str(err))
    testbed = testbed_of(new["meta"])
    if args.update_baseline:
        add(store, batch1, args.label, testbed.name)
        store.close()
        return None
    require_testbed(store, testbed, args.history)
    names = metrics_of(new, settings, store, testbed.name)
    series = store.all_series(testbed.name, names)
    print(f"ci: testbed {testbed.name}: gating against its last {args.window} points after the last change point "
          f"of each series ({store.where})", file=sys.stderr)
    screen = judge(new, series, names, settings, testbed.name, holm=False, last=args.window)
    gate.check_shared(screen, batch1, f"the history of testbed {testbed.name}",
                      "run the matrix the history holds, or seed this matrix with --update-baseline")
    suspects = [r for r in screen["rows"] if r["verdict"] == stats.REGRESSION]
    print(f"ci: batch 1 (screening, uncorrected): {len(suspects)} suspect cell x metric", file=sys.stderr)
    confirmed = {}
    if suspects:
        runs = launch.rerun(args, suspects, out_dir, args.reps)
        again = judge({"runs": runs}, series, names, settings, testbed.name, holm=True, last=args.window)
        wanted = {(r["label"], r["metric"]) for r in suspects}
        confirmed = {(r["label"], r["metric"]): r for r in again["rows"] if (r["label"], r["metric"]) in wanted}

    def finish(status):
        if status == gate.EXIT_PASS and args.add:
            add(store, batch1, args.label, testbed.name)
        store.close()
    return screen, confirmed, finish

