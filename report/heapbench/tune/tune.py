"""tune.py - `heapbench tune`: which allocator setting fixes my time or memory, and what does it cost?

Always holds: every knob and value is checked before anything runs (exit 2 naming the valid
ones); every point is verified (verify.py) before it is measured, and a point that did not take
effect is written as `not applied` and never measured or recommended; the points of one search
phase are measured in one interleaved runner invocation with the default point; a
recommendation is printed only when heapbench.stats' test says it beats the same-run default, in the
search and again in an independent confirmation run.

Search (grid.py): each knob alone from the defaults (phase 1), then the combinations of each
knob's best two or three values, re-measured with the default and those single-knob points
(phase 2); --full measures the whole grid at once; --budget caps the measured points.
Every recommendation is then re-tested on a fresh run of the default and the recommended points
(confirm/), since the search's own test favours the point it selected as the best of many.
Writes into the output directory: tune.csv, tune_front.csv, tune.png, and the runner's result
directories phase1/, phase2/ (or full/), confirm/. Prints the fronts, the recommendations and, last,
`results: DIR`.
"""
import datetime
import math
import os
import signal
import sys

from heapbench.tune import grid
from heapbench.tune import knobs
from heapbench.tune import measure
from heapbench.tune import pareto
from heapbench.tune import speed
from heapbench.tune import verify
from heapbench import cli, latency, layout, ownalloc, registry

CSV_COLUMNS = ["schema", "workload", "threads", "params", "allocator", "point", "settings", "applied", "reason", "phase",
               "reps_ok", "median_time_s", "peak_rss_kb", "rss_after_free_kb", "page_faults", "on_front"]
FRONT_COLUMNS = ["schema", "workload", "threads", "params", "allocator", "point", "settings", "median_time_s",
                 "memory_kb", "time_vs_default", "memory_vs_default"]


def tune_usage_error(message):
    """Exits 2 with one line saying what was wrong and what to do."""
    cli.usage_exit("heapbench tune", message)


def tune_args(argv):
    """(options, command) of the command line; command is the list after '--' ([] without)."""
    parser = cli.ArgParser(prog="heapbench tune", description="Sweep an allocator's knobs, verify each setting "
                        "took effect, and find the best trade-off of time against memory.",
                        epilog="heapbench tune [options] -- CMD ARGS... tunes any program (through heapbench "
                        "exec). Doc with measured figures: report/heapbench/tune/README.md")
    cli.add_option(parser, "allocators", "the allocator to tune, one name of allocators/registry.txt (default glibc)",
                   default="glibc")
    cli.add_option(parser, "workloads", "workloads, comma separated (or give -- CMD ARGS)")
    parser.add_argument("--grid", help="knobs and values: 'arena_max=1,2,4;tcache_count=0,7,64'")
    parser.add_argument("--full", action="store_true", help="measure every combination of the grid at once")
    parser.add_argument("--budget", type=int, help="measure at most N points (default point included)")
    parser.add_argument("--within", type=float, default=10.0, help="tolerance of the other objective, %% (10)")
    parser.add_argument("--speed", choices=speed.CHOICES, default="auto",
                        help="speed objective: auto (the program's printed figure when it has one, else wall "
                             "time, refused when wall time stays flat while CPU time moves), wall, cpu (user+sys), "
                             "metric (the --metric figure), or p99 (the p99 latency of malloc, all phases merged; "
                             "the runner is asked for --latency sampled)")
    parser.add_argument("--wall-anyway", action="store_true",
                        help="rank on wall time even when it stays flat while CPU time or the printed figure moves")
    cli.add_option(parser, "metric", "the program's own speed figure, read from its output as exec and run read "
                   "it (the first group of REGEX; ',higher' when higher is better): the speed objective")
    parser.add_argument("--memory", choices=["peak", "free"], default="peak",
                        help="memory objective: peak RSS, or RSS after the workload's free phase")
    parser.add_argument("--threshold", type=float, default=2.0, help="smallest change that counts, %% (2)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    cli.add_option(parser, "output", "output directory (default results/tune-<time>)")
    parser.add_argument("--list-knobs", action="store_true", help="print the allocator's knobs and exit")
    cli.add_option(parser, "threads", "thread counts, passed to the runner")
    cli.add_option(parser, "reps", type=int, default=5, help_text="repetitions per point (5: the fewest "
                        "with which the test can reach alpha 0.05)")
    cli.add_option(parser, "warmup", "warm-up runs, passed to the runner")
    parser.add_argument("--quick", action="store_true", help="the workloads' quick parameters")
    parser.add_argument(ownalloc.ALLOW_FLAG, action="store_true", help=ownalloc.ALLOW_HELP)
    cli.add_option(parser, "params", "param set, passed to the runner; repeat for more", action="append", default=[])
    cli.add_option(parser, "pin", "CPU list, passed to the runner")
    cli.add_option(parser, "timeout", "seconds per run, passed to the runner")
    cli.add_option(parser, "latency", f"latency sampling of the workloads, passed to the runner: {latency.MODES_TEXT} "
                   f"(default: {latency.SAMPLED} with --speed p99, else {latency.OFF})")
    opts, command = cli.parse_command_line(parser, argv, "give the command to tune (heapbench tune -a glibc -- CMD "
                                           "ARGS), or drop '--' to tune the workloads", prepare=tune_join_params)
    if opts.output and os.path.exists(opts.output) and not os.path.isdir(opts.output):
        parser.error(f"-o {opts.output}: a file, not a directory; give a new or existing directory")
    if opts.workloads and command:
        parser.error("give either -w WORKLOADS or -- CMD, not both")
    if opts.speed == "p99" and (command or opts.latency == latency.OFF):
        parser.error("--speed p99 needs the workloads' latency records: use -w WORKLOADS and not --latency off")
    if opts.budget is not None and opts.budget < 1:
        parser.error(f"--budget {opts.budget}: give a number of points >= 1")
    if opts.reps < 1 or not 0 < opts.alpha < 1:
        parser.error("-n must be >= 1 and --alpha in (0,1)")
    for name in ("within", "threshold"):  # nan and inf compare false with everything: checked before any run
        value = getattr(opts, name)
        if not math.isfinite(value) or value < 0:
            parser.error(f"--{name} {value}: give a percentage, a finite number >= 0 (e.g. --{name} 5)")
    return opts, command


def tune_join_params(argv):
    """argv with every '-p ARGS' / '--params ARGS' joined into one word, so that ARGS may start with '-'."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in ("-p", "--params") and i + 1 < len(argv):
            out.append(f"--params={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def tune_allocator(name):
    """verify.VerifyTarget of a registry allocator; exits 2 for an unknown name or a missing library."""
    allocators = registry.read_registry()
    entry = allocators.get(name)
    if entry is None:
        tune_usage_error(f"unknown allocator '{name}'; valid: {', '.join(allocators)}")
    if entry.library is None:
        tune_usage_error(f"allocator {name}: none of {entry.libraries} exists; run 'make deps' (or 'make') first")
    return verify.VerifyTarget(name, entry.library or None, entry.tunables)


def tune_runner_argv(opts, target, command):
    """The runner command line shared by every phase (without --env and -o)."""
    argv = [cli.binary(), "exec" if command else "run", "-a", target.name, "-n", str(opts.reps)]
    if opts.workloads:
        argv += ["-w", opts.workloads]
    pairs = [("-t", opts.threads), ("--warmup", opts.warmup), ("--pin", opts.pin), ("--timeout", opts.timeout)]
    argv += [a for flag, value in pairs if value for a in (flag, value)]
    argv += ["--quick"] if opts.quick else []
    latency_mode = opts.latency or (latency.SAMPLED if opts.speed == "p99" else None)
    argv += ["--latency", latency_mode] if latency_mode and not command else []
    argv += [a for p in opts.params for a in ("-p", p)]
    argv += ["--metric", opts.metric] if opts.metric else []
    return argv + (["--"] + command if command else [])


class TuneSearch:
    """The state of one tune: what was verified, what was measured, in which phase."""

    def __init__(self, opts, target, runner_argv, out):
        """A search with nothing verified or measured yet; out is the tune's output directory."""
        self.opts, self.target, self.runner_argv, self.out = opts, target, runner_argv, out
        self.verdicts = {}   # point key -> (applied, reason)
        self.order = []      # points in the order they were first verified
        self.cells = {}      # cell -> {point key: its latest measured point}
        self.defaults = {}   # cell -> {run tag: the default point measured in that run}
        self.measured = set()
        self.axis = None     # the speed axis (speed.py), resolved at the first measurement

    def key(self, point):
        """Identity of a point (its settings)."""
        return grid.grid_key(point)

    def env_text(self, point):
        """The point's settings as the runner's --env text (the ready-to-paste line)."""
        return knobs.knobs_env_text(self.target.family, point)

    def verify(self, points):
        """Verifies the points not verified yet; returns the applied ones, in order."""
        applied = []
        for point in points:
            key = self.key(point)
            if key not in self.verdicts:
                env = knobs.knobs_env(self.target.family, point)
                self.verdicts[key] = verify.verify_point(self.target, point, env)
                self.order.append(point)
                if not self.verdicts[key][0]:
                    print(f"tune: not applied: {grid.grid_label(point)}: {self.verdicts[key][1]}", file=sys.stderr)
            if self.verdicts[key][0]:
                applied.append(point)
        return applied

    def phase(self, tag, points):
        """Verifies points, keeps the budget, measures them in one runner invocation; returns the measured ones."""
        applied = self.verify(grid.grid_unique([()] + list(points)))
        applied = grid.grid_budget(applied, self.measured, self.opts.budget)
        if len(applied) < 2 or all(self.key(p) in self.measured for p in applied):
            return []  # nothing new to learn (budget spent, or every point measured already)
        for cell, records in self.measure(tag, applied).items():
            for key, record in records.items():
                self.cells.setdefault(cell, {})[key] = record
                if not record["point"]:
                    self.defaults.setdefault(cell, {})[tag] = record
        self.measured |= {self.key(p) for p in applied}
        return applied

    def measure(self, tag, points):
        """{cell: {point key: measured point}} of one runner invocation (in out/tag) over verified points."""
        envs = [self.env_text(p) for p in points]
        data = measure.measure_points(self.runner_argv, envs, os.path.join(self.out, tag),
                                         verify.verify_clean_env())
        refusal = ownalloc.own_refusal(data["runs"])
        if refusal and not self.opts.allow_own_allocator:
            raise measure.MeasureUsageError(refusal)
        by_env = {measure.measure_env_key(self.env_text(p)): p for p in points}
        cells = {}
        measured = measure.measure_cells(data, tag)
        if self.axis is None:
            try:
                self.axis = speed.speed_resolve(self.opts.speed, [r for c in measured.values() for r in c.values()])
            except ValueError as err:
                raise measure.MeasureUsageError(str(err)) from err
        for cell, records in measured.items():
            for env_key, record in records.items():
                point = by_env.get(env_key)
                if point is None:
                    continue
                record.update(point=point, label=grid.grid_label(point), env=self.env_text(point), phase=tag,
                              mem=record[self.opts.memory], mem_samples=record[self.opts.memory + "_samples"])
                speed.speed_apply(record, self.axis)  # the front's speed axis: wall, CPU, p99 or the printed figure
                cells.setdefault(cell, {})[self.key(point)] = record
        return cells

    def confirm(self, panels):
        """Re-tests every recommendation on a fresh, independent run of the default and the recommended points.

        The search chose each recommended point because its median was the best of many, which
        makes its first test optimistic; a second run that nobody selected on is not. A
        recommendation stands only if this run confirms it (pareto.pareto_confirm).
        """
        wanted = {rec["env"] for panel in panels for rec in panel["recs"] if rec["line"] != pareto.NO_GAIN}
        points = [()] + [p for p in self.order if p and self.env_text(p) in wanted]
        if len(points) < 2:
            return
        cells = self.measure("confirm", points)
        for panel in panels:
            fresh = cells.get(panel["cell"], {})
            for rec in panel["recs"]:
                if rec["line"] != pareto.NO_GAIN:
                    point = next(p for p in points if self.env_text(p) == rec["env"])
                    pareto.pareto_confirm(rec, fresh.get(()), fresh.get(self.key(point)),
                                          self.opts.threshold / 100.0, self.opts.alpha)

    def scores(self, points):
        """{point: (time ratio, memory ratio)}: geometric means over cells against the same-run default.

        An objective in which the point is not a significant improvement (heapbench.stats, in at least
        one cell) scores 1.0, like the default: on a noisy machine a median that is lower by
        chance must not earn the value a place in the combinations.
        """
        out = {}
        for point in points:
            ratios, significant = [], [False, False]
            for cell, records in self.cells.items():
                record = records.get(self.key(point))
                base = self.defaults[cell].get(record["tag"]) if record else None
                if not (record and base and record["time"] and base["time"] and record["mem"] and base["mem"]):
                    continue
                ratios.append((record["time"] / base["time"], record["mem"] / base["mem"]))
                for i, key in enumerate(("time", "mem")):
                    test = pareto.stats.compare_samples(base[key + "_samples"], record[key + "_samples"],
                                                          self.opts.threshold / 100.0, self.opts.alpha)
                    significant[i] |= test["verdict"] == pareto.stats.IMPROVEMENT
            if ratios:
                out[point] = tuple(math.exp(sum(math.log(r[i]) for r in ratios) / len(ratios)) if significant[i]
                                   else 1.0 for i in (0, 1))
        return out

    def run(self, the_grid):
        """The whole search: phase 1 and phase 2, or --full."""
        if self.opts.full:
            self.phase("full", grid.grid_full(the_grid))
            return
        singles = self.phase("phase1", grid.grid_singles(the_grid))
        best = grid.grid_best(the_grid, self.scores([p for p in singles if p]), self.opts.threshold / 100.0)
        combos = grid.grid_combos(best)
        if len(combos) > 1:
            chosen = [((knob, v),) for knob, values in best for v in values]
            self.phase("phase2", chosen + combos[1:])


def tune_rows(search):
    """(tune.csv rows, tune_front.csv rows, panels) of a finished search.

    A panel is a dict: cell, title, points (measured), defaults ({tag: default}), front, recs.
    """
    rows, front_rows, panels = [], [], []
    within = search.opts.within / 100.0
    for cell in sorted(search.cells, key=tune_cell_order):
        records, defaults = search.cells[cell], search.defaults.get(cell, {})
        points = list(records.values())
        front = pareto.pareto_front(points)
        on_front = {id(p) for p in front}
        workload, threads, params = cell
        for point in search.order:
            applied, reason = search.verdicts[search.key(point)]
            record = records.get(search.key(point))
            if applied and record is None:
                continue
            base = [workload, threads, params, search.target.name, grid.grid_label(point), search.env_text(point),
                    "yes" if applied else "not applied", reason]
            if record is None:
                rows.append(base + [""] * 6 + ["no"])  # no phase, reps or figures; not on the front
                continue
            figures = [record["phase"], record["reps_ok"], _secs(record["time"]), _whole(record["peak"]),
                       _whole(record["free"]), _whole(record["faults"]), "yes" if id(record) in on_front else "no"]
            if record["failed"]:
                base[7] = f"{reason}; {len(record['failed'])} run(s) failed: {record['failed'][0]}"
            rows.append(base + figures)
        for p in front:
            default = defaults.get(p["tag"])
            front_rows.append([workload, threads, params, search.target.name, p["label"], p["env"], _secs(p["time"]),
                               _whole(p["mem"]),
                               _ratio(p["time"], default and default["time"]),
                               _ratio(p["mem"], default and default["mem"])])
        recs = [pareto.pareto_recommend(points, defaults, obj, within, search.opts.threshold / 100.0, search.opts.alpha)
                for obj in ("time", "mem")]
        refused = tune_refuse_wall(search, points, defaults, recs)
        panels.append({"cell": cell, "title": _title(cell), "points": points, "defaults": defaults,
                       "front": front, "recs": recs, "refused": refused})
    return rows, front_rows, panels


def tune_refuse_wall(search, points, defaults, recs):
    """When the speed axis is wall time and wall time is flat while CPU time or the printed figure
    moves, withdraws every recommendation (both weigh speed) and returns the reason; else None.
    --wall-anyway ranks on wall time all the same."""
    if search.opts.wall_anyway or search.axis != "wall":
        return None
    reason = speed.speed_wall_flat(points, defaults, search.opts.threshold / 100.0, search.opts.alpha)
    if reason:
        for rec in recs:
            rec.update(line=pareto.NO_GAIN, label="", why="wall time is not this program's speed (see above)")
    return reason


def tune_cell_order(cell):
    """Sort key of cells: workload, thread count, params."""
    return (cell[0], cell[1] or 0, cell[2])


def _secs(value):
    """A time in seconds to the nanosecond (a p99 latency is a few hundred ns); None stays None."""
    return None if value is None else round(value, 9)


def _whole(value):
    """A count (KiB, faults) rounded to a whole number; None stays None."""
    return None if value is None else int(round(value))


def _ratio(value, base):
    """value/base - 1 as a rounded fraction, '' when unknown."""
    return round(value / base - 1.0, 4) if value is not None and base else ""


def _title(cell):
    """Readable name of a cell: 'thread-churn t=4 --mode=loop'."""
    workload, threads, params = cell
    return f"{workload} t={threads} {params}".strip()


def tune_print(panels, search):
    """Prints, per cell, the Pareto front, the trade-off at its two ends and the two recommendations."""
    mem_name = "peak RSS" if search.opts.memory == "peak" else "RSS after free"
    for panel in panels:
        points, defaults = panel["points"], panel["defaults"]
        print(f"{panel['title']}: {len(points)} points measured; speed: {speed.speed_name(search.axis, points)}")
        print(f"  Pareto front (median speed, median {mem_name}, change vs the same-run default):")
        for p in panel["front"]:
            default = defaults.get(p["tag"])
            dm = _ratio(p["mem"], default and default["mem"])
            print(f"    {p['label']:44} {_speed_text(p, default, search.axis)}  {p['mem'] / 1024:9.2f} MiB {_pct(dm)}")
        for what, p in _front_ends(panel["front"]):
            print(f"  trade-off, {what}: {p['label']}: {tune_tradeoff(p, defaults.get(p['tag']), mem_name)}")
        if panel.get("refused"):
            print(f"  {panel['refused']}")
        for rec in panel["recs"]:
            print(pareto.pareto_text(_as_printed(rec, search.axis, points), search.opts.within / 100.0))


def _as_printed(rec, axis, points):
    """The recommendation with its speed changes in the printed figure's own direction: a
    higher-is-better figure is ranked as 1/x (speed.py), so its change is turned back."""
    if rec["objective"] != "time" or axis != "metric" or not any(p.get("metric_higher") for p in points):
        return rec
    out = dict(rec)
    for key in ("change", "confirm_change"):
        if key in out and out[key] == out[key] and out[key] > -1:
            out[key] = 1.0 / (1.0 + out[key]) - 1.0
    return out


def _front_ends(front):
    """[(what, point)] of the front's smallest and fastest points other than the default (each once)."""
    others = [p for p in front if p["env"] != ""]
    if not others:
        return []
    ends = [("smallest", min(others, key=lambda p: p["mem"])), ("fastest", min(others, key=lambda p: p["time"]))]
    return ends if ends[0][1] is not ends[1][1] else ends[:1]


def tune_tradeoff(point, default, mem_name):
    """'peak RSS -15.4%, ops -72.0%, wall +1.2%, CPU +31.0%': every figure's change against the same-run default."""
    if default is None:
        return "no same-run default"
    parts = [f"{mem_name} {_pct_plain(_ratio(point['mem'], default['mem']))}"]
    if point.get("metric") is not None and default.get("metric"):
        parts.append(f"{point['metric_name']} {_pct_plain(_ratio(point['metric'], default['metric']))}")
    parts.append(f"wall {_pct_plain(_ratio(point.get('wall'), default.get('wall')))}")
    parts.append(f"CPU {_pct_plain(_ratio(point.get('cpu'), default.get('cpu')))}")
    return ", ".join(parts)


def _speed_text(p, default, axis):
    """The speed column of a front line: the figure in its own unit and its change against the default."""
    if axis == "metric":
        value = p.get("metric")
        change = _ratio(value, default and default.get("metric"))
        return f"{value:12.4g} {p['metric_name']} {_pct(change)}" if value is not None else " " * 24
    change = _ratio(p["time"], default and default["time"])
    if axis == "p99":
        return f"{p['time'] * 1e9:9.0f} ns p99 {_pct(change)}"
    return f"{p['time']:9.4f} s {_pct(change)}"


def _pct_plain(ratio):
    """A change as '+3.1%', 'n/a' when unknown."""
    return f"{ratio * 100:+.1f}%" if ratio != "" else "n/a"


def _pct(ratio):
    """A change as '(+3.1%)', blank when unknown."""
    return f"({ratio * 100:+6.1f}%)" if ratio != "" else " " * 9


def main(argv):
    """Entry point of `heapbench tune`; returns the exit code (130 on Ctrl-C, one line, no traceback)."""
    try:
        return tune_main(argv)
    except KeyboardInterrupt:
        print("heapbench tune: interrupted; the runs finished so far are in the output directory", file=sys.stderr)
        return 130


def tune_main(argv):
    """`heapbench tune` itself; returns the exit code."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `heapbench tune ... | head` ends quietly
    opts, command = tune_args(argv)
    target = tune_allocator(opts.allocators)
    family = "glibc" if target.is_refmalloc() else target.family
    target.family = family
    try:
        if opts.list_knobs:
            for knob in knobs.knobs_family(family):
                print(knob.describe())
            return 0
        the_grid = grid.grid_parse(family, opts.grid)
    except knobs.KnobError as err:
        tune_usage_error(str(err))
    if not os.access(cli.binary(), os.X_OK):
        tune_usage_error(f"{cli.binary()} is missing; run 'make' first")
    out = opts.output or os.path.join(layout.results_dir(), "tune-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as err:
        tune_usage_error(f"cannot create {out} ({err.strerror}); give a writable -o DIR")
    search = TuneSearch(opts, target, tune_runner_argv(opts, target, command), out)
    try:
        search.run(the_grid)
    except measure.MeasureUsageError as err:
        print(f"heapbench tune: {err}", file=sys.stderr)
        return 2
    except measure.results.ResultsError as err:
        print(f"heapbench tune: {err}", file=sys.stderr)
        return 1
    rows, front_rows, panels = tune_rows(search)
    try:
        search.confirm(panels)
    except (measure.MeasureUsageError, measure.results.ResultsError) as err:
        print(f"heapbench tune: the confirmation run failed ({err}); no recommendation stands", file=sys.stderr)
        for panel in panels:
            for rec in panel["recs"]:
                rec["line"] = pareto.NO_GAIN
    measure.results.write_csv(os.path.join(out, "tune.csv"), CSV_COLUMNS, ([1] + r for r in rows))
    measure.results.write_csv(os.path.join(out, "tune_front.csv"), FRONT_COLUMNS, ([1] + r for r in front_rows))
    if panels:
        pareto.pareto_plot([(panel["title"], panel["points"]) for panel in panels], os.path.join(out, "tune.png"),
                           "peak RSS" if opts.memory == "peak" else "RSS after free")
    tune_print(panels, search)
    print(f"results: {out}")
    return 0 if panels else 1
