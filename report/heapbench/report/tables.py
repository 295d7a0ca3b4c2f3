"""tables.py - the report's tables, built from a Summary as document.Table objects of formatted strings.

Always holds: a table never drops a cell or a non-ok run: cells without ok runs show
their statuses, and failures_table lists every failed, timed-out, crashed and skipped run
(grouped by cell, status and reason, with the repetitions named). Ratios are to
Summary.baseline; '-' means nothing to compare (no ok run on one side, or no baseline).
"""
from heapbench import judged, memory
from heapbench import latency
from heapbench.median import median
from heapbench.report.cells import variant_label
from heapbench.report.document import Table

FOLD_ROWS = 12  # detail tables longer than this are folded in the HTML (failures never are)
CLASSIC_REQUESTS = (1, 8, 16, 17, 24, 25, 32, 48, 100, 128, 200, 512, 1000, 4096, 16384, 100000, 1000000)
META_FIELDS = (("host", "host"), ("cpu_model", "CPU"), ("cores", "cores"), ("kernel", "kernel"),
               ("thp", "transparent huge pages"), ("glibc_version", "glibc"), ("git_commit", "heapbench commit"),
               ("command_line", "command line"), ("start", "start"), ("end", "end"), ("quick", "quick"),
               ("reps", "repetitions"), ("warmup", "warm-up runs"), ("timeout_s", "timeout (s)"),
               ("interval_ms", "RSS sampling interval (ms)"), ("order", "run order"), ("cells", "cells"))


def fmt(value, digits=3):
    """A number with `digits` significant digits, '-' for None."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.0f}" if abs(value) >= 10 ** digits else f"{value:.{digits}g}"
    return str(value)


def fmt_ratio(value):
    """A ratio as '0.82x', '-' for None."""
    return "-" if value is None else f"{value:.2f}x"


def fmt_spread(ratio):
    """(median, min, max) as '0.82x (0.80-0.85)', '-' for None."""
    return "-" if ratio is None else f"{ratio[0]:.2f}x ({ratio[1]:.2f}-{ratio[2]:.2f})"


def machine_table(summary):
    """What was measured where: the fields of meta.json."""
    meta = summary.meta
    rows = [[label, fmt(meta.get(key))] for key, label in META_FIELDS if key in meta]
    if len(summary.hosts) > 1:
        rows.append(["hosts in the runs", ", ".join(summary.hosts)])
    rows.append(["baseline of all ratios", summary.baseline or "none (no allocator has an ok run)"])
    return Table("Machine and run", ["field", "value"], rows)


def allocators_table(summary):
    """Every allocator of meta.json (found or not) with version, package, path and sha256 prefix."""
    allocs = summary.meta.get("allocators") or {}
    rows, flagged = [], set()
    for name in list(allocs) + [a for a in summary.allocators if a not in allocs]:
        info = allocs.get(name) or {}
        if info.get("status", "found") != "found":
            flagged.add(len(rows))
        rows.append([name, info.get("status", "not in meta.json"), info.get("version", ""), info.get("package", ""),
                     info.get("path", ""), (info.get("sha256") or "")[:16]])
    return Table("Allocators", ["allocator", "status", "version", "package", "library", "sha256 (prefix)"], rows,
                 flagged=flagged)


def unavailable_table(summary):
    """Counters that were not measured, with the reason meta.json gives; None when all were measured."""
    counters = summary.meta.get("counters") or {}
    rows = [[name, reason] for name, reason in counters.items() if reason != "ok"]
    if not rows:
        return None
    return Table("Counters not measured", ["counter", "reason"], rows,
                 note="Their columns are empty in runs.csv (never 0); they are left out of the charts.")


def leaderboard_table(summary):
    """Per allocator: geomean time and peak-RSS ratio over compared cells, failed and skipped cell counts."""
    rows, flagged = [], set()
    board = summary.leaderboard()
    board.sort(key=lambda b: (b["time"] is None, b["time"] or 0))
    for b in board:
        if b["failed"] or b["skipped"]:
            flagged.add(len(rows))
        rows.append([b["allocator"], fmt_ratio(b["time"]), fmt_ratio(b["rss"]), f"{b['compared']}/{b['cells']}",
                     str(b["failed"]), str(b["skipped"])])
    return Table(f"Leaderboard (relative to {summary.baseline}, lower is better)",
                 ["allocator", "time (geomean)", "peak RSS (geomean)", "cells compared", "failed cells",
                  "skipped cells"], rows, flagged=flagged,
                 note="Geometric mean over workload cells of the cell's median divided by the baseline's median "
                      "in the same cell; failed = a cell with a failed, timed-out or crashed run. A replay "
                      f"(trace:FILE cell) is judged by its replay alone: time = {judged.WORDS['wall_s']}, "
                      f"peak RSS = {judged.WORDS['maxrss_kb']}.")


def _status_text(cell):
    """'ok 3/3' or the counts of each status of a cell's runs."""
    counts = {}
    for row in cell.rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    return " ".join(f"{s} {n}" for s, n in sorted(counts.items(), key=lambda kv: kv[0] != "ok")) + f" /{len(cell.rows)}"


def workload_table(summary, workload):
    """Every cell of one workload: median wall and peak RSS with ratio and spread, run statuses."""
    rows, flagged = [], set()
    multi = len(summary.hosts) > 1
    for variant in summary.variants(workload):
        for alloc in summary.allocators:
            cell = summary.by_variant[variant].get(alloc)
            if cell is None:
                continue
            if set(cell.statuses()) - {"ok"}:
                flagged.add(len(rows))
            rss = cell.median("maxrss_kb")
            rows.append([variant_label(variant, multi), alloc, _status_text(cell), fmt(cell.median("wall_s")),
                         fmt_spread(summary.ratio(cell, "wall_s")), fmt(rss / 1024.0 if rss else None),
                         fmt_spread(summary.ratio(cell, "maxrss_kb"))])
    trace = judged.is_trace(workload)
    return Table(f"{workload}: every cell", ["variant", "allocator", "runs",
                                             "median replay - self (s)" if trace else "median wall (s)",
                                             f"time / {summary.baseline} (min-max)",
                                             "median heap (MiB)" if trace else "median peak RSS (MiB)",
                                             f"{'heap' if trace else 'RSS'} / {summary.baseline} (min-max)"],
                 rows, flagged=flagged, folded=len(rows) > FOLD_ROWS,
                 note=f"A replay is judged by its replay alone: time = {judged.WORDS['wall_s']}, heap = "
                      f"{judged.WORDS['maxrss_kb']}; the process's own figures are in the Replays section."
                      if trace else "")


def failures_table(summary):
    """Every non-ok run, grouped by allocator, status and reason, naming each cell and repetition; None if none."""
    groups = summary.bad_rows()
    if not groups:
        return None
    multi = len(summary.hosts) > 1
    rows = []
    for (alloc, status, reason), cells in groups.items():
        every = len(summary.by_allocator[alloc])
        if len(cells) == every and all(len(reps) == len(cell.rows) for cell, reps in cells):
            where = f"every cell of {alloc} ({every})"
        else:
            where = "; ".join(f"{cell.workload} {variant_label(cell.variant, multi)} rep {','.join(map(str, reps))}"
                              for cell, reps in cells)
        rows.append([alloc, status, reason or "(no reason given)", str(sum(len(r) for _, r in cells)), where])
    return Table("Runs that did not succeed", ["allocator", "status", "reason", "runs", "cells"],
                 rows, flagged=set(range(len(rows))))


def scaling_table(summary, groups):
    """Median throughput (ops/s) per thread count and allocator for each scaling group."""
    rows = []
    for workload, host, params, env, threads in groups:
        for t in threads:
            cells = summary.by_variant[(host, workload, t, params, env)]
            rows.append([workload, " ".join(x for x in (params, env) if x), str(t)] +
                        [fmt(summary.throughput(cells[a])) if a in cells else "-" for a in summary.allocators])
    return Table("Thread scaling: throughput (ops/s, median)", ["workload", "params/env", "threads"] +
                 list(summary.allocators), rows, folded=len(rows) > FOLD_ROWS)


def overhead_table(summary, workloads):
    """RSS and live requested bytes at each phase end, and their ratio, for the given workloads."""
    medians = summary.phase_medians()
    rows = []
    for variant in [v for w in workloads for v in summary.variants(w) if v in medians]:
        names, values = medians[variant]
        for phase in names:
            for alloc in summary.allocators:
                if (alloc, phase) in values:
                    rss_kb, live = values[(alloc, phase)]
                    rows.append([variant[1], variant_label(variant, len(summary.hosts) > 1), phase, alloc,
                                 fmt(rss_kb / 1024.0), fmt(live / 2 ** 20),
                                 fmt_ratio(rss_kb * 1024.0 / live) if live else "-"])
    return Table("Memory overhead by phase (medians of ok runs)",
                 ["workload", "variant", "phase", "allocator", "RSS (MiB)", "live requested (MiB)", "RSS / live"],
                 rows, folded=len(rows) > FOLD_ROWS)


def memory_table(summary, workloads):
    """Per cell of the given (server) workloads: RSS drift over the steady cycles, the fraction of
    the reclaimable memory returned at each idle mark and the first mark by which half was back
    (medians over the ok runs; docs/MEMORY.md defines them)."""
    by_run = {}
    for row in summary.data["phases"]:
        by_run.setdefault(row["run"], []).append(row)
    rows, marks = [], set()
    for variant in [v for w in workloads for v in summary.variants(w)]:
        for alloc, cell in summary.by_variant[variant].items():
            got = [m for m in (memory.run_metrics(by_run.get(r["run"], [])) for r in cell.ok_rows()) if m]
            if not got:
                continue
            returned = {}
            for m in got:
                for s, frac in m["returned"].items():
                    returned.setdefault(s, []).append(frac)
            marks.update(returned)
            drifts = [m["drift_kb"] for m in got if m["drift_kb"] is not None]
            halves = [s for m in got for s in m["half_s"].values()]
            rows.append((variant, alloc, len(got), median(drifts),
                         {s: median(v) for s, v in returned.items()}, halves))
    marks = sorted(marks)
    out = [[v[1], variant_label(v, len(summary.hosts) > 1), alloc, str(n), fmt(drift)] +
           ["-" if ret.get(s) is None else f"{ret[s]:.2f}" for s in marks] + [memory.half_text(halves)]
           for v, alloc, n, drift, ret, halves in rows]
    return Table("Memory given back after load (server)",
                 ["workload", "variant", "allocator", "runs", "RSS drift (KiB/cycle)"] +
                 [f"returned at +{s:g} s" for s in marks] + ["half returned by"],
                 out, note="returned: fraction of the reclaimable memory (RSS - live at the end of a load) "
                           "given back at each idle mark, median over steady cycles and runs; drift: slope of "
                           "end-of-load RSS over the cycles at a constant live set (needs 2 or more)")


def sizes_table(curves, allocators):
    """malloc_usable_size of the classic requests per allocator (from plots_sizes.size_curves)."""
    allocs = [a for a in allocators if a in curves] + sorted(set(curves) - set(allocators))
    lookup = {a: dict(zip(curves[a][0].tolist(), curves[a][1].tolist())) for a in allocs}
    rows = [[str(req)] + [fmt(int(lookup[a][req])) if req in lookup[a] else "-" for a in allocs]
            for req in CLASSIC_REQUESTS if any(req in lookup[a] for a in allocs)]
    return Table("Usable size of the classic requests (bytes)", ["request"] + allocs, rows)


def counters_table(summary):
    """Per counter column: geomean ratio to the baseline for each allocator and the baseline's median range."""
    rows = []
    for column in summary.counter_columns():
        base = [c.median(column) for c in summary.by_allocator.get(summary.baseline, [])]
        base = [b for b in base if b is not None]
        ratios = [fmt_ratio(summary.allocator_ratio(alloc, column)[0]) for alloc in summary.allocators]
        span = f"{fmt(min(base))} .. {fmt(max(base))}" if base else "-"
        rows.append([column, span] + ratios)
    return Table(f"Counters: geomean of cell medians relative to {summary.baseline}",
                 ["counter", f"{summary.baseline} median range"] + list(summary.allocators), rows,
                 note="'-': the counter is zero in the baseline or absent for that allocator.")


def metrics_table(summary):
    """Figures read from the programs' output (exec --metric): median per cell, ratio, better direction."""
    directions = summary.meta.get("metrics") or {}
    rows = []
    for column in summary.metric_columns():
        name = column[len("metric_"):]
        for cell in sorted(summary.cells.values(), key=lambda c: (c.workload, c.variant, c.allocator)):
            if cell.median(column) is not None:
                ratio = summary.ratio(cell, column)
                rows.append([name, cell.workload, variant_label(cell.variant, len(summary.hosts) > 1),
                             cell.allocator, fmt(cell.median(column)), fmt_ratio(ratio[0] if ratio else None),
                             f"{directions.get(name, 'lower')} is better"])
    return Table("Program metrics (heapbench exec --metric), medians of ok runs",
                 ["metric", "program", "variant", "allocator", "median", f"/ {summary.baseline}", "direction"], rows)


def hyperfine_table(rows):
    """hyperfine.csv (exec --hyperfine) as a table, flagged rows highlighted; None when there are no rows."""
    if not rows:
        return None
    out, flagged = [], set()
    for row in rows:
        if row.get("flag") not in (None, "", "ok"):  # heapbench.hyperfine writes ok, differs or failed
            flagged.add(len(out))
        out.append([row.get("workload", ""), row.get("allocator", ""), row.get("params", ""), row.get("env", ""),
                    fmt(row.get("hyperfine_median_s")), fmt(row.get("heapbench_median_s")),
                    fmt(row.get("diff_pct")), str(row.get("flag") or "")])
    return Table("hyperfine cross-check", ["command", "allocator", "params", "env", "hyperfine median (s)",
                                           "heapbench median (s)", "diff %", "flag"], out, flagged=flagged,
                 note="Flagged rows: the two medians differ by more than 5% (differs) or hyperfine saw a failure.")


def latency_table(summary, cells, workloads, latency_panels):
    """p50, p99, p99.9 and max (ns) per workload variant (at its largest thread count), op and allocator,
    from the exact merge of every ok rep and phase; samples says what each line rests on. cells and
    latency_panels come from plots_latency (merged_cells, distribution_panels)."""
    rows = []
    for workload in workloads:
        for key in latency_panels(cells, workload):
            host, _, threads, params, env, op = key
            for alloc in summary.allocators:
                merged = cells[key].get(alloc)
                if not merged:
                    continue
                q = [latency.merged_quantile(merged, x) for x in (0.5, 0.99, 0.999)]
                rows.append([workload, " ".join(x for x in (params, env) if x), str(threads), op, alloc,
                             str(merged.samples)] + [fmt(v) for v in q] + [fmt(float(merged.max_ns))])
    return Table("Latency per operation (ns; reps and phases merged)",
                 ["workload", "params/env", "threads", "op", "allocator", "samples", "p50", "p99", "p99.9", "max"],
                 rows, folded=len(rows) > FOLD_ROWS)
