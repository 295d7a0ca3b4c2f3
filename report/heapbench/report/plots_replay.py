"""plots_replay.py - RSS and live bytes over time of trace:FILE cells, on one chart per trace.

Reads the replayer's `live` phase records (docs/DATA.md): every 10 ms or more, seconds into the
replay, its live requested bytes and its RSS. Per trace variant, one panel: each allocator's RSS
minus its replayer baseline (the `load` phase's RSS) as a coloured line, and the live requested
bytes as a black dashed line (the same events under every allocator; drawn from the first).
Always holds: each line is one real run (the ok run whose replay time is the cell's median),
never an average of runs.
"""
import numpy as np

from heapbench.report import plotlib
from heapbench.report.cells import variant_label
from heapbench.judged import TRACE_PREFIX
from heapbench.report.replays import phases_by_run


def representative(cell, by_run):
    """The ok run with `live` samples whose replay time is closest to the median, or None."""
    runs = [r for r in cell.ok_rows() if "replay" in by_run.get(r["run"], {}) and "load" in by_run[r["run"]]]
    if not runs:
        return None
    times = [by_run[r["run"]]["replay"]["seconds"] for r in runs]
    median = float(np.median(times))
    return min(runs, key=lambda r: (abs(by_run[r["run"]]["replay"]["seconds"] - median), r["run"]))


def live_series(summary, run):
    """(seconds, live MiB, RSS MiB) arrays of a run's `live` records."""
    rows = sorted((r for r in summary.data["phases"] if r["run"] == run and r["phase"] == "live"),
                  key=lambda r: r["seconds"])
    return (np.array([r["seconds"] for r in rows], dtype=float),
            np.array([r["live_bytes"] or 0 for r in rows], dtype=float) / 2 ** 20,
            np.array([r["rss_kb"] or 0 for r in rows], dtype=float) / 1024.0)


def draw(summary, outdir):
    """replay-timeline.png with a panel per trace variant that has samples; the file name or None."""
    by_run = phases_by_run(summary)
    variants = [v for w in summary.workloads if w.startswith(TRACE_PREFIX) for v in summary.variants(w)]
    panels = []
    for variant in variants:
        runs = [(a, representative(c, by_run)) for a, c in ((a, summary.by_variant[variant].get(a))
                                                            for a in summary.allocators) if c]
        runs = [(a, r) for a, r in runs if r and live_series(summary, r["run"])[0].size]
        if runs:
            panels.append((variant, runs))
    if not panels:
        return None
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(panels), 1, width=12, row_height=3.2)
    for ax, (variant, runs) in zip(axes, panels):
        for i, (alloc, run) in enumerate(runs):
            ts, live, rss = live_series(summary, run["run"])
            base = by_run[run["run"]]["load"]["rss_kb"] / 1024.0
            ax.plot(ts, rss - base, color=colours[alloc], linewidth=1.2, label=f"{alloc}: RSS - baseline")
            if i == 0:
                ax.plot(ts, live, color="black", linestyle="--", linewidth=1.2, label="live requested bytes")
        plotlib.label_panel(ax, f"{variant[1]} {variant_label(variant, len(summary.hosts) > 1)}",
                            "seconds into the replay", "MiB")
    return plotlib.save(fig, outdir, "replay-timeline.png")
