"""plots_overhead.py - memory overhead by phase: RSS at each phase end against the live requested bytes.

Always holds: drawn for the workloads whose phases hold memory on purpose (OVERHEAD_WORKLOADS,
those of docs and issue: frag, churn-random, parser), one panel per variant; bars are the
median RSS at the end of each phase per allocator, the black tick the median live requested
bytes, so the gap between them is what the allocator costs beyond what the program holds.
"""
import numpy as np

from heapbench.report import plotlib
from heapbench.report.cells import variant_label

OVERHEAD_WORKLOADS = ("frag", "churn-random", "parser")


def draw(summary, outdir):
    """phase-overhead.png with a panel per variant of OVERHEAD_WORKLOADS; returns the file name or None."""
    medians = summary.phase_medians()
    shown = [v for w in OVERHEAD_WORKLOADS for v in summary.variants(w) if v in medians]
    if not shown:
        return None
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(shown), 2, width=12, row_height=3.2)
    for ax, variant in zip(axes, shown):
        names, values = medians[variant]
        allocs = [a for a in summary.allocators if any((a, p) in values for p in names)]
        width = 0.8 / max(1, len(allocs))
        for i, alloc in enumerate(allocs):
            xs = [j - 0.4 + width * (i + 0.5) for j, p in enumerate(names) if (alloc, p) in values]
            ys = [plotlib.mib(values[(alloc, p)][0]) for p in names if (alloc, p) in values]
            plotlib.bars(ax, xs, ys, width, colours[alloc], alloc)
        live = [max((values[(a, p)][1] for a in allocs if (a, p) in values), default=0) / 2 ** 20 for p in names]
        ax.hlines(live, np.arange(len(names)) - 0.45, np.arange(len(names)) + 0.45, colors="black", linewidth=2,
                  label="live requested")
        ax.set_xlim(-0.5, len(names) - 0.5)
        ax.set_ylim(bottom=0)
        ax.set_xticks(np.arange(len(names)))
        ax.set_xticklabels(names)
        ax.set_ylabel("MiB at phase end")
        ax.set_title(f"{variant[1]} {variant_label(variant, len(summary.hosts) > 1)}")
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, "phase-overhead.png")
