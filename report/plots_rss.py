"""plots_rss.py - RSS over time from rss.csv: per workload, one overlaid line per allocator.

Always holds: each line is one real run (never an average of timelines): the ok run whose
wall time is closest to its cell's median, of one representative variant per workload
(the first env and params in order, at the highest thread count that has samples);
the panel title names that variant, so the reader knows what is shown.
"""
import numpy as np

import plotlib
from cells import series, variant_label

FEW_SAMPLES = 20  # timelines shorter than this get a marker on each sample (a lone sample is no line)


def timelines(rss_rows):
    """run number -> (t array, rss_kb array), samples in time order."""
    return series(rss_rows, "run", "t", "rss_kb")


def representative_run(cell, lines):
    """The ok run of cell with samples whose wall time is closest to the cell's median; None if none."""
    rows = [r for r in cell.ok_rows() if r["run"] in lines and isinstance(r.get("wall_s"), (int, float))]
    if not rows:
        return None
    median = float(np.median([r["wall_s"] for r in rows]))
    return min(rows, key=lambda r: (abs(r["wall_s"] - median), r["run"]))


def representative_variant(summary, workload, lines):
    """The variant shown for a workload: first (host, params, env) in matrix order, highest thread count with samples."""
    groups = {}
    for variant in summary.variants(workload):  # ordered by host, env, params, then threads ascending
        groups.setdefault((variant[0], variant[3], variant[4]), []).append(variant)
    for variants in groups.values():
        for variant in reversed(variants):
            if any(representative_run(c, lines) for c in summary.by_variant[variant].values()):
                return variant
    return None


def draw(summary, outdir):
    """rss-timeline.png with a panel per workload that has samples; returns the file name or None."""
    lines = timelines(summary.data["rss"])
    shown = [(w, v) for w in summary.workloads for v in [representative_variant(summary, w, lines)] if v]
    if not shown:
        return None
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(shown), 2, width=12, row_height=3.0)
    for ax, (workload, variant) in zip(axes, shown):
        for alloc in summary.allocators:
            cell = summary.by_variant[variant].get(alloc)
            run = representative_run(cell, lines) if cell else None
            if run:
                ts, kbs = lines[run["run"]]
                ax.plot(ts, kbs / 1024.0, color=colours[alloc], label=f"{alloc} (rep {run['rep']})", linewidth=1.2,
                        marker="." if len(ts) < FEW_SAMPLES else None)
        ax.set_title(f"{workload} {variant_label(variant, len(summary.hosts) > 1)}")
        ax.set_xlabel("seconds since start")
        ax.set_ylabel("RSS (MiB)")
        ax.set_ylim(bottom=0)
        ax.legend(loc="best", fontsize=7)
    return plotlib.save(fig, outdir, "rss-timeline.png")
