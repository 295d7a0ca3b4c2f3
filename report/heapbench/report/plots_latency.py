"""plots_latency.py - latency distributions (latency.csv): percentile plots, latency against threads, the table.

Always holds: only rows of ok runs count; reps and phases of one cell and operation are merged
exactly (bucket counts added, heapbench.latency), never by averaging percentiles; a
distribution plot has x = 1/(1-q) on a log scale (HdrHistogram's percentile plot: 10 = p90,
1000 = p99.9) and one line per allocator; a workload's distribution panels are its variants at
its largest thread count, one per operation (malloc, free first).
"""
from heapbench import latency
from heapbench.report import plotlib

OPS = ("malloc", "free", "realloc", "calloc")
# q values of the distribution plot: p0 .. p99.999, denser in the tail.
PLOT_QS = [1 - 10 ** (-k / 8) for k in range(0, 41)]


def merged_cells(summary):
    """{(host, workload, threads, params, env, op): {allocator: latency.Merged}} of the ok runs."""
    ok = {(r["run_id"], r["run"]): r for r in summary.data["runs"] if r.get("status") == "ok"}
    rows = {}
    for row in summary.data.get("latency", []):
        run = ok.get((row["run_id"], row["run"]))
        if run is None:
            continue
        key = (run["host"], row["workload"], int(row["threads"] or 1), row["params"], row["env"], row["op"])
        rows.setdefault(key, {}).setdefault(row["allocator"], []).append(row)
    return {key: {a: latency.merged(rs) for a, rs in by_alloc.items()} for key, by_alloc in rows.items()}


def _op_order(op):
    """malloc, free, realloc, calloc, then anything else."""
    return OPS.index(op) if op in OPS else len(OPS)


def distribution_panels(cells, workload):
    """The keys of a workload's distribution panels: its variants at its largest thread count, by op."""
    keys = [k for k in cells if k[1] == workload]
    if not keys:
        return []
    top = max(k[2] for k in keys)
    return sorted((k for k in keys if k[2] == top), key=lambda k: (k[0], k[3], k[4], _op_order(k[5])))


def _title(key, multi_host):
    """'workload op tN params env' of a panel."""
    host, workload, threads, params, env, op = key
    parts = [host] if multi_host else []
    parts += [workload, op, f"t{threads}", params, env]
    return " ".join(p for p in parts if p)


def draw_distribution(summary, outdir, workload):
    """latency-<workload>.png: the percentile distribution of each panel; returns the file name or None."""
    cells = merged_cells(summary)
    panels = distribution_panels(cells, workload)
    if not panels:
        return None
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(panels), 2, width=12, row_height=3.4)
    xs = [1 / (1 - q) for q in PLOT_QS]
    for ax, key in zip(axes, panels):
        for alloc in summary.allocators:
            if alloc not in cells[key]:
                continue
            ax.plot(xs, [latency.merged_quantile(cells[key][alloc], q) for q in PLOT_QS], "-", color=colours[alloc],
                    label=alloc)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([1, 10, 100, 1000, 10000, 100000])
        ax.set_xticklabels(["p0", "p90", "p99", "p99.9", "p99.99", "p99.999"])
        ax.set_xlabel("percentile (x = 1/(1-q))")
        ax.set_ylabel("latency (ns)")
        ax.set_title(_title(key, len(summary.hosts) > 1))
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, f"latency-{workload}.png")


def thread_groups(cells):
    """[(host, workload, params, env, op, sorted thread counts)] of the malloc/free series with >= 2 thread counts."""
    groups = {}
    for host, workload, threads, params, env, op in cells:
        if op in ("malloc", "free"):
            groups.setdefault((host, workload, params, env, op), set()).add(threads)
    return [k + (sorted(t),) for k, t in sorted(groups.items()) if len(t) >= 2]


def draw_threads(summary, outdir):
    """latency-threads.png: p99 against threads for the contention workloads; returns the file name or None."""
    cells = merged_cells(summary)
    groups = thread_groups(cells)
    if not groups:
        return None
    colours = plotlib.colours(summary.allocators)
    fig, axes = plotlib.grid(len(groups), 2, width=12, row_height=3.4)
    for ax, (host, workload, params, env, op, threads) in zip(axes, groups):
        for alloc in summary.allocators:
            ys = []
            for t in threads:
                merged = cells.get((host, workload, t, params, env, op), {}).get(alloc)
                ys.append(latency.merged_quantile(merged, 0.99) if merged else float("nan"))
            if any(y == y for y in ys):
                ax.plot(threads, ys, "o-", color=colours[alloc], label=alloc, markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.set_yscale("log")
        ax.set_xlabel("threads")
        ax.set_ylabel(f"{op} p99 (ns)")
        ax.set_title(" ".join(x for x in (host if len(summary.hosts) > 1 else "", workload, params, env) if x))
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, "latency-threads.png")
