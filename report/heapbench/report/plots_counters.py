"""plots_counters.py - page faults and the perf counters that exist, per workload, relative to the baseline.

Always holds: a counter is drawn only when some ok run has a value for it (an empty
column means unavailable, never zero) and some cell of the baseline has a non-zero median
to divide by; a bar is the geometric mean over the workload's variants of the allocator's
median / the baseline's median. Counters with nothing to compare are left to the table.
"""
import numpy as np

from heapbench.report import plotlib

# In the table only: page_faults is minflt + majflt again, nvcsw/nivcsw are context_switches split.
NOT_DRAWN = ("page_faults", "nvcsw", "nivcsw")
TITLES = {"minflt": "minor page faults (minflt)", "majflt": "major page faults (majflt)",
          "task_clock_ms": "task clock (CPU ms)", "context_switches": "context switches",
          "cpu_migrations": "CPU migrations", "cache_misses": "cache misses", "branch_misses": "branch misses",
          "dtlb_load_misses": "dTLB load misses"}


def _panel(ax, summary, column, colours):
    """Draws one counter on ax: x = workloads, a bar per allocator that has a ratio."""
    workloads = summary.workloads
    allocs = summary.allocators
    width = 0.8 / max(1, len(allocs))
    for i, alloc in enumerate(allocs):
        ratios = [summary.workload_ratio(w, alloc, column) for w in workloads]
        xs = [j - 0.4 + width * (i + 0.5) for j, r in enumerate(ratios) if r]
        ys = [r for r in ratios if r]
        if ys:
            plotlib.bars(ax, xs, ys, width, colours[alloc], alloc)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlim(-0.5, len(workloads) - 0.5)
    ax.set_ylim(bottom=0)
    ax.set_xticks(np.arange(len(workloads)))
    ax.set_xticklabels(workloads, rotation=30, ha="right")
    ax.set_title(f"{TITLES.get(column, column)} / {summary.baseline} (geomean over variants)")


def comparable_columns(summary):
    """Counter columns worth a panel: not a duplicate (NOT_DRAWN), the baseline non-zero in some cell."""
    out = []
    for column in [c for c in summary.counter_columns() if c not in NOT_DRAWN]:
        if any(c.median(column) for c in summary.by_allocator.get(summary.baseline, [])):
            out.append(column)
    return out


def draw(summary, outdir):
    """counters.png with a panel per comparable counter; returns the file name or None."""
    columns = comparable_columns(summary) if summary.baseline else []
    if not columns:
        return None
    colours = plotlib.colours(summary.allocators)
    label_in = 0.5 + 0.03 * max(len(w) for w in summary.workloads)
    fig, axes = plotlib.grid(len(columns), 2, width=12, row_height=2.2 + label_in, label_in=label_in)
    for ax, column in zip(axes, columns):
        _panel(ax, summary, column, colours)
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, "counters.png")
