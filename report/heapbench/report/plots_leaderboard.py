"""plots_leaderboard.py - the leaderboard as a picture: geomean time and peak-RSS ratio per allocator.

Always holds: the figures are exactly Summary.leaderboard()'s (the table beside it gives the
same numbers); allocators are in the table's order (fastest first); an allocator with nothing
compared is named with 'no data' rather than left out.
"""
from heapbench.report import plotlib

PANELS = (("time", "wall time"), ("rss", "peak RSS"))


def draw(summary, outdir):
    """leaderboard.png (two horizontal bar panels); returns the file name or None without a baseline."""
    if summary.baseline is None:
        return None
    board = sorted(summary.leaderboard(), key=lambda b: (b["time"] is None, b["time"] or 0))
    colours = plotlib.colours(summary.allocators)
    left_in = 0.2 + 0.075 * max(len(b["allocator"]) for b in board)
    fig, axes = plotlib.grid(2, 2, width=12, row_height=0.9 + 0.3 * len(board), label_in=0.45, left_in=left_in,
                             legend=False)
    for ax, (key, title) in zip(axes, PANELS):
        ys = list(range(len(board)))[::-1]
        values = [b[key] or 0.0 for b in board]
        for y, b, value in zip(ys, board, values):
            ax.barh(y, value, color=colours[b["allocator"]], height=0.7)
            ax.text(value, y, f" {value:.2f}x" if b[key] else " no data", va="center", fontsize=8)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(ys)
        ax.set_yticklabels([b["allocator"] for b in board])
        ax.set_xlim(0, max(values + [1.0]) * 1.18)
        ax.set_xlabel(f"geomean of cell median / {summary.baseline} (lower is better)")
        ax.set_title(f"{title}")
    return plotlib.save(fig, outdir, "leaderboard.png")
