"""plots_memory.py - memory over a long life (the server workload) and where the memory goes (allocstats.csv).

Always holds: both figures walk the cells one way (representative_runs: workload -> variant ->
allocator in the report's allocator order -> the representative run of plots_rss, median wall
time, among the runs with phases or with allocator figures). The timeline shows its RSS samples, RSS and live requested bytes at
every phase end, each placed by the RSS sample the runner tagged with it (rss.csv `phase`) and
the durations (phase_times), or, in results without tags, at the sum of the durations, with
each idle period shaded (from the end
of a cycle's load to its last idle mark); the breakdown stacks, per allocator and phase, the live requested bytes, then the allocator's own
allocated, active and resident figures, then RSS, each segment named by the gap it stands for; a
layer the allocator does not report is skipped (its gap merges into the next one, named by both
ends), and an allocator without any figure gets no panel.
"""
from heapbench import memory, results
from heapbench.report import plotlib
from heapbench.report.cells import series, variant_label
from heapbench.report.plots_rss import representative_run

TIMELINE_WORKLOADS = ("server",)
LAYERS = ("allocated", "active", "resident")
GAP_NAMES = {("live", "allocated"): "internal fragmentation (allocated-live)",
             ("allocated", "active"): "free-list retention (active-allocated)",
             ("active", "resident"): "dirty pages + metadata (resident-active)",
             ("resident", "rss"): "outside the allocator (RSS-resident)",
             ("live", "active"): "committed, not live (active-live)",
             ("allocated", "rss"): "free chunks + outside (RSS-allocated)",
             ("active", "rss"): "free pages + outside (RSS-active)"}
LEGEND_COLUMNS = 4
GAP_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")
MAX_BARS = 8  # phases per breakdown panel
TAG_SLACK_S = 0.002  # a tagged sample later than this past the chained durations was taken late


def phase_times(rows, tagged=()):
    """[(end seconds, row)] of one run's phases on the RSS timeline's clock. tagged: the run's
    (phase, t) of rss.csv's tagged samples in file order; the k-th phase of a name has the k-th
    sample tagged with it. A tag is never early (the runner samples after reading the record) but
    is late when the runner was descheduled; the durations chain the phase ends on the workload's
    own clock, short only by the few microseconds of writing each record. So a phase ends at its
    tag, unless the tag is more than TAG_SLACK_S past the previous end plus the duration (a late
    tag: then there); without a tag, at the previous end plus the duration. Before the first tag
    (and in results without tags) that is the running sum of durations, which starts a few ms
    after t = 0, so it never overrules a tag."""
    queue = {}
    for name, t in tagged:
        queue.setdefault(name, []).append(t)
    out, t, anchored = [], 0.0, False
    for row in rows:
        times = queue.get(row["phase"])
        tag = times.pop(0) if times else None
        chained = t + (row["seconds"] or 0.0)
        t = chained if tag is None or (anchored and tag > chained + TAG_SLACK_S) else tag
        anchored = anchored or tag is not None
        out.append((t, row))
    return out


def idle_spans(timed):
    """[(start, end)] of the idle periods: a cycle's load end to its last idle mark."""
    spans, start = [], None
    for t, row in timed:
        if memory.LOAD.match(row["phase"]):
            start = t
        elif memory.IDLE.match(row["phase"]) and start is not None:
            if spans and spans[-1][0] == start:
                spans[-1] = (start, t)
            else:
                spans.append((start, t))
    return spans


def _phases_by_run(summary):
    """run -> its phase rows in file order."""
    by_run = {}
    for row in summary.data["phases"]:
        by_run.setdefault(row["run"], []).append(row)
    return by_run


def _tags_by_run(rss_rows):
    """run -> [(phase, t)] of the tagged RSS samples among rss_rows, in file order."""
    by_run = {}
    for row in rss_rows:
        if row.get("phase"):
            by_run.setdefault(row["run"], []).append((row["phase"], row["t"]))
    return by_run


def representative_runs(summary, workloads, eligible):
    """Yields (variant, allocator, run row) for every variant of workloads and every allocator (in
    summary.allocators order) whose cell has a representative run among the run ids eligible."""
    for workload in workloads:
        for variant in summary.variants(workload):
            cells = summary.by_variant[variant]
            for alloc in [a for a in summary.allocators if a in cells]:
                run = representative_run(cells[alloc], eligible)
                if run:
                    yield variant, alloc, run


def timeline_runs(summary):
    """[(variant, allocator, run row)] for every TIMELINE_WORKLOADS variant and allocator with an ok run."""
    with_phases = {row["run"] for row in summary.data["phases"]}
    return list(representative_runs(summary, TIMELINE_WORKLOADS, with_phases))


def draw_timeline(summary, outdir):
    """memory-timeline.png: a panel per (server variant, allocator); returns the file name or None."""
    shown = timeline_runs(summary)
    if not shown:
        return None
    by_run = _phases_by_run(summary)
    rss_rows = list(results.rows_where(summary.data["rss"], "run", {run["run"] for _, _, run in shown}))
    tags, samples = _tags_by_run(rss_rows), series(rss_rows, "run", "t", "rss_kb")
    fig, axes = plotlib.grid(len(shown), 2, width=12, row_height=3.0)
    for ax, (variant, alloc, run) in zip(axes, shown):
        timed = phase_times(by_run.get(run["run"], []), tags.get(run["run"], ()))
        for start, end in idle_spans(timed):
            ax.axvspan(start, end, color="#bbbbbb", alpha=0.5, linewidth=0, label="idle")
        if run["run"] in samples:
            ts, kbs = samples[run["run"]]
            ax.plot(ts, kbs / 1024.0, color="#4c72b0", linewidth=1.0, label="RSS (sampled)")
        ax.plot([t for t, _ in timed], [plotlib.mib(r["rss_kb"]) for _, r in timed], ".", color="#4c72b0",
                label="RSS at a phase end")
        ax.step([t for t, _ in timed], [(r["live_bytes"] or 0) / 2 ** 20 for _, r in timed], where="pre",
                color="black", linewidth=1.2, label="live requested")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("seconds since start (phase ends at their tagged RSS samples)")
        ax.set_ylabel("MiB")
        ax.set_title(f"{alloc}: {variant[1]} {variant_label(variant, len(summary.hosts) > 1)}")
    plotlib.shared_legend(fig, axes)
    return plotlib.save(fig, outdir, "memory-timeline.png")


def layers_by_phase(summary):
    """(run, phase) -> {layer: bytes}: the first statistic with a value of each breakdown layer."""
    out = {}
    for row in summary.data.get("allocstats") or []:
        if row["layer"] in LAYERS and isinstance(row.get("value"), (int, float)):
            out.setdefault((row["run"], row["phase"]), {}).setdefault(row["layer"], row["value"])
    return out


def stack(live, layers, rss):
    """[(segment name, bytes)] from 0 up to RSS: live, then each gap up through the layers present."""
    points = [("live", live)] + [(n, layers[n]) for n in LAYERS if n in layers] + [("rss", rss)]
    out = [("live requested", live)]
    for (lo, a), (hi, b) in zip(points, points[1:]):
        out.append((GAP_NAMES.get((lo, hi), f"{hi} - {lo}"), max(0, b - a)))
    return out


def shown_phases(workload, rows):
    """The phases of a run to draw: a server run's load ends and each cycle's last idle mark, any
    other run's phases; at most MAX_BARS, the last ones."""
    if workload in TIMELINE_WORKLOADS:
        keep = []
        for i, row in enumerate(rows):
            nxt = rows[i + 1]["phase"] if i + 1 < len(rows) else ""
            if memory.LOAD.match(row["phase"]) or (memory.IDLE.match(row["phase"]) and not memory.IDLE.match(nxt)):
                keep.append(row)
        rows = keep
    return rows[-MAX_BARS:]


def breakdown_panels(summary):
    """[(variant, allocator, [(phase, stack)])] for every cell's representative run with allocator figures."""
    layers = layers_by_phase(summary)
    by_run = _phases_by_run(summary)
    with_stats = {run for run, _ in layers}
    panels = []
    for variant, alloc, run in representative_runs(summary, summary.workloads, with_stats):
        rows = [r for r in by_run.get(run["run"], []) if (run["run"], r["phase"]) in layers]
        bars = [(r["phase"], stack(r["live_bytes"] or 0, layers[(run["run"], r["phase"])], r["rss_kb"] * 1024))
                for r in shown_phases(variant[1], rows)]
        if bars:
            panels.append((variant, alloc, bars))
    return panels


def draw_breakdown(summary, outdir):
    """memory-breakdown.png: a stacked bar per phase, a panel per (variant, allocator); the file name or None."""
    panels = breakdown_panels(summary)
    if not panels:
        return None
    names = list(dict.fromkeys(name for _, _, bars in panels for _, st in bars for name, _ in st))
    colour = {n: GAP_COLOURS[i % len(GAP_COLOURS)] for i, n in enumerate(names)}
    fig, axes = plotlib.grid(len(panels), 3, width=12, row_height=3.4, label_in=1.0)
    fig.subplots_adjust(top=fig.subplotpars.top - 0.25 / fig.get_figheight())  # room for a 2-row legend
    for ax, (variant, alloc, bars) in zip(axes, panels):
        for x, (_, st) in enumerate(bars):
            bottom = 0.0
            for name, value in st:
                plotlib.bars(ax, [x], [bottom + value / 2 ** 20], 0.7, colour[name], name, bottom=bottom)
                bottom += value / 2 ** 20
        ax.set_xlim(-0.5, len(bars) - 0.5)
        ax.set_ylim(bottom=0)
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([p for p, _ in bars], rotation=40, ha="right", fontsize=7)
        ax.set_ylabel("MiB")
        ax.set_title(f"{alloc}: {variant[1]} {variant_label(variant, len(summary.hosts) > 1)}", fontsize=8)
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=LEGEND_COLUMNS, frameon=False,
               fontsize=7, bbox_to_anchor=(0.5, 1.0))
    return plotlib.save(fig, outdir, "memory-breakdown.png")
