"""plots_bars.py - per workload, median time and peak RSS of each allocator relative to the baseline, as bars.

Always holds: one PNG per workload (draw is called per workload) with two panels (wall time, peak RSS); a bar is the
median over ok runs divided by the baseline cell's median, its whisker the min..max of the
runs on the same scale; a cell without ok runs gets an 'x' at 1.0 instead of a bar, so a
failure is visible, never a silent gap. The y axis turns logarithmic beyond 5x. Variant labels
are one word per line, never rotated (rotated labels ran off the figure).
"""
import numpy as np

import plotlib
from cells import variant_label

METRICS = (("wall_s", "wall time"), ("maxrss_kb", "peak RSS"))
WIDE = 8     # more variants than this: the two panels are stacked, each the full width


def labels(summary, variants):
    """The x tick labels of a workload's variants, one word per line (they stay narrow, never rotated);
    the thread count is left out when all variants share it."""
    one_count = len({v[2] for v in variants}) == 1
    return [variant_label(v, len(summary.hosts) > 1, threads=not one_count).replace(" ", "\n") or "(default)"
            for v in variants]


def _ratios(summary, variants, allocs, column):
    """allocator -> (bars [(x index, (median, min, max))], [x index of cells without ok runs])."""
    out = {}
    for alloc in allocs:
        bars, failed = [], []
        for j, variant in enumerate(variants):
            cell = summary.by_variant[variant].get(alloc)
            ratio = summary.ratio(cell, column) if cell else None
            if ratio:
                bars.append((j, ratio))
            elif cell is not None:
                failed.append(j)
        out[alloc] = (bars, failed)
    return out


def _panel(ax, summary, workload, column, title, colours):
    """Draws one metric of one workload on ax: groups = variants, bars = allocators."""
    variants = summary.variants(workload)
    allocs = [a for a in summary.allocators if any(a in summary.by_variant[v] for v in variants)]
    ratios = _ratios(summary, variants, allocs, column)
    spans = [r for bars, _ in ratios.values() for _, r in bars]
    top = max([r[2] for r in spans] + [1.0])
    low = min([r[1] for r in spans] + [1.0])
    log = top > 5
    width = 0.8 / max(1, len(allocs))
    whiskers = ([], [], [])  # x, min, max of every bar: drawn at once
    for i, alloc in enumerate(allocs):
        bars, failed = ratios[alloc]
        offset = -0.4 + width * (i + 0.5)
        if bars:
            plotlib.bars(ax, [j + offset for j, _ in bars], [r[0] for _, r in bars], width, colours[alloc], alloc,
                         bottom=low / 10 if log else 0.0)
            for coords, values in zip(whiskers, ([j + offset for j, _ in bars], [r[1] for _, r in bars],
                                                 [r[2] for _, r in bars])):
                coords.extend(values)
        if failed:
            ax.plot([j + offset for j in failed], [1.0] * len(failed), "x", color=colours[alloc], markersize=7,
                    mew=2, label=f"{alloc}: no ok run")
    ax.vlines(*whiskers, color="black", linewidth=0.9)
    ax.axhline(1.0, color="black", linewidth=0.8)
    if log:
        plotlib.log_ratio_axis(ax)
        ax.set_ylim(low / 1.3, top * 1.3)
    else:
        ax.set_ylim(0, top * 1.08)
    ax.set_xlim(-0.5, len(variants) - 0.5)
    ax.set_xticks(np.arange(len(variants)))
    ax.set_xticklabels(labels(summary, variants), fontsize=8 if len(variants) > WIDE else 9)
    ax.set_title(f"{workload}: {title} / {summary.baseline} (median, whisker min-max)")
    ax.set_ylabel(f"ratio to {summary.baseline}")


def draw(summary, outdir, workload):
    """bars-<workload>.png; returns its file name, or None when the workload has no baseline cell."""
    variants = summary.variants(workload)
    if summary.baseline is None or not any(summary.baseline in summary.by_variant[v] for v in variants):
        return None
    colours = plotlib.colours(summary.allocators)
    label_in = 0.25 + 0.16 * max(label.count("\n") + 1 for label in labels(summary, variants))
    ncols = 1 if len(variants) > WIDE else 2
    fig, axes = plotlib.grid(2, ncols, width=12, row_height=2.6 + label_in, label_in=label_in)
    for ax, (column, title) in zip(axes, METRICS):
        _panel(ax, summary, workload, column, title, colours)
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, f"bars-{plotlib.slug(workload)}.png")
