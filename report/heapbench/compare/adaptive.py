"""adaptive.py - the A/B gate that adapts its rounds to the noise, `heapbench ci --ab --budget N|Ns`: rounds until every cell is decided or the budget is spent.

Always holds: the rounds are ab.py's (interleaved, or duets with --duet), judged by ab.judge
at the looks and with the alpha of heapbench.compare.sequential (at most sequential.LOOKS looks,
alpha spent over them, Holm over a metric's cells at each look): a cell x metric is decided at the
first look that gives it REGRESSION, IMPROVEMENT or SAME, and keeps that row (its note says at
which look and after how many rounds); later rounds run only the allocators with a cell still
undecided; the gate stops when every cell is decided, no look is left, or the budget is spent
(the last look's row of a cell still undecided says so); a seconds budget is the gate's wall time
from the start of its own process (the command's start and imports, the rounds, the looks): no
round starts after the budget's end less the time the longest look took to judge (kept for the
last look and the outputs; a look then judges the rounds it has), and a budget already spent
before the first round is one line and exit 2. The metrics are chosen once, on the first look's rounds (ab.choose: without --metrics, counts
instead of a time metric that spreads too much, or under instrumentation). A budget that cannot pay for the first
look, or that is 0 or not a number, is one line and exit 2 before anything runs. Every round's
output is kept under out_dir/rounds, as without a budget.
"""
import os
import sys
import time

from heapbench import stats
from heapbench.compare import ab
from heapbench.compare import paired
from heapbench.compare import sequential

DECIDED = (stats.REGRESSION, stats.IMPROVEMENT, stats.SAME)  # stats.stats_verdict's: SAME only within +-threshold


def budget(parser, args):
    """The parsed --budget (sequential.Budget), or exit 2 with what to give."""
    try:
        return sequential.parse_budget(args.budget)
    except ValueError as err:
        parser.error(str(err))


def _plan(parser, args, alpha):
    """(budget, first look's rounds, allocators); exit 2 when the budget cannot pay for look 1. A
    round measures allocators x env sets cells per side."""
    spend = budget(parser, args)
    allocators = [a for text in (args.allocators or ["glibc"]) for a in text.split(",") if a]
    cells = len(allocators) * max(1, len(args.env))
    first = sequential.first_look(alpha, cells, paired.min_p)
    try:
        sequential.check(spend, first, 2 * cells * args.round_reps)
    except ValueError as err:
        parser.error(str(err))
    return spend, first, allocators


def process_started():
    """The time.monotonic() at which this process started (the `heapbench` command itself: its front
    end execs Python in the same process), from /proc/self/stat's start time; now when unreadable."""
    try:
        with open("/proc/self/stat") as fh:
            ticks = int(fh.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime, after "pid (comm)"
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.monotonic()
    return time.monotonic() - max(0.0, age)


def _look(rows, pair, settings, look, alpha, done, state):
    """Judges the rounds so far at one look; moves each newly decided cell x metric into
    state['decided'] (its note: the look and the rounds), the others into state['latest'];
    state['order'] keeps the rows' order. Returns the number still open."""
    result = ab.judge(rows, pair, settings["metrics"], settings, holm=True, alpha=alpha)
    decided, latest = state["decided"], state["latest"]
    for row in result["rows"]:
        key = (row["label"], row["metric"])
        state["order"].setdefault(key, len(state["order"]))
        if key in decided:
            continue
        if row["verdict"] in DECIDED:
            row["note"] = "; ".join(filter(None, (row["note"], f"decided at look {look} of {sequential.LOOKS}, "
                                                  f"after {done} rounds (alpha {alpha:.3g})")))
            decided[key] = row
            latest.pop(key, None)
        else:
            latest[key] = row
    return len(latest)


def _open_allocators(latest, allocators):
    """The allocators with a cell still undecided (every one before the first look)."""
    names = {row["allocator"] for row in latest.values()}
    return [a for a in allocators if a in names] if names else allocators


def rounds_until_decided(measure, pair, settings, spend, first, allocators, choose=None, started=None):
    """The sequential rule's loop: measure(first_round, count, allocators, deadline) -> runs.csv
    rows of those rounds (each with 'round' and 'side'; none started after deadline, a
    time.monotonic() or None); choose(rows) -> the metrics to judge, called once on the first
    look's rows (None: settings' metrics); started: the time.monotonic() a seconds budget runs
    from (None: this process's start); returns the final {rows, missing, extra}. ValueError when a
    seconds budget was spent before the first round."""
    alphas = sequential.look_alphas(settings["alpha"])
    per_round = 2 * len(allocators) * max(1, settings.get("env_sets", 1)) * settings.get("round_reps", 1)
    rows, state = [], {"decided": {}, "latest": {}, "order": {}}
    started = process_started() if started is None else started
    done, measuring, judging = 0, 0.0, 0.0  # rounds run, seconds spent running them, the longest look
    end = started + spend.seconds if spend.seconds is not None else None
    if end is not None and time.monotonic() >= end:
        raise ValueError(f"--budget {spend.text}: the budget was spent before the first round (the gate's own "
                         f"start took {time.monotonic() - started:.0f} s); give a larger --budget")
    for look, alpha in enumerate(alphas, start=1):
        deadline = None if end is None else end - judging  # the last look and the outputs still to pay for
        left = None if deadline is None else deadline - time.monotonic()
        last = sequential.last_round(spend, per_round, done, measuring, left)
        target = sequential.next_look(first, last, done, len(alphas) - look + 1)
        if target is None or target <= done:
            break
        t0 = time.monotonic()
        new = measure(done + 1, target - done, _open_allocators(state["latest"], allocators), deadline)
        measuring += time.monotonic() - t0
        if not new:
            break
        rows += new
        if choose and look == 1:
            settings = dict(settings, metrics=choose(rows))
        done = max(row["round"] for row in new)
        t0 = time.monotonic()
        still = _look(rows, pair, settings, look, alpha, done, state)
        judging = max(judging, time.monotonic() - t0)
        print(f"ci --ab: look {look} of {len(alphas)} after {done} rounds (alpha {alpha:.3g}): "
              f"{len(state['decided'])} cell x metric decided, {still} open", file=sys.stderr, flush=True)
        if not still:
            break
    spent = f"{done} rounds, {time.monotonic() - started:.0f} s since the gate started"
    for row in state["latest"].values():
        row["note"] = "; ".join(filter(None, (row["note"], f"undecided when the budget ({spend.text}) was "
                                              f"spent: {spent}")))
    final = sorted(list(state["decided"].values()) + list(state["latest"].values()),
                   key=lambda r: state["order"][(r["label"], r["metric"])])
    return {"rows": final, "missing": [], "extra": []}


def gate(parser, args, head_words, settings, default_metrics, out_dir):
    """Runs the adaptive A/B gate; returns the final {rows, missing, extra} (no confirmation step)."""
    pair = ab.sides(parser, args.base, head_words)
    settings = dict(settings, metrics=ab.metrics(parser, args, default_metrics), duet=ab.duet_cpus(parser, args),
                    env_sets=len(args.env), round_reps=args.round_reps)
    spend, first, allocators = _plan(parser, args, settings["alpha"])

    def measure(start, count, names, deadline):
        return ab.run_rounds(args, pair, os.path.join(out_dir, "rounds"), start, count, ",".join(names),
                             args.env, settings["duet"], deadline)
    def chosen(rows):
        return ab.choose(args, settings["metrics"], settings, rows, os.path.join(out_dir, "rounds"), default_metrics)
    try:
        return rounds_until_decided(measure, pair, settings, spend, first, allocators, chosen)
    except ValueError as err:
        parser.error(str(err))
