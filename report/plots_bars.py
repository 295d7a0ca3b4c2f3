"""plots_bars.py - per workload, median time and peak RSS of each allocator relative to the baseline, as bars.

Always holds: one PNG per workload with two panels (wall time, peak RSS); a bar is the
median over ok runs divided by the baseline cell's median, its whisker the min..max of the
runs on the same scale; a cell without ok runs gets an 'x' at 1.0 instead of a bar, so a
failure is visible, never a silent gap. The y axis turns logarithmic beyond 5x.
"""
import numpy as np

import plotlib
from cells import variant_label

METRICS = (("wall_s", "wall time"), ("maxrss_kb", "peak RSS"))
ROTATE = 30  # degrees of the variant labels when there are more than three
WIDE = 8     # more variants than this: the two panels are stacked, each the full width


def labels(summary, variants):
    """The x tick labels of a workload's variants."""
    return [variant_label(v, len(summary.hosts) > 1) for v in variants]


def _panel(ax, summary, workload, column, title, colours):
    """Draws one metric of one workload on ax: groups = variants, bars = allocators."""
    variants = summary.variants(workload)
    allocs = [a for a in summary.allocators if any(a in summary.by_variant[v] for v in variants)]
    width = 0.8 / max(1, len(allocs))
    top = 1.0
    whiskers = ([], [], [])  # x, min, max of every bar: drawn at once (errorbar per call is slow)
    for i, alloc in enumerate(allocs):
        xs, meds, failed_x = [], [], []
        for j, variant in enumerate(variants):
            cell = summary.by_variant[variant].get(alloc)
            ratio = summary.ratio(cell, column) if cell else None
            x = j - 0.4 + width * (i + 0.5)
            if ratio:
                xs.append(x)
                meds.append(ratio[0])
                for coords, value in zip(whiskers, (x, ratio[1], ratio[2])):
                    coords.append(value)
                top = max(top, ratio[2])
            elif cell is not None:
                failed_x.append(x)
        if xs:
            ax.bar(xs, meds, width, color=colours[alloc], label=alloc)
        if failed_x:
            ax.plot(failed_x, [1.0] * len(failed_x), "x", color=colours[alloc], markersize=7, mew=2,
                    label=f"{alloc}: no ok run")
    ax.vlines(*whiskers, color="black", linewidth=0.9)
    ax.axhline(1.0, color="black", linewidth=0.8)
    if top > 5:
        ax.set_yscale("log")
    ax.set_xticks(np.arange(len(variants)))
    ax.set_xticklabels(labels(summary, variants), rotation=ROTATE if len(variants) > 3 else 0,
                       ha="right" if len(variants) > 3 else "center")
    ax.set_title(f"{workload}: {title} / {summary.baseline} (median, whisker min-max)")
    ax.set_ylabel(f"ratio to {summary.baseline}")
    return allocs


def draw(summary, outdir):
    """One PNG per workload that has a baseline; returns [(workload, filename)]."""
    if summary.baseline is None:
        return []
    colours = plotlib.colours(summary.allocators)
    out = []
    for workload in summary.workloads:
        if not any(summary.baseline in summary.by_variant[v] for v in summary.variants(workload)):
            continue
        variants = summary.variants(workload)
        longest = max(len(label) for label in labels(summary, variants)) if len(variants) > 3 else 0
        label_in = 0.5 + 0.06 * longest * 0.5
        ncols = 1 if len(variants) > WIDE else 2
        fig, axes = plotlib.grid(2, ncols, width=12, row_height=2.6 + label_in, label_in=label_in)
        for ax, (column, title) in zip(axes, METRICS):
            _panel(ax, summary, workload, column, title, colours)
        plotlib.shared_legend(fig, axes)
        out.append((workload, plotlib.save(fig, outdir, f"bars-{plotlib.slug(workload)}.png")))
    return out

