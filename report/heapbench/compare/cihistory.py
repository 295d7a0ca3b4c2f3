"""cihistory.py - `heapbench ci --history URL`: the gate against the same testbed's own past (heapbench.history).

Always holds: the new run is compared only with points of its own testbed (heapbench.testbed: the
machine facts that move the numbers), in absolute values; a history with no point of that
testbed is exit 2 naming the testbeds it has. Per cell and metric the reference is the window of
the series: its last WINDOW points (default 10) after its last change point (history.changes), so
a change that was accepted earlier is the new normal. The test is a prediction test on medians:
the new run's median against the window's point medians, t = (x - mean) / (sd * sqrt(1 + 1/N))
with N - 1 degrees of freedom, two-sided; it carries the run-to-run spread of the machine, which
the reps of one run do not; its prediction interval is the interval of the change that the
verdict (stats.stats_verdict) holds within +-threshold for SAME. Fewer than MIN_POINTS points is
UNDECIDED (the gate is then UNDECIDED unless --allow-unknown). Like the baseline mode, batch 1 screens uncorrected and only a suspect
confirmed on a re-run (Holm over the suspects of a metric) fails, and so does a run of which a
cell had a run that did not end ok (failed, crashed, timed out): it is never added; batch 1 and the re-runs go into
directories of their own (batch1-TIME-PID, confirm-TIME-PID-K), so a reused -o never holds them
already. Each series' threshold comes
from its own spread: SPREAD_FACTOR times the window's prediction half-width, never below the
metric's floor (--threshold or .heapbench.toml, else cells.threshold's tight form: 2% for counts
and peak RSS, 5% for time), nor below a grain of 128 KiB of peak RSS or 32 page faults (GRAIN: a
small process's figures move by whole mappings from run to run); so a new run within the window's 95% prediction interval is SAME, and
a tight series gates a small change (--fixed-thresholds, the older rule: the thresholds as given,
else compare's fixed defaults). --add adds batch 1 to the
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
from heapbench import cells
from heapbench.compare import metricchoice
from heapbench.compare import gate
from heapbench.compare import launch
from heapbench.history import changes
from heapbench.history.db import HistoryError
from heapbench.history.store import open_store
from heapbench.testbed import testbed_of

PROG = "heapbench ci"
WINDOW = 10
MIN_POINTS = 3
SPREAD_FACTOR = 3    # a series' threshold: this many times its window's 95% prediction half-width, at least the floor
METRICS = ("wall_s", "maxrss_kb", "minflt", "p99", "p99.9")   # the default --metrics of ci --history


def open_history(url, readonly):
    """The Store of --history's URL ('' or None: the default history), read-only unless the run is
    to be added; exit 2 when it cannot be opened."""
    try:
        return open_store(url or None, readonly=readonly)
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


def floor(metric, thresholds, fixed=False):
    """The floor of a metric's threshold: thresholds' (--threshold, .heapbench.toml) for the metric or
    its bare name, else cells.threshold's tight form (2% for counts and peak RSS, 5% for time); with
    fixed (the older rule, --fixed-thresholds) compare's fixed defaults (10% memory, 5% time)."""
    return thresholds.get(metric, thresholds.get(metric.split(":", 1)[0], cells.threshold(metric, not fixed)))


# The grain of a memory figure: peak RSS and page faults of a small process move by whole mappings
# (a thread's stack, an arena's first heap, a library's pages) from run to run however quiet the
# machine, so a series' threshold is never below this much of its median (128 KiB, 32 faults).
GRAIN = {"maxrss_kb": 128, "minflt": 32}


def series_threshold(low, figures, fixed=False, metric=""):
    """The threshold of one series: SPREAD_FACTOR x its window's prediction half-width (relative),
    never below low nor below the metric's GRAIN of the window's median; low itself when fixed or
    when the window is too short for a spread."""
    half = stats.stats_resolution(figures)
    if fixed or math.isnan(half):
        return low
    base = figures.get("base_median")
    grain = GRAIN.get(metric, 0) / base if base and base > 0 else 0.0
    return max(low, SPREAD_FACTOR * half, grain)


def judge(new, series, metric_names, settings, testbed, holm, last=WINDOW):
    """The comparison of a loaded run with the history's series {(cell label, metric): [Point]}:
    {rows, missing, extra} like verdicts.run() (holm=False: batch 1's screening)."""
    grouped = cells.group(new["runs"])
    history_cells = {c for c, _ in series}
    rows = []
    for metric in metric_names:
        low = floor(metric, settings["thresholds"], settings.get("fixed_thresholds", False))
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
            threshold = series_threshold(low, figures, settings.get("fixed_thresholds", False), metric)
            verdict, _ = stats.stats_verdict(figures, p_adj, threshold, settings["alpha"], family,
                                             lower_is_better=metric not in settings["higher"],
                                             same_rule=settings.get("same_rule", stats.SAME_EQUIVALENCE))
            if verdict == stats.UNDECIDED and not figures["note"] and figures["n_new"]:
                figures = dict(figures, note=f"its interval (+-{stats.stats_resolution(figures) * 100:.1f}%, the "
                               f"window's spread) reaches beyond +-{threshold * 100:.3g}%: more reps of this run "
                               "do not narrow it")
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


def require_testbed(store, testbed):
    """Exit 2 unless the history has points of testbed, naming the testbeds it has."""
    names = [t.name for t in store.testbeds()]
    if testbed.name in names:
        return
    have = f"it has {', '.join(names)}" if names else "it is empty"
    facts = ", ".join(f"{k} {v}" for k, v in testbed.fields.items() if v is not None)
    cli.usage_exit(PROG, f"history {store.where} has no run of this machine's testbed {testbed.name} ({facts}); "
                   f"{have}. Seed it on this machine with 'heapbench ci --history URL --update-baseline' "
                   "(same matrix options; adds the run without gating) or 'heapbench history add DIR'")


def add(store, run_dir, args, testbed):
    """Adds run_dir to the history with args' --label and --commit (exit 2 on a history error) and says so."""
    try:
        added = store.add(run_dir, label=args.label, commit=args.commit)
    except HistoryError as err:
        cli.usage_exit(PROG, str(err))
    fresh = any(a for _, _, a in added)
    print(f"ci: {'added' if fresh else 'already had'} {run_dir} in the history of testbed {testbed} "
          f"({store.where})", file=sys.stderr)


def failed_cells(new):
    """'label (statuses)' of every cell of a loaded run with a run that did not end ok (failed,
    crashed, timeout, oom; a skipped run, whose allocator is missing, was never run)."""
    bad = {}
    for row in new["runs"]:
        if row.get("status") not in ("ok", "skipped"):
            bad.setdefault(cells.label(results.cell_key(row, results.MATCH_KEY)), set()).add(str(row.get("status")))
    return [f"{label} ({','.join(sorted(st))})" for label, st in sorted(bad.items())]


def refuse_failed(bad, batch1):
    """The FAIL of a batch 1 with failed cells: one line naming them (at most three); EXIT_FAIL."""
    named = "; ".join(bad[:3]) + (f"; and {len(bad) - 3} more" if len(bad) > 3 else "")
    print(f"ci: FAIL: {len(bad)} cell(s) of this run had runs that did not end ok ({named}): a build whose runs "
          f"fail does not pass, and nothing of it was added to the history; see {batch1}/runs.csv (reason column)",
          file=sys.stderr)
    return gate.EXIT_FAIL


def batch_name():
    """The directory of batch 1, whose name is the run id in the history: unique per time and process
    (a CI job that reuses one -o directory still adds a new run each time)."""
    return time.strftime("batch1-%Y%m%d-%H%M%S-", time.gmtime()) + str(os.getpid())


def gate_history(args, settings, out_dir, matrix):
    """The history mode of `heapbench ci`: returns (screen, confirmed, finish) where finish(result)
    prints the gate's outcome, adds the run after a pass with --add and returns the exit status;
    None when --update-baseline already added it. A run with a failed cell is a FAIL and is never
    added (--update-baseline included), whatever --allow-unknown."""
    store = open_history(args.history, readonly=not (args.add or args.update_baseline))
    batch1 = os.path.join(out_dir, batch_name())
    launch.batch(args, batch1, matrix, args.reps)
    try:
        new = results.load(batch1)
    except results.ResultsError as err:
        cli.usage_exit(PROG, str(err))
    testbed = testbed_of(new["meta"])
    bad = failed_cells(new)
    if args.update_baseline:
        if bad:
            store.close()
            sys.exit(refuse_failed(bad, batch1))
        add(store, batch1, args, testbed.name)
        store.close()
        return None
    require_testbed(store, testbed)
    if args.add and args.label is not None and any(r.label == args.label for r in store.runs(testbed.name)):
        cli.usage_exit(PROG, f"--label {args.label!r} already names a run of testbed {testbed.name} in {store.where}; "
                       "give each run its own --label (nothing was gated or added)")
    names = metrics_of(new, settings, store, testbed.name)
    series = store.all_series(testbed.name, names)
    print(f"ci: testbed {testbed.name}: gating against its last {args.window} points after the last change point "
          f"of each series ({store.where})", file=sys.stderr)
    floors = ", ".join(f"{m} {floor(m, settings['thresholds'], settings.get('fixed_thresholds')) * 100:.3g}%"
                       for m in names)
    rule = ("as given" if settings.get("fixed_thresholds") else
            f"{SPREAD_FACTOR} x each series' spread over its window, at least the floor")
    print(f"ci: thresholds {rule}: {floors} (each row's in compare.csv)", file=sys.stderr)
    screen = judge(new, series, names, settings, testbed.name, holm=False, last=args.window)
    gate.check_shared(screen, batch1, f"the history of testbed {testbed.name}",
                      "run the matrix the history holds, or seed this matrix with --update-baseline")
    suspects = [r for r in screen["rows"] if r["verdict"] == stats.REGRESSION]
    print(f"ci: batch 1 (screening, uncorrected): {len(suspects)} suspect cell x metric", file=sys.stderr)
    confirmed = {}
    if suspects:
        stem = "confirm" + os.path.basename(batch1)[len("batch1"):]  # unique like batch 1's
        runs = launch.rerun(args, suspects, out_dir, args.reps, stem=stem)
        again = judge({"runs": runs}, series, names, settings, testbed.name, holm=True, last=args.window)
        wanted = {(r["label"], r["metric"]) for r in suspects}
        confirmed = {(r["label"], r["metric"]): r for r in again["rows"] if (r["label"], r["metric"]) in wanted}

    def finish(result):
        status = refuse_failed(bad, batch1) if bad else gate.outcome(result, args.allow_unknown, out_dir)
        if status == gate.EXIT_PASS and args.add:
            add(store, batch1, args, testbed.name)
        store.close()
        return status
    return screen, confirmed, finish

