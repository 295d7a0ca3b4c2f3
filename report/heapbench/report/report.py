"""report.py - `heapbench report DIR [-o DIR]`: renders a results directory as report.html, report.md and PNGs.

Always holds: the output goes to -o/--output (default: the results directory itself); report.html
is self-contained and report.md links the PNGs beside it; what a partial directory lacks is
stated at the top of both; a directory that is not results of schema 1 gets one line on
stderr and exit 2 (as does any other usage error); the last stdout line is the path of
report.html. Files other than those of docs/DATA.md (tune.csv, hyperfine JSON, ...) are ignored,
except hyperfine.csv which is shown as a table.
"""
import os
import sys

from heapbench import cli, results
from heapbench.report import plots_bars
from heapbench.report import plots_counters
from heapbench.report import plots_latency
from heapbench.report import plots_leaderboard
from heapbench.report import plots_memory
from heapbench.report import plots_overhead
from heapbench.report import plots_replay
from heapbench.report import plots_rss
from heapbench.report import plots_scaling
from heapbench.report import plots_sizes
from heapbench.report import replays
from heapbench.report import tables
from heapbench.report.cells import Summary
from heapbench.report.document import Document, Figure, Section
from heapbench.report.drawall import draw_all
from heapbench.report.render_html import render_html
from heapbench.report.render_md import render_md


def header_section(summary):
    """What was measured where: machine, allocators, unavailable counters."""
    section = Section("What was measured", tables=[tables.machine_table(summary), tables.allocators_table(summary)])
    unavailable = tables.unavailable_table(summary)
    if unavailable:
        section.tables.append(unavailable)
    return section


def failures_section(summary):
    """Every run that did not succeed, or a sentence saying that all did."""
    table = tables.failures_table(summary)
    if table is None:
        return Section("Failed, timed-out, crashed and skipped runs", text=["Every run succeeded."])
    return Section("Failed, timed-out, crashed and skipped runs", tables=[table],
                   text=["These runs are left out of every median and ratio; a cell without any ok run "
                         "has no bar (an x marks it) and '-' in the tables."])


def draw_jobs(summary):
    """The PNGs of a report as drawall jobs: (key, draw function, extra args), the slowest first."""
    jobs = [("rss", plots_rss.draw, ()), ("counters", plots_counters.draw, ()),
            ("leaderboard", plots_leaderboard.draw, ())]
    jobs += [(("bars", w), plots_bars.draw, (w,)) for w in summary.workloads]
    jobs += [("scaling", plots_scaling.draw, ()), ("overhead", plots_overhead.draw, ()), ("sizes", plots_sizes.draw, ())]
    jobs += [("memory-timeline", plots_memory.draw_timeline, ()), ("memory-breakdown", plots_memory.draw_breakdown, ())]
    jobs += [(("latency", w), plots_latency.draw_distribution, (w,)) for w in summary.workloads]
    jobs += [("latency-threads", plots_latency.draw_threads, ())]
    jobs += [("replay", plots_replay.draw, ())]
    return jobs


def workload_sections(summary, pngs):
    """One section per workload: the ratio bar chart (when a baseline exists) and the table of every cell."""
    sections = []
    for workload in summary.workloads:
        section = Section(f"Workload {workload}", tables=[tables.workload_table(summary, workload)])
        if pngs.get(("bars", workload)):
            section.figures.append(Figure(pngs[("bars", workload)], f"{workload}: median wall time and peak RSS "
                                          f"relative to {summary.baseline}, whiskers min-max over the repetitions; "
                                          "x = a cell without ok runs"))
        sections.append(section)
    return sections


def memory_sections(summary, pngs):
    """Memory over time (server: timeline and what came back after idle) and where it goes
    (allocstats.csv breakdown): each only when its data exists."""
    sections = []
    if pngs["memory-timeline"]:
        sections.append(Section("Memory over time", tables=[
            tables.memory_table(summary, plots_memory.TIMELINE_WORKLOADS)], figures=[
            Figure(pngs["memory-timeline"], "RSS (line: sampled; dots: at phase ends) and live requested bytes "
                                            "(black) over one representative run per allocator; idle shaded")]))
    if pngs["memory-breakdown"]:
        sections.append(Section("Where the memory goes", figures=[
            Figure(pngs["memory-breakdown"], "per phase, stacked: live requested bytes, then the allocator's own "
                                             "allocated, active and resident figures (allocstats.csv, from "
                                             "run --allocstats), then RSS; each segment is the gap it names")]))
    return sections


def latency_section(summary, pngs):
    """Latency (latency.csv, `heapbench run --latency=sampled`): the table, the percentile plots,
    latency against threads; None when the run has no latency rows."""
    cells = plots_latency.merged_cells(summary)
    if not cells:
        return None
    clock = summary.meta.get("latency", {})
    section = Section("Latency per operation", text=[
        "Timed malloc-API calls (latency.csv), every ok rep and phase of a cell merged exactly; ns, the "
        f"clock's cost included ({clock.get('clock_cost_ns', '?')} ns per call here); quantiles corrected for "
        f"the clock's step ({clock.get('clock_step_ns', '?')} ns; docs/DATA.md). "
        "The percentile plots put 1/(1-q) on a log axis: p99 at 100, p99.9 at 1000."],
        tables=[tables.latency_table(summary, cells, summary.workloads, plots_latency.distribution_panels)])
    for w in summary.workloads:
        if pngs.get(("latency", w)):
            section.figures.append(Figure(pngs[("latency", w)], f"{w}: latency percentiles at its largest thread "
                                                                 "count, one line per allocator; lower is better"))
    if pngs.get("latency-threads"):
        section.figures.append(Figure(pngs["latency-threads"], "p99 latency against threads (contention "
                                                               "workloads), one line per allocator"))
    return section


def optional_sections(summary, pngs):
    """Thread scaling, RSS timeline, phase overhead, sizes and counters: each only when its data exists."""
    sections = []
    if pngs["scaling"]:
        sections.append(Section("Thread scaling", tables=[
            tables.scaling_table(summary, plots_scaling.scaling_groups(summary))], figures=[
            Figure(pngs["scaling"], "throughput (phase ops per second of wall time, median) against threads")]))
    if pngs["rss"]:
        sections.append(Section("RSS over time", figures=[
            Figure(pngs["rss"], "RSS sampled by the runner; one representative run (median wall time) per allocator")]))
    if pngs["overhead"]:
        sections.append(Section("Memory overhead by phase",
                                tables=[tables.overhead_table(summary, plots_overhead.OVERHEAD_WORKLOADS)],
                                figures=[Figure(pngs["overhead"], "RSS at each phase end (bars) against live "
                                                                  "requested bytes (black line)")]))
    sections += memory_sections(summary, pngs)
    if pngs["sizes"]:
        sections.append(Section("Internal fragmentation (sizes)",
                                tables=[tables.sizes_table(plots_sizes.size_curves(summary), summary.allocators)],
                                figures=[Figure(pngs["sizes"], "malloc_usable_size over the request, per allocator")]))
    if summary.counter_columns():
        section = Section("Page faults and perf counters", tables=[tables.counters_table(summary)])
        if pngs["counters"]:
            section.figures.append(Figure(pngs["counters"], f"counters per workload relative to {summary.baseline}"))
        sections.append(section)
    return sections


def build(data, outdir):
    """The Document of a loaded results dict; writes its PNGs into outdir."""
    summary = Summary(data)
    notices = summary.missing()
    if not data["runs"]:
        notices.append("runs.csv has no rows yet: nothing was measured")
    elif summary.baseline is None:
        notices.append("no allocator has a successful run: no ratios can be given")
    elif summary.baseline != "glibc":
        notices.append(f"glibc has no successful run here: ratios are relative to {summary.baseline}")
    pngs = draw_all(summary, outdir, draw_jobs(summary))
    board = Section("Leaderboard", tables=[tables.leaderboard_table(summary)])
    if pngs["leaderboard"]:
        board.figures.append(Figure(pngs["leaderboard"], f"geometric mean over cells of the median relative to "
                                                         f"{summary.baseline}; lower is better"))
    sections = [header_section(summary), board, failures_section(summary)]
    sections += workload_sections(summary, pngs) + optional_sections(summary, pngs)
    lat = latency_section(summary, pngs)
    if lat:
        sections.append(lat)
    replay_section = replays.section(summary)
    if replay_section:
        if pngs["replay"]:
            replay_section.figures.append(Figure(pngs["replay"], "RSS minus the replayer's baseline (one run per "
                                                 "allocator, the median replay time) and the live requested bytes "
                                                 "(dashed), over the replay"))
        sections.append(replay_section)
    if summary.metric_columns():
        sections.append(Section("Program metrics", tables=[tables.metrics_table(summary)]))
    hyperfine = tables.hyperfine_table(results.read_csv(os.path.join(data["dir"], "hyperfine.csv"), required=False))
    if hyperfine:
        sections.append(Section("hyperfine cross-check", tables=[hyperfine]))
    run_id = data["meta"].get("run_id", os.path.basename(os.path.abspath(data["dir"])))
    return Document(f"heapbench report: {run_id}", notices, sections)


def main(argv):
    """Command line entry; returns the exit status."""
    parser = cli.ArgParser(prog="heapbench report", allow_abbrev=False, description="Render a heapbench results "
                           "directory as report.html (self-contained), report.md and PNGs.")
    parser.add_argument("dir", help="results directory, e.g. results/latest")
    cli.add_option(parser, "output", "where to write the report (default: the results directory)", aliases=["--out"])
    args = parser.parse_args(argv)
    try:
        data = results.load(args.dir, lazy=("rss",))  # rss.csv: read by the timeline plot only, streamed
    except results.ResultsError as err:
        sys.stderr.write(f"heapbench report: {err}\n")
        return 2
    outdir = args.output or args.dir
    try:
        os.makedirs(outdir, exist_ok=True)
        if not os.access(outdir, os.W_OK):
            raise OSError("not writable")
    except OSError as err:
        sys.stderr.write(f"heapbench report: cannot write to {outdir} ({err}); give a writable -o DIR\n")
        return 2
    try:
        doc = build(data, outdir)
    except results.ResultsError as err:  # an extra file of the directory (hyperfine.csv) that is damaged
        sys.stderr.write(f"heapbench report: {err}\n")
        return 2
    with open(os.path.join(outdir, "report.md"), "w") as fh:
        fh.write(render_md(doc))
    html_path = os.path.join(outdir, "report.html")
    with open(html_path, "w") as fh:
        fh.write(render_html(doc, outdir))
    print(html_path)
    return 0
