"""plots_rss.py - RSS over time from rss.csv: per workload, one overlaid line per allocator.

Always holds: each line is one real run (never an average of timelines): the ok run whose
wall time is closest to its cell's median, of one representative variant per workload
(the first env and params in order, at the highest thread count that has samples);
the panel title names that variant, so the reader knows what is shown.
"""
import numpy as np

from heapbench import results
from heapbench.report import plotlib
from heapbench.report.cells import series, variant_label

FEW_SAMPLES = 20  # timelines shorter than this get a marker on each sample (a lone sample is no line)


def representative_run(cell, sampled):
    """The ok run of cell in sampled (runs with RSS samples) whose wall time is closest to the cell's median."""
    rows = [r for r in cell.ok_rows() if r["run"] in sampled and isinstance(r.get("wall_s"), (int, float))]
    if not rows:
        return None
    median = float(np.median([r["wall_s"] for r in rows]))
    return min(rows, key=lambda r: (abs(r["wall_s"] - median), r["run"]))


def representative_variant(summary, workload, sampled):
    """The variant shown for a workload: first (host, params, env) in matrix order, highest thread count with samples."""
    groups = {}
    for variant in summary.variants(workload):  # ordered by host, env, params, then threads ascending
        groups.setdefault((variant[0], variant[3], variant[4]), []).append(variant)
    for variants in groups.values():
        for variant in reversed(variants):
            if any(representative_run(c, sampled) for c in summary.by_variant[variant].values()):
                return variant
    return None


def shown_runs(summary):
    """[(workload, variant, [(allocator, run row)])] for every workload with samples, in report order."""
    sampled = set(results.column_values(summary.data["rss"], "run"))
    shown = []
    for workload in summary.workloads:
        variant = representative_variant(summary, workload, sampled)
        if variant:
            cells = [summary.by_variant[variant].get(a) for a in summary.allocators]
            runs = [(c.allocator, representative_run(c, sampled)) for c in cells if c]
            shown.append((workload, variant, [(a, r) for a, r in runs if r]))
    return shown


def draw(summary, outdir):
    """rss-timeline.png with a panel per workload that has samples; returns the file name or None."""
    shown = shown_runs(summary)
    if not shown:
        return None
    wanted = {r["run"] for _, _, runs in shown for _, r in runs}
    lines = series(results.rows_where(summary.data["rss"], "run", wanted), "run", "t", "rss_kb")
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(shown), 2, width=12, row_height=3.0)
    for ax, (workload, variant, runs) in zip(axes, shown):
        for alloc, run in runs:
            if run["run"] in lines:
                ts, kbs = lines[run["run"]]
                ax.plot(ts, kbs / 1024.0, color=colours[alloc], label=f"{alloc} (rep {run['rep']})", linewidth=1.2,
                        marker="." if len(ts) < FEW_SAMPLES else None)
        plotlib.label_panel(ax, f"{workload} {variant_label(variant, len(summary.hosts) > 1)}",
                            "seconds since start", "RSS (MiB)")
    return plotlib.save(fig, outdir, "rss-timeline.png")
