#!/usr/bin/python3
"""ci.py - `heapbench ci`: the regression gate, against a baseline, a history (cihistory.py) or as an A/B gate (ab.py).

Always holds: the gate fails (exit 1) only when a cell x metric regresses twice, on two
independent batches: batch 1 (the quick matrix) screens without multiple-test correction and
names suspects; batch 2 re-runs just the suspect cells with enough reps for Holm's correction
over the suspects to be able to reach alpha, and only its REGRESSIONs count; it passes (exit 0)
only when it decided every comparison (gate.py: UNDECIDED is exit 3 unless --allow-unknown).
Without --metrics, the gate against a baseline judges what the batch can show (metricchoice.py):
the counts when the runs were instrumented, and the counts instead of a time metric whose
rep-to-rep spread is above half its threshold, saying so in one line.
Against a baseline, values are by default ratios to glibc of the same run and rep (--relative),
so a slower CI machine is not a regression; --absolute compares raw figures of one host and
testbed only (crossing.py). Exit 2 on usage errors, a baseline or history that cannot be read,
or a history without this testbed; --update-baseline replaces the baseline with batch 1 (with
--history: adds it) and exits 0.
"""
import sys

from heapbench import interrupt

INTERRUPTED = "no verdict was given; the runs measured so far are in its output directory"
if __name__ == "__main__":  # before the imports below: Ctrl-C while they load is one line too
    interrupt.quiet("heapbench ci", INTERRUPTED)

import math
import os
import shutil
import time

from heapbench import cli, latency, layout, results
from heapbench.compare import ab
from heapbench.compare import adaptive
from heapbench import cells
from heapbench.compare import cihistory
from heapbench.history.commit import commit_arg
from heapbench.history.store import label_arg
from heapbench.compare import gate
from heapbench.compare import launch
from heapbench.compare import metricchoice
from heapbench.compare import verdicts
from heapbench import stats
from heapbench.compare import compare

# every result file, so that the baseline is a directory heapbench check calls whole (runs.csv counts its rows in each)
BASELINE_FILES = ("meta.json",) + tuple(sorted(results.COUNT_FILES))
MAX_CONFIRM_REPS = 30
CROSSING_FIX = ("drop --absolute (the gate is relative by default), or make a baseline on this testbed "
                "(--update-baseline) or gate against this testbed's --history")


def ci_parser():
    """The argparse parser of `heapbench ci`."""
    parser = cli.ArgParser(prog="heapbench ci", allow_abbrev=False,
                           description="Run the quick matrix and gate it against a baseline (--baseline), "
                                       "or against this testbed's own past (--history); or gate a pull request "
                                       "on its base and head run side by side (--ab).",
                           epilog="A/B gate: heapbench ci --ab --base 'CMD ARGS' [options] -- CMD ARGS "
                                  "(or --base prog:OLD -- prog:NEW). Exit: 0 pass, 1 a regression confirmed "
                                  "on a re-run, 2 usage error or no history for this testbed, 3 undecided "
                                  "(a comparison was UNDECIDED; --allow-unknown passes it).")
    parser.add_argument("--baseline", default=os.path.join(layout.results_dir(), "baseline"),
                        help="baseline results directory (default results/baseline)")
    parser.add_argument("--update-baseline", action="store_true",
                        help="replace the baseline with this run (with --history: add it to the history without gating)")
    parser.add_argument("--history", nargs="?", const="", metavar="URL",
                        help="gate against this testbed's own past in a history (an SQLite file or postgresql://...; "
                             "no URL: $HEAPBENCH_HISTORY, else history.sqlite in the results location)")
    parser.add_argument("--add", action="store_true", help="with --history: add this run to the history when the gate passes")
    parser.add_argument("--label", type=label_arg, help="with --history: the label of the added run (default its commit)")
    parser.add_argument("--commit", type=commit_arg, metavar="REV",
                        help="with --history: the commit under test of the added run (a hash, or a revision of the git "
                             "repository here; default: the commit --label names, else none)")
    parser.add_argument("--window", type=int, default=cihistory.WINDOW, metavar="N",
                        help="with --history: compare with the last N points after the last change point (default %(default)s)")
    parser.add_argument("--fixed-thresholds", action="store_true",
                        help="with --history: gate on the thresholds as given (--threshold, .heapbench.toml, else 10%% "
                             f"memory, 5%% time), not {cihistory.SPREAD_FACTOR} x each series' spread over its window")
    cli.add_option(parser, "output", "where the batches go (default results/ci-<time>)", aliases=["--out"])
    cli.add_option(parser, "reps", "reps of batch 1 (default 5; with --ab: rounds, default 8)", type=int)
    parser.add_argument("--absolute", action="store_true", help="compare raw figures, not ratios to glibc")
    for concept in ("workloads", "allocators", "threads", "params"):
        cli.add_option(parser, concept, "passed to 'run' for batch 1", action="append", default=[])
    cli.add_option(parser, "env", "passed to 'run' for batch 1", action="append", default=[])
    for concept in ("allocator", "workload_bin", "pin", "timeout", "warmup"):
        cli.add_option(parser, concept, "passed to 'run' for both batches", action="append", default=[])
    cli.add_option(parser, "priority", "passed to 'run' for both batches: the measured processes' scheduling, "
                   "normal, nice (nice -20) or rt (SCHED_FIFO): other jobs of a busy machine preempt them far less "
                   "(needs root or CAP_SYS_NICE)", action="append", default=[])
    cli.add_option(parser, "latency", f"passed to 'run' for both batches: {latency.MODES_TEXT}; {latency.SAMPLED} "
                   "writes latency.csv, so that the default --metrics gate on p99 and p99.9 too")
    parser.add_argument("--count-instructions", action="store_true",
                        help="passed to 'run' for both batches: valgrind counts into metric_instructions, "
                             "a deterministic metric, which the gate then judges by default (the runs' times "
                             "and memory are valgrind's and are not gated)")
    parser.add_argument("--ab", action="store_true",
                        help="A/B gate of a pull request: run --base and the command after '--' (or two "
                             "prog:NAME definitions) interleaved, rounds of -n, and gate on the paired differences")
    parser.add_argument("--budget", metavar="RUNS|SECONDS",
                        help="with --ab: adapt the rounds to the noise: add rounds until every comparison is "
                             "decided or the budget is spent, runs (400) or seconds (60s, 2m: the gate's wall time from its own start); a "
                             "sequential rule keeps false alarms at --alpha, no confirmation step")
    parser.add_argument("--round-reps", type=int, default=1, metavar="K",
                        help="with --ab: runs of each side in a round, back to back, their median the side's value "
                             "(default 1; more pairs less noise where starting the runner costs more than the program)")
    parser.add_argument("--duet", action="store_true",
                        help="with --ab: run base and head at the same time, each on its own half of the CPUs "
                             "(swapping every round), so that both share the same interference")
    parser.add_argument("--base", metavar="'CMD ARGS'",
                        help="with --ab: the base build's command line (one shell word), or prog:NAME")
    parser.add_argument("--allow-unknown", action="store_true",
                        help="pass when no regression is confirmed even if some comparisons are UNDECIDED "
                             "(intervals wider than the threshold, too few reps or points); without it such "
                             "a gate is UNDECIDED, exit 3")
    compare.compare_options(parser, gate=True)
    return parser


def ci_update_baseline(batch_dir, baseline):
    """Replaces the baseline directory's result files with those of batch_dir."""
    os.makedirs(baseline, exist_ok=True)
    for name in BASELINE_FILES:
        target = os.path.join(baseline, name)
        if os.path.exists(target):
            os.remove(target)
        if os.path.exists(os.path.join(batch_dir, name)):
            shutil.copy2(os.path.join(batch_dir, name), target)
    print(f"ci: baseline {baseline} updated from {batch_dir}; it holds this testbed's absolute figures: gate "
          "against it on this machine (--absolute) or anywhere in the default relative mode", file=sys.stderr)


def ci_confirm_reps(suspects, reps, alpha):
    """Reps for batch 2: at least reps, and enough that Holm over the suspects of one metric can
    reach alpha against the baseline's sample size."""
    per_metric = {}
    for row in suspects:
        per_metric[row["metric"]] = per_metric.get(row["metric"], 0) + 1
    n = reps
    for row in suspects:
        while n < MAX_CONFIRM_REPS and stats.stats_min_p(row["n_base"], n) > alpha / per_metric[row["metric"]]:
            n += 1
    return n


def ci_confirm(args, settings, baseline, suspects, out_dir):
    """Batch 2: re-runs every suspect cell into out_dir/confirm-K and compares the union with the
    baseline (Holm over the suspects). Returns {(label, metric): confirmed row}."""
    reference = settings["reference"] if settings["relative"] else None
    runs = launch.rerun(args, suspects, out_dir, ci_confirm_reps(suspects, args.reps, args.alpha), reference)
    confirm = {"dir": os.path.join(out_dir, "confirm-*"), "meta": {}, "runs": runs}
    result = verdicts.run(baseline, confirm, crossing_fix=CROSSING_FIX, **settings)
    wanted = {(r["label"], r["metric"]) for r in suspects}
    return {(r["label"], r["metric"]): r for r in result["rows"] if (r["label"], r["metric"]) in wanted}


def ci_verdicts(screen, confirmed):
    """Final rows: screening rows, each suspect replaced by its batch-2 row (REGRESSION only if
    confirmed; else the re-run's own SAME, IMPROVEMENT or UNDECIDED noted 'not confirmed';
    UNDECIDED if the re-run gave no figure)."""
    for row in screen["rows"]:
        again = confirmed.get((row["label"], row["metric"]))
        if row["verdict"] == "IMPROVEMENT":
            row["note"] = "batch 1 only, not corrected for multiple tests"
        if row["verdict"] != "REGRESSION":
            continue
        change = row.get("change")
        first = f"batch 1 {change * 100:+.1f}% p={row['p']:.3g}" if isinstance(change, (int, float)) and \
            math.isfinite(change) else (row.get("note") or "batch 1: no figure")  # e.g. "head: every run ended failed"
        if again is None:
            row.update(verdict=stats.UNDECIDED, note=f"suspect ({first}) but its re-run produced no result")
            continue
        row.update(again)
        if again["verdict"] != "REGRESSION":
            row["note"] = f"not confirmed on re-run ({first})"
            if again["verdict"] == stats.UNDECIDED and again.get("note"):
                row["note"] += f"; {again['note']}"
        else:
            row["note"] = f"confirmed on re-run ({first})"
    return screen


def ci_default_metrics(args, settings, batch):
    """When --metrics was not given: the metrics the measured batch can gate on (metricchoice):
    its counts when it ran under instrumentation, else the defaults with any time metric whose
    rep-to-rep spread is above half its threshold traded for the counts; says so in one line.
    Updates settings["metrics"] (batch 2 judges the same)."""
    if args.metrics != ",".join(cells.DEFAULT_METRICS):
        return
    chosen, line = metricchoice.for_gate(settings["metrics"], batch, settings["thresholds"], settings["relative"])
    if line:
        settings["metrics"] = chosen
        print(f"ci: {line}", file=sys.stderr)


def ci_check_reps(parser, args, baseline):
    """Exit 2 before measuring when -n is too small for batch 1 to decide any cell against the
    baseline's reps at alpha (every comparison would be UNDECIDED), unless --allow-unknown."""
    n_base = baseline["meta"].get("reps")
    if args.allow_unknown or not isinstance(n_base, int) or n_base < 1:
        return
    if stats.stats_min_p(n_base, args.reps) > args.alpha:
        need = gate.reps_to_decide(n_base, args.alpha)
        fix = f"use -n {need} or more" if need else "make a baseline with more reps (--update-baseline -n 5)"
        parser.error(f"-n {args.reps} cannot decide anything against the baseline's {n_base} reps at alpha "
                     f"{args.alpha} (smallest p {stats.stats_min_p(n_base, args.reps):.2g}): {fix}, "
                     "or accept an undecided gate with --allow-unknown")


def ci_ab(parser, args, head, settings, out_dir):
    """`heapbench ci --ab`: the A/B gate (ab.py; with --budget adaptive.py), reported like the other
    modes; returns the exit status."""
    if args.budget is not None:
        result = adaptive.gate(parser, args, head, settings, cells.DEFAULT_METRICS, out_dir)
    else:
        result = ci_verdicts(*ab.gate(parser, args, head, settings, cells.DEFAULT_METRICS, out_dir))
    compare.compare_write(args, result, out_dir, title="heapbench ci --ab", itemize=False)
    return gate.outcome(result, args.allow_unknown, out_dir, prog="ci --ab")


def ci_check_modes(parser, args):
    """Usage errors of options that belong to one mode only (exit 2)."""
    if args.history is None and (args.add or args.label or args.commit or args.window != cihistory.WINDOW or args.fixed_thresholds):
        parser.error("--add, --label, --commit, --window and --fixed-thresholds belong to --history (the gate against a history)")
    if not args.ab and (args.budget is not None or args.duet or args.round_reps != 1):
        parser.error("--budget, --duet and --round-reps belong to --ab (the A/B gate); add --ab")
    if args.round_reps < 1:
        parser.error(f"--round-reps {args.round_reps}: a round needs at least 1 run of each side")
    if args.history is not None and args.ab:
        parser.error("--history and --ab are two different gates; pick one")
    if args.window < cihistory.MIN_POINTS:
        parser.error(f"--window {args.window}: the window needs at least {cihistory.MIN_POINTS} points to decide")


def ci_history(args, settings, out_dir):
    """`heapbench ci --history`: the gate against the testbed's past (cihistory.py); returns the exit status."""
    matrix = launch.passed(args, ("-w", "-a", "-t", "-p", "--env"))
    if args.metrics == ",".join(cells.DEFAULT_METRICS):
        settings = dict(settings, metrics=list(cihistory.METRICS))
    settings = dict(settings, fixed_thresholds=args.fixed_thresholds)
    done = cihistory.gate_history(args, settings, out_dir, matrix)
    if done is None:
        return 0
    screen, confirmed, finish = done
    result = ci_verdicts(screen, confirmed)
    compare.compare_write(args, result, out_dir, title="heapbench ci --history", itemize=False)
    return finish(result)


def main(argv):
    """Entry of `heapbench ci`; returns the exit status."""
    parser = ci_parser()
    own, head = cli.split_command(argv)  # head: the head command of --ab
    head = head or []
    args = parser.parse_args(own)
    if (head or args.base) and not args.ab:
        parser.error("--base and the command after '--' belong to --ab (the A/B gate); add --ab")
    if args.reps is None:
        args.reps = 8 if args.ab else 5
    if args.reps < 2:
        parser.error(f"-n {args.reps}: a comparison needs at least 2 reps (5 recommended)")
    ci_check_modes(parser, args)
    if args.count_instructions:
        cli.need_valgrind(parser.prog, "--count-instructions")
    launch.raise_priority(parser.prog, args)
    args.relative = not (args.absolute or args.ab or args.history is not None)
    settings = compare.compare_settings(parser, args)
    out_dir = args.output or os.path.join(layout.results_dir(), time.strftime("ci-%Y%m%d-%H%M%S"))
    if args.ab:
        return ci_ab(parser, args, head, settings, out_dir)
    if args.history is not None:
        return ci_history(args, settings, out_dir)
    matrix = launch.passed(args, ("-w", "-t", "-p", "--env"))
    allocators = ",".join(args.allocators)
    if allocators and args.relative and settings["reference"] not in allocators.split(","):
        allocators += "," + settings["reference"]
    matrix += ["-a", allocators] if allocators else []
    if not args.update_baseline:
        baseline = compare.compare_load(parser, args.baseline)
        ci_check_reps(parser, args, baseline)
    batch1 = os.path.join(out_dir, "batch1")
    launch.batch(args, batch1, matrix, args.reps)
    if args.update_baseline:
        ci_update_baseline(batch1, args.baseline)
        return 0
    new = compare.compare_load(parser, batch1)
    compare.compare_own_check(parser, args, baseline, new)
    ci_default_metrics(args, settings, new)
    try:
        screen = verdicts.run(baseline, new, holm=False, crossing_fix=CROSSING_FIX, **settings)
    except verdicts.CompareError as err:
        cli.usage_exit(parser.prog, str(err))
    gate.check_shared(screen, batch1, "the baseline", "run the baseline's matrix or refresh it with --update-baseline")
    suspects = [r for r in screen["rows"] if r["verdict"] == "REGRESSION"]
    print(f"ci: batch 1 (screening, uncorrected): {len(suspects)} suspect cell x metric", file=sys.stderr)
    confirmed = ci_confirm(args, settings, baseline, suspects, out_dir) if suspects else {}
    result = ci_verdicts(screen, confirmed)
    compare.compare_write(args, result, out_dir, title="heapbench ci", itemize=False)
    return gate.outcome(result, args.allow_unknown, out_dir)


if __name__ == "__main__":
    sys.exit(interrupt.run("heapbench ci", main, sys.argv[1:], INTERRUPTED))
