"""plots_bars.py - per workload, median time and peak RSS of each allocator relative to the baseline, as bars.

Always holds: one PNG per workload (draw is called per workload) with two panels (wall
time, peak RSS); a bar is the median over ok runs divided by the baseline cell's median,
its whisker the min..max of the runs on the same scale (a trace:FILE workload's panels are its replay's
time and heap, heapbench.judged, titled replay_s and heap_kb); a cell without ok runs gets an 'x'
at 1.0 instead of a bar, so a failure is visible, never a silent gap. The y axis turns
logarithmic beyond 5x. Variant labels are one word per line, never rotated (rotated labels
ran off the figure), without the words all variants share (those are in the title); the
panels are stacked when the labels need the width. When even then the labels would overlap at
the smallest font (MIN_FONT: e.g. the thousands of variants of a 10-host merge), every k-th group
is labelled, the x label says so, and the workload table names every cell; matplotlib makes an
object per tick, so a tick per group would also cost seconds there.
"""
import math
import re

import numpy as np

from heapbench import judged
from heapbench.report import plotlib
from heapbench.report.cells import variant_label

METRICS = (("wall_s", "wall time"), ("maxrss_kb", "peak RSS"))
CHAR_IN = 0.085   # width of a tick-label character at 9 pt (capitals are the widest), inches
PANEL_IN = 5.0    # width of one panel when the two sit side by side, inches
FULL_IN = 11.0    # width of a panel that has the figure's width
WRAP = 20         # longer label words are cut into lines of about this many characters
MIN_FONT = 6.0    # smallest tick-label font, pt
SQUEEZE = 1.5     # CHAR_IN counts capitals: lower-case and digit labels fit in about 1/1.5 of the estimate


def wrap(word, width=WRAP):
    """A long word (GLIBC_TUNABLES=glibc.malloc.arena_max=2:...) cut after '=', ':' or ',' into lines of ~width."""
    lines = [""]
    for piece in re.split(r"(?<=[=:,])", word):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(lines)


def labels(summary, variants):
    """(tick labels, shared words) of a workload's variants: the words every variant shares are left
    out of the labels (they go into the title), the rest one word per line, never rotated."""
    words = [variant_label(v, len(summary.hosts) > 1).split(" ") for v in variants]
    shared = [w for w in words[0] if all(w in ws for ws in words)]
    return ["\n".join(wrap(w) for w in ws if w not in shared) for ws in words], shared


def _need_in(ticks):
    """Width (inches) the tick labels need at 9 pt, side by side."""
    widest = max(len(line) for label in ticks for line in label.split("\n"))
    return (widest * CHAR_IN + 0.15) * len(ticks)


def tick_font(ticks, panel_in):
    """Font size (pt) at which the widest tick-label line fits its group's width in a panel panel_in wide."""
    need = _need_in(ticks)
    return max(MIN_FONT, min(9.0, 9.0 * panel_in / need)) if need else 9.0


def label_step(ticks, panel_in):
    """1, or k when only every k-th tick label fits a panel panel_in wide at MIN_FONT (labels estimated
    to need up to SQUEEZE times the width still fit: they are all drawn, as before this step existed)."""
    return max(1, math.ceil(_need_in(ticks) * MIN_FONT / 9.0 / (panel_in * SQUEEZE)))


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


def _panel(ax, summary, workload, column, title, colours, font, step):
    """Draws one metric of one workload on ax: groups = variants, bars = allocators; font: tick label size;
    step: every step-th group is labelled."""
    variants = summary.variants(workload)
    ticks, shared = labels(summary, variants)
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
    ax.set_xticks(np.arange(0, len(variants), step))
    ax.set_xticklabels(ticks[::step], fontsize=font)
    if step > 1:
        ax.set_xlabel(f"{len(variants)} variants, 1 in {step} labelled (the table of this section names each)", fontsize=font)
    ax.set_title(f"{workload}: {title} / {summary.baseline}" + (f"   [{' '.join(shared)}]" if shared else ""))
    ax.set_ylabel(f"ratio to {summary.baseline}")


def draw(summary, outdir, workload):
    """bars-<workload>.png; returns its file name, or None when the workload has no baseline cell."""
    variants = summary.variants(workload)
    if summary.baseline is None or not any(summary.baseline in summary.by_variant[v] for v in variants):
        return None
    colours = plotlib.colours(summary.allocators)
    ticks = labels(summary, variants)[0]
    ncols = 2 if tick_font(ticks, PANEL_IN) >= 9.0 else 1
    font = tick_font(ticks, PANEL_IN if ncols == 2 else FULL_IN)
    step = label_step(ticks, PANEL_IN if ncols == 2 else FULL_IN)
    label_in = 0.25 + 0.16 * (max(label.count("\n") + 1 for label in ticks) + (step > 1))
    fig, axes = plotlib.grid(2, ncols, width=12, row_height=2.6 + label_in, label_in=label_in)
    for ax, (column, title) in zip(axes, METRICS):
        title = judged.metric_name(workload, column) if judged.is_trace(workload) else title  # replay_s, heap_kb
        _panel(ax, summary, workload, column, title, colours, font, step)
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, f"bars-{plotlib.slug(workload)}.png")
