"""plots_sizes.py - the internal-fragmentation curve from sizes.csv: usable size over request, per allocator.

Always holds: one curve per allocator from one run (its lowest run number: the sizes
workload is deterministic, repetitions are identical); requests are sorted; the left panel
is usable/request on a log request axis (1 = no waste), the right panel the usable size
itself for small requests (the size-class staircase).
"""
from heapbench.report import plotlib
from heapbench.report.cells import series

ZOOM_MAX = 512


def size_curves(summary):
    """allocator -> (request array, usable array) from the first run of each allocator in sizes.csv."""
    first = {}
    for row in summary.data["sizes"]:
        if isinstance(row.get("request"), (int, float)) and isinstance(row.get("usable"), (int, float)):
            first[row["allocator"]] = min(first.get(row["allocator"], row["run"]), row["run"])
    rows = [r for r in summary.data["sizes"] if first.get(r["allocator"]) == r["run"] and (r["request"] or 0) > 0]
    return series(rows, "allocator", "request", "usable")


def draw(summary, outdir):
    """sizes.png (ratio curve and small-size staircase); returns the file name or None without sizes.csv rows."""
    curves = size_curves(summary)
    if not curves:
        return None
    allocs = [a for a in summary.allocators if a in curves] + sorted(set(curves) - set(summary.allocators))
    colours = plotlib.colours(summary.allocators + [a for a in allocs if a not in summary.allocators])
    fig, (left, right) = plotlib.grid(2, 2, width=12, row_height=3.8)
    for alloc in allocs:
        req, usable = curves[alloc]
        left.step(req, usable / req, where="post", color=colours[alloc], label=alloc, linewidth=1.1)
        small = req <= ZOOM_MAX
        right.step(req[small], usable[small], where="post", color=colours[alloc], label=alloc, linewidth=1.1)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("request (bytes)")
    left.set_ylabel("usable / request")
    left.set_title("internal fragmentation: malloc_usable_size / request")
    right.plot([1, ZOOM_MAX], [1, ZOOM_MAX], color="grey", linestyle=":", linewidth=0.8, label="usable = request")
    right.set_xlabel("request (bytes)")
    right.set_ylabel("usable (bytes)")
    right.set_title(f"size classes up to {ZOOM_MAX} bytes")
    plotlib.shared_legend(fig, [left, right])
    return plotlib.save(fig, outdir, "sizes.png")
