"""main.py - `heapbench bisect --good REV --bad REV [--build CMD] [--metric M] -- CMD ARGS`: the options, their checks, and the search loop.

Always holds: every usage error (a --repo that is not a git repository, a revision that is not a
commit, good not an ancestor of bad (swapped, on a side line, or of another history), an
end that does not build, a metric the program does not give, good and bad that do not differ) is
one line and exit 2 before the first step; the user's work tree is never touched (repo.py); each
step's runs are results directories under OUT (report, compare and check read them); the state
is saved after every step, so Ctrl-C (exit 130) loses at most the step under way and `--resume
OUT` goes on, with the saved settings only (an option beside it is a usage error, never ignored);
exit 0 when one commit is named, 1 when a range of commits is left.
"""
import datetime
import os
import shutil
import signal
import sys

from heapbench import cli, layout
from heapbench.bisect import decide, fromhistory, measure, output, repo, search, state as st

PROG = "heapbench bisect"
MORE_STEPS = 6  # steps beyond log2(commits) before a search of skipped or undecided commits stops
COUNTS = ("minflt", "maxrss_kb")  # runs.csv counts that no load moves
COUNTED = "metric_instructions"  # instructions counted by valgrind (runs of their own, exec --count-instructions)
TIMES = ("task_clock_ms", "wall_s")
TIME_RUNS = 3  # runs of each role in a step's round on a time: the round keeps the least (the load only adds)
DEFAULT_METRICS = COUNTS + (COUNTED,) + TIMES  # deterministic first: time only where nothing else shows the change
NUMERIC = {"wall_s", "user_s", "sys_s", "maxrss_kb", "minflt", "majflt", "nvcsw", "nivcsw", "task_clock_ms",
           "page_faults", "context_switches", "cpu_migrations", "cycles", "instructions"}


def parser():
    """The options of `heapbench bisect`."""
    p = cli.ArgParser(prog=PROG, description="Find the first commit between --good and --bad whose program behaves "
                      "like --bad, by measuring it (runs of each step interleaved with both ends).")
    p.add_argument("--good", metavar="REV", help="a commit that behaves as wanted")
    p.add_argument("--bad", metavar="REV", help="a later commit that does not (good must be its ancestor)")
    p.add_argument("--repo", metavar="DIR", default=".", help="the git repository (default: .); never modified")
    p.add_argument("--from-history", action="store_true",
                   help="take --good and --bad from a change point of a history: the commits of the last point "
                        "before the change and of the first after it (each point's commit field, else its label), "
                        "in the series --cell, --metric")
    p.add_argument("--db", metavar="URL", default=None,
                   help="with --from-history: the history (as 'heapbench history --db'; default $HEAPBENCH_HISTORY, "
                        "else history.sqlite in the results location)")
    p.add_argument("--testbed", metavar="T", help="with --from-history: the testbed (default: the one holding --cell)")
    p.add_argument("--cell", metavar="C", help="with --from-history: the series' cell, as 'heapbench history changes' "
                   "prints it (workload/allocator/tN [params])")
    p.add_argument("--change", metavar="LABEL", help="with --from-history: the label of the first point after the "
                   "change (default: the series' newest change point)")
    p.add_argument("--build", metavar="CMD", default="", help="shell command that builds a commit, run in a copy "
                   "of its files (e.g. 'make prog'); a commit whose build fails is skipped")
    p.add_argument("--metric", metavar="M", help="what decides: a runs.csv column (minflt, maxrss_kb, wall_s, "
                   "task_clock_ms, ...) or NAME=REGEX for a figure the program prints; default: the first of "
                   + ", ".join(DEFAULT_METRICS) + " in which the ends differ")
    p.add_argument("--count-instructions", action="store_true",
                   help="decide on the instructions valgrind counts (" + COUNTED + ", runs of their own); without "
                   "--metric they are tried after page faults and peak RSS, before time, when valgrind is installed")
    p.add_argument("-a", "--allocators", metavar="A", default="glibc", help="the allocator to run under (default glibc)")
    cli.add_option(p, "allocator", "the allocator library --build makes in each commit's files (PATH relative to "
                   "them, e.g. tiny=build/libtiny.so), measured with -a NAME: bisect a user's allocator")
    cli.add_option(p, "workloads", "measure this workload's cell (heapbench run) instead of a program after '--'")
    cli.add_option(p, "params", "with -w: the workload's one param set (default: its LIST set, which must be one)")
    cli.add_option(p, "threads", "with -w: the one thread count of the cell")
    p.add_argument("--max-rounds", type=int, default=15, metavar="N",
                   help="rounds (good, commit, bad) a step may take before it is left undecided (default 15)")
    p.add_argument("--boundary-rounds", type=int, default=40, metavar="N",
                   help="rounds a step next to the last good or first bad commit may take, past --max-rounds, while "
                        "its rounds' spread says that they can decide it (default 40; --max-rounds: none more)")
    p.add_argument("--alpha", type=float, default=0.05, help="error rate of each decision (default 0.05)")
    p.add_argument("--min-change", default="1%", help="the smallest good-to-bad change worth bisecting (default 1%%)")
    p.add_argument("--timeout", type=float, metavar="S", help="timeout of one run of the program")
    p.add_argument("--build-timeout", type=float, default=600, metavar="S", help="timeout of one build (default 600)")
    cli.add_option(p, "output", "output directory (default bisect-<time> in the results location)")
    p.add_argument("--resume", metavar="DIR", help="continue an interrupted bisect in DIR")
    return p


def settings_of(p, opts, command):
    """The checked settings of a fresh bisect (usage errors exit 2)."""
    if opts.from_history:
        if opts.good or opts.bad:
            p.error("--from-history takes the ends from the history; leave out --good and --bad")
        if not opts.cell or not (opts.metric or opts.count_instructions):
            p.error("--from-history: give the series: --cell C and --metric M (the metric of its change point)")
    elif opts.db or opts.testbed or opts.cell or opts.change:
        p.error("--db, --testbed, --cell and --change name a history's change point: give --from-history too")
    elif not opts.good or not opts.bad:
        p.error("give both ends: --good REV --bad REV (or --from-history --cell C --metric M)")
    if command and opts.workloads:
        p.error("give a workload cell (-w W) or a program after '--', not both")
    if not command and not opts.workloads:
        p.error("give the program after '--' (heapbench bisect --good A --bad B -- ./prog ARGS) or a workload cell (-w W)")
    if (opts.params or opts.threads) and not opts.workloads:
        p.error("-p and -t describe a workload cell: give -w W too")
    for name, value in (("-w", opts.workloads), ("-t", opts.threads)):
        if value and "," in value:
            p.error(f"{name} {value}: bisect measures one cell; give one value")
    if opts.max_rounds < decide.MIN_ROUNDS:
        p.error(f"--max-rounds {opts.max_rounds}: a decision needs at least {decide.MIN_ROUNDS} rounds")
    if opts.boundary_rounds < opts.max_rounds:
        p.error(f"--boundary-rounds {opts.boundary_rounds}: give at least --max-rounds ({opts.max_rounds})")
    if not 0 < opts.alpha < 1:
        p.error(f"--alpha {opts.alpha}: give a number between 0 and 1, e.g. 0.05")
    try:
        min_change = cli.fraction(opts.min_change)
    except ValueError:
        p.error(f"--min-change {opts.min_change!r}: give a percentage such as 2%")
    if "," in opts.allocators:
        p.error("-a: bisect measures under one allocator; give one name")
    metric, regex = metric_of(p, opts.metric)
    if opts.count_instructions:
        if metric:
            p.error("--count-instructions and --metric: give one of them (--count-instructions decides on "
                    f"{COUNTED})")
        metric = COUNTED
    if metric == COUNTED:
        cli.need_valgrind(p.prog, "--count-instructions")
    if not os.path.isdir(opts.repo):
        p.error(f"--repo {opts.repo}: no such directory")
    try:
        repo.check_repo(opts.repo)
    except repo.RepoError as err:
        p.error(str(err))
    library = library_of(p, opts.allocator, opts.allocators)
    return {"repo": os.path.abspath(opts.repo), "build": opts.build, "command": command, "metric": metric,
            "metric_regex": regex, "allocator": opts.allocators, "max_rounds": opts.max_rounds,
            "boundary_rounds": opts.boundary_rounds, "alpha": opts.alpha,
            "min_change": min_change, "timeout": opts.timeout, "build_timeout": opts.build_timeout,
            "workload": opts.workloads, "params": opts.params, "threads": opts.threads, "library": library}


def library_of(p, text, allocator):
    """(NAME, PATH) of --allocator NAME=PATH, PATH relative to each commit's files; None without it."""
    if not text:
        return None
    name, eq, path = text.partition("=")
    if not eq or not name or not path:
        p.error(f"--allocator {text!r}: give NAME=PATH, the library --build makes, e.g. tiny=build/libtiny.so")
    if os.path.isabs(path):
        p.error(f"--allocator {text}: PATH is the library each commit's build makes, relative to the commit's files "
                "(an absolute path would be one library for every commit)")
    if name != allocator:
        p.error(f"--allocator {name}=...: measure under it with -a {name} (-a is {allocator})")
    return [name, path]


def metric_of(p, text):
    """(metric column or None for the default order, [exec --metric words])."""
    if not text:
        return None, []
    if "=" in text:
        name = text.split("=", 1)[0]
        if not name.replace("_", "").isalnum():
            p.error(f"--metric {text!r}: the name before '=' takes letters, digits and _")
        return "metric_" + name, [text]
    if text not in NUMERIC:
        p.error(f"--metric {text}: not a runs.csv column; give one of {', '.join(sorted(NUMERIC))}, or NAME=REGEX")
    return text, []


def tree(out_dir, commit):
    """The directory a commit's files are exported to."""
    return os.path.join(out_dir, "trees", commit[:12])


def product(settings):
    """The file a commit's build must make: --allocator's library, else None."""
    return settings["library"][1] if settings.get("library") else None


def prepare_end(p, settings, out_dir, commit, name):
    """Exports and builds one end; an end that does not build is a usage error."""
    path = tree(out_dir, commit)
    repo.export(settings["repo"], commit, path)
    ok, why = measure.build(path, settings["build"], settings["build_timeout"], product(settings))
    if not ok:
        hint = " (the build command was not found)" if why.startswith("build exit 127") else ""
        p.error(f"the {name} end {commit[:12]} does not build{hint}: {why}; see {path}/build.log")
    return path


def run_round(settings, trees, out_dir, k, roles, counted=False, repeat=1):
    """One round: each role of roles (rotated by k) run once, or repeat times over (g c b g c b ...,
    each figure the least of its repeats; directories round-NN-ROLE-J), under valgrind's count when
    counted; {role: values} or raises StepFailed."""
    order = roles[k % len(roles):] + roles[:k % len(roles)]
    values = {}
    for j in range(1, repeat + 1):
        for role in order:
            name = f"{'counted-' if counted else ''}round-{k:02d}-{role}" + (f"-{j}" if repeat > 1 else "")
            vals, why = measure.run_once(trees[role], settings, os.path.join(out_dir, name), counted)
            if vals is None:
                raise StepFailed(role, why)
            old = values.get(role)
            values[role] = vals if old is None else {m: min(v, old[m]) if m in old else v for m, v in vals.items()}
    return values


class StepFailed(Exception):
    """A run of one role failed (its status was not ok)."""

    def __init__(self, role, why):
        super().__init__(f"{role}: {why}")
        self.role, self.why = role, why


def pick_metric(settings, rounds, candidates):
    """(metric, change figures) of the ends' rounds: the first of candidates whose good-to-bad
    change is beyond --min-change with an interval that excludes 0; (None, None) if none."""
    for metric in candidates:
        g = [r["good"].get(metric) for r in rounds]
        b = [r["bad"].get(metric) for r in rounds]
        if any(v is None for v in g + b):
            continue
        ratios = [y / x - 1 for x, y in zip(g, b) if x]
        if len(ratios) < decide.MIN_ROUNDS:
            continue
        # Student's t of the rounds' ratios at the step's level (a bootstrap of three values decided on noise)
        change, low, high = decide.interval(ratios, 1 - settings["alpha"] / len(decide.looks(settings["max_rounds"])))
        if abs(change) >= settings["min_change"] and (low > 0 or high < 0):
            return metric, {"change": change, "low": low, "high": high, "rounds": len(rounds),
                            "values": [[x, y] for x, y in zip(g, b)]}
    return None, None


def ends_stages(settings):
    """[(counted, metrics, last round)]: what the ends are measured for, in order. The metric asked
    for, up to --max-rounds; else the counts in MIN_ROUNDS plain rounds, valgrind's instructions in
    MIN_ROUNDS counted rounds (when valgrind is installed), then the times up to --max-rounds."""
    if settings["metric"]:
        return [(settings["metric"] == COUNTED, [settings["metric"]], settings["max_rounds"])]
    stages = [(False, list(COUNTS), decide.MIN_ROUNDS)]
    if os.access(cli.VALGRIND, os.X_OK):
        stages.append((True, [COUNTED], decide.MIN_ROUNDS))
    else:
        measure.say(f"valgrind is not installed: {COUNTED} is not tried (make deps installs it)")
    return stages + [(False, list(TIMES), settings["max_rounds"])]


def check_ends(p, settings, trees, out_dir):
    """Measures the ends until a metric separates them (or max_rounds); returns (metric, effect).
    A time is measured as the steps measure it (each round keeps the least of TIME_RUNS runs a role),
    so the ends' change and the steps' rounds are the same figure."""
    rounds = {}  # (counted, repeat): rounds of that kind, reused by the later stages
    for counted, metrics, last in ends_stages(settings):
        repeat = TIME_RUNS if any(m in TIMES for m in metrics) else 1
        kept = rounds.setdefault((counted, repeat), [])
        for k in range(1, last + 1):
            if k > len(kept):
                try:
                    kept.append(run_round(settings, trees, os.path.join(out_dir, "ends"), k, ["good", "bad"], counted,
                                          repeat))
                except StepFailed as err:
                    p.error(f"the {err.role} end's program failed ({err.why}); fix the command or the ends")
            if settings["metric"] and not any(settings["metric"] in r["good"] for r in kept):
                p.error(f"--metric {settings['metric']}: the program gave no value (a --metric regex that never "
                        "matched, or a counter this machine does not measure)")
            if k in decide.looks(settings["max_rounds"]) or k == last:
                metric, effect = pick_metric(settings, kept[:k], metrics)
                if metric:
                    return metric, effect
    p.error(f"--good and --bad do not differ by {settings['min_change'] * 100:g}% or more in "
            f"{settings['metric'] or ', '.join(DEFAULT_METRICS)} after {settings['max_rounds']} rounds "
            "(the good end behaves like the bad one); nothing to bisect")


def step(settings, state, trees, out_dir, index, boundary=False, record=None):
    """Measures one commit against both ends; returns its step record. A step on the boundary
    (search.on_boundary) may go on past --max-rounds up to --boundary-rounds while the rounds' spread
    says that those can decide it (decide.rounds_needed); record: an undecided step's record whose
    rounds are continued (a revisit), in its own directory."""
    commit = state["commits"][index]
    step_dir = record["dir"] if record else os.path.join(out_dir, f"step-{len(state['steps']) + 1:02d}-{commit[:12]}")
    if not record:
        shutil.rmtree(step_dir, ignore_errors=True)
    path = tree(out_dir, commit)
    repo.export(settings["repo"], commit, path)
    ok, why = measure.build(path, settings["build"], settings["build_timeout"], product(settings))
    if not ok:
        return dict(record, extended=True, revisits=record.get("revisits", 0) + 1,
                    reason=f"{record['reason']}; revisited, the build failed: {why}") if record else \
            {"verdict": search.SKIP, "reason": why, "rounds": 0, "dir": step_dir}
    budget = settings.get("boundary_rounds", settings["max_rounds"])  # a state saved before the option: none
    at = decide.boundary_looks(settings["max_rounds"], budget)
    last = budget if boundary else settings["max_rounds"]
    metric, rounds, interval = state["metric"], [tuple(r) for r in (record or {}).get("values", [])], None
    counted = metric == COUNTED
    ends = state["ends"].get("values") if counted else None
    repeat = TIME_RUNS if metric in TIMES else 1
    base = {"dir": step_dir, "extended": boundary, "revisits": (record or {}).get("revisits", -1) + 1}
    verdict = None
    for k in range(len(rounds) + 1, last + 1):
        try:
            if ends:  # a count valgrind gives the same every run: the ends' counts are measured once, in the ends' rounds
                v = run_round(settings, dict(trees, commit=path), step_dir, k, ["commit"], counted)
                v["good"], v["bad"] = ({metric: x} for x in ends[(k - 1) % len(ends)])
            else:
                v = run_round(settings, dict(trees, commit=path), step_dir, k, ["good", "commit", "bad"], counted,
                              repeat)
        except StepFailed as err:
            if err.role != "commit":
                raise
            shutil.rmtree(path, ignore_errors=True)
            return dict(base, verdict=search.SKIP, reason=f"run failed: {err.why}", rounds=k, values=rounds)
        rounds.append((v["good"][metric], v["commit"][metric], v["bad"][metric]))
        if k not in at:
            continue
        verdict, interval = decide.decide(rounds, settings["alpha"], len(at), state["ends"]["change"])
        if verdict or (k >= settings["max_rounds"] and
                       decide.rounds_needed(rounds, settings["alpha"], len(at)) > last):
            break
    shutil.rmtree(path, ignore_errors=True)
    if verdict:
        return dict(base, verdict=verdict, rounds=len(rounds), interval=interval, values=rounds)
    return dict(base, verdict="undecided", reason=f"not decided in {len(rounds)} rounds", rounds=len(rounds),
                interval=interval, values=rounds)


def worth_revisiting(settings, state):
    """{index} of the undecided steps not yet given --boundary-rounds whose rounds' spread says that
    those rounds can decide them (not a commit halfway between the ends)."""
    budget = settings["boundary_rounds"]
    looks = len(decide.boundary_looks(settings["max_rounds"], budget))
    return {int(i) for i, s in state["steps"].items() if s["verdict"] == "undecided" and not s.get("extended")
            and decide.rounds_needed([tuple(r) for r in s.get("values", [])], settings["alpha"], looks) <= budget}


def search_loop(settings, state, out_dir):
    """Steps until the search is over, then revisits of undecided commits on the boundary; the state
    saved after each."""
    trees = {"good": tree(out_dir, state["good"]), "bad": tree(out_dir, state["bad"])}
    n = len(state["commits"])
    can_extend = settings.get("boundary_rounds", settings["max_rounds"]) > settings["max_rounds"]
    while True:
        verdicts = output.search_verdicts(state)
        index, record = search.next_index(n, verdicts), None
        if index is None and can_extend:
            index = search.revisit(n, verdicts, worth_revisiting(settings, state))
            record = state["steps"].get(str(index))
        if index is None:
            return
        if output.steps_taken(state) >= search.max_steps(n) + MORE_STEPS:
            measure.say(f"stopping after {output.steps_taken(state)} steps (log2 of the range + {MORE_STEPS}): too many "
                        "commits were skipped or undecided; the answer is the range left (--max-rounds or a "
                        "steadier metric would decide more)")
            return
        record = step(settings, state, trees, out_dir, index, search.on_boundary(n, verdicts, index), record)
        state["steps"][str(index)] = record
        st.save(out_dir, state)
        measure.say(f"step {output.steps_taken(state)}: {state['commits'][index][:12]} {record['verdict']}"
                    + (" (revisited)" if record.get("revisits") else "")
                    + (f" ({record['reason']})" if record.get("reason") else f" after {record['rounds']} rounds"))


def fresh(p, opts, command):
    """Checks everything, measures the ends and returns (settings, state, out_dir)."""
    settings = settings_of(p, opts, command)
    ends = (opts.good, opts.bad) if not opts.from_history else ends_of_change(p, opts, settings)
    try:
        good, bad = (repo.commit_of(settings["repo"], r) for r in ends)
        commits = repo.commit_range(settings["repo"], good, bad)
    except repo.RepoError as err:
        p.error(str(err))
    out_dir = opts.output
    if os.path.exists(os.path.join(out_dir, "bisect.json")):
        p.error(f"{out_dir} holds a bisect already; continue it with --resume {out_dir}, or give another -o")
    os.makedirs(out_dir, exist_ok=True)
    trees = {"good": prepare_end(p, settings, out_dir, good, "good"), "bad": prepare_end(p, settings, out_dir, bad, "bad")}
    metric, effect = check_ends(p, settings, trees, out_dir)
    measure.say(f"{len(commits)} commit{'s' if len(commits) != 1 else ''} after the good end; ends differ in {metric}: "
                f"{effect['change'] * 100:+.1f}% after {effect['rounds']} rounds; steps into {out_dir}")
    state = {"version": st.VERSION, "settings": settings, "good": good, "bad": bad, "commits": commits,
             "metric": metric, "ends": effect, "steps": {}}
    st.save(out_dir, state)
    return settings, state, out_dir


def _named(label, rev):
    """A history point for the user: its label, with its commit when that is not the label."""
    return label if label == rev else f"{label} (commit {rev})"


def ends_of_change(p, opts, settings):
    """(good, bad) revisions of --from-history's change point: each point's commit field, else its
    label; each must be a commit of --repo."""
    try:
        ends = fromhistory.find(opts.db, opts.cell, settings["metric"], opts.testbed, opts.change)
    except fromhistory.EndsError as err:
        p.error(str(err))
    revs = fromhistory.revisions(ends)
    for label, commit, rev in ((ends.good_label, ends.good_commit, revs[0]), (ends.bad_label, ends.bad_commit, revs[1])):
        if repo.is_commit(settings["repo"], rev):
            continue
        if commit:
            p.error(f"the history's point {label!r} was measured at commit {commit}, which is not a commit of "
                    f"{settings['repo']}: give the repository it was measured in (--repo), or --good and --bad")
        p.error(f"the history's point {label!r} has no commit and its label is not a commit of {settings['repo']}: "
                "add the nightly runs with 'history add --commit REV' (or a label that is a hash or git describe's "
                "output), or give --good and --bad instead")
    where = f"change point at {ends.bad_label}" if ends.found else f"--change {ends.bad_label}"
    measure.say(f"from the history: {ends.testbed} {opts.cell} {settings['metric']}, {where} (point {ends.bad_index + 1} "
                f"of {ends.points}): good {_named(ends.good_label, revs[0])}, bad {_named(ends.bad_label, revs[1])}")
    settings["history"] = {"testbed": ends.testbed, "cell": opts.cell, "good_label": ends.good_label,
                           "bad_label": ends.bad_label, "good_commit": ends.good_commit, "bad_commit": ends.bad_commit}
    return revs


def resumed(p, opts):
    """(settings, state, out_dir) of --resume DIR, the ends' trees exported again if missing."""
    opts.resume = os.path.abspath(opts.resume)
    try:
        state = st.load(opts.resume)
    except ValueError as err:
        p.error(str(err))
    settings = state["settings"]
    for end in ("good", "bad"):
        if not os.path.isdir(tree(opts.resume, state[end])):
            prepare_end(p, settings, opts.resume, state[end], end)
    return settings, state, opts.resume


def check_resume_alone(p, opts, command):
    """--resume DIR goes on with the settings saved in DIR: any other option or a program beside it
    is a usage error (it would be ignored: a run that asked for X and got the saved Y)."""
    given = [a.option_strings[-1] for a in p._actions if a.dest not in ("resume", "help") and a.option_strings
             and getattr(opts, a.dest) != a.default]
    if command:
        given.append("the program after '--'")
    if given:
        p.error(f"--resume {opts.resume} goes on with the settings saved in its bisect.json; leave out "
                f"{', '.join(given)} (to change them, start a new bisect with another -o)")


def _interrupt(signum, frame):
    """SIGTERM stops a bisect as Ctrl-C does (the steps done are kept)."""
    raise KeyboardInterrupt


def main(argv):
    """Runs `heapbench bisect`; returns the exit status. Ctrl-C and SIGTERM stop it with the steps
    done saved, also when it was started in the background (where SIGINT comes in ignored)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    p = parser()
    opts, command = cli.parse_command_line(p, argv, "the program to measure, e.g. -- ./prog ARGS")
    if opts.resume:
        check_resume_alone(p, opts, command)
    # absolute: each step runs in a commit's exported files, where a relative DIR would name another
    # place; and known before the first step, so that Ctrl-C can always say where to --resume
    opts.output = os.path.abspath(opts.output or os.path.join(
        layout.results_dir(), "bisect-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    try:
        settings, state, out_dir = resumed(p, opts) if opts.resume else fresh(p, opts, command)
        search_loop(settings, state, out_dir)
    except KeyboardInterrupt:
        where = opts.resume or opts.output
        if os.path.exists(os.path.join(where, "bisect.json")):
            print(f"{PROG}: interrupted; the steps done are saved; continue with --resume {where}", file=sys.stderr)
        else:
            print(f"{PROG}: interrupted while the ends were measured, before any step: nothing to resume; "
                  f"start it again (its runs so far are in {where})", file=sys.stderr)
        return 130
    except (measure.MeasureError, repo.RepoError, StepFailed) as err:
        cli.usage_exit(PROG, str(err))
    subjects = {c: repo.subject(settings["repo"], c) for c in state["commits"]}
    for line in output.lines(state, subjects):
        print(line)
    answer = output.write(out_dir, state)
    shutil.rmtree(os.path.join(out_dir, "trees"), ignore_errors=True)
    print(f"results: {out_dir}")
    return 0 if answer["first_bad"] else 1
