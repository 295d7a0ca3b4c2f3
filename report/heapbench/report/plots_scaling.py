"""plots_scaling.py - thread scaling: throughput against thread count, one line per allocator.

Always holds: only workloads run at two or more thread counts are drawn; one panel per
(host, params, env) of such a workload; throughput is Summary.throughput (phase ops per
second of wall time, or runs per second when the workload reports no ops), the median of
the ok runs; a thread count without ok runs leaves a gap in that allocator's line.
"""
from heapbench.report import plotlib


def scaling_groups(summary):
    """[(workload, host, params, env, sorted thread counts)] for every group with >= 2 thread counts."""
    groups = {}
    for (host, workload, threads, params, env) in summary.by_variant:
        groups.setdefault((workload, host, params, env), set()).add(threads)
    order = {w: i for i, w in enumerate(summary.workloads)}
    seen = summary.first_seen

    def key(item):
        """Matrix order: workload, host, env, params."""
        workload, host, params, env = item[0]
        return order[workload], host, seen[env], seen[params]
    return [(w, h, p, e, sorted(t)) for (w, h, p, e), t in sorted(groups.items(), key=key) if len(t) >= 2]


def draw(summary, outdir):
    """thread-scaling.png with a panel per scaling group; returns the file name or None."""
    groups = scaling_groups(summary)
    if not groups:
        return None
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(groups), 2, width=12, row_height=3.4)
    for ax, (workload, host, params, env, threads) in zip(axes, groups):
        for alloc in summary.allocators:
            ys = []
            for t in threads:
                cell = summary.by_variant[(host, workload, t, params, env)].get(alloc)
                ys.append(summary.throughput(cell) if cell else None)
            if any(y is not None for y in ys):
                ax.plot(threads, [float("nan") if y is None else y for y in ys], "o-", color=colours[alloc],
                        label=alloc, markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.set_ylabel("ops / s (median)")
        extra = " ".join(x for x in (host if len(summary.hosts) > 1 else "", params, env) if x)
        ax.set_title(f"{workload} {extra}".strip())
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(plotlib.ticker.EngFormatter())
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, "thread-scaling.png")
