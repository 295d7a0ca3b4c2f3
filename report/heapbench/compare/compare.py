#!/usr/bin/python3
"""compare.py - `heapbench compare BASE NEW`: verdicts per cell and metric, as a table, CSV, Markdown, JUnit.

Always holds: exit 0 when no cell regressed, 1 on at least one REGRESSION (significant after
Holm's correction and beyond the threshold; SAME only when the interval lies within +-threshold,
UNDECIDED when it cannot tell: stats.stats_verdict), 2 on a usage error or results that cannot be
compared (another schema, not a results directory, absolute times of different hosts);
compare.csv is written to NEW (or --out) on every comparison that ran. --fidelity sets a program's
run (BASE) beside its replay's (NEW) instead (fidelity.py: a table on stdout, no file; exit 1 when
the replay orders a pair of allocators otherwise than the program does beyond its rep ranges).
"""
import argparse
import os
import sys

from heapbench import cli
from heapbench import cells
from heapbench.compare import fidelity
from heapbench.compare import output
from heapbench.compare import prcomment
from heapbench.compare import repofile
from heapbench.compare import verdicts
from heapbench import ownalloc
from heapbench import results, stats


def compare_options(parser, gate=False):
    """Adds the comparison options shared by `compare` and `ci` to an argparse parser
    (gate=True: without --relative, which `ci` has on by default and turns off with --absolute)."""
    parser.add_argument("--metrics", default=",".join(cells.DEFAULT_METRICS), metavar="M1,M2",
                        help="comma-separated runs.csv columns, or latency.csv quantiles (p50, p90, p99, p99.9, "
                             "p99.99, max, mean: one metric per phase and op), to compare (default %(default)s)")
    parser.add_argument("--metric", dest="metrics", help=argparse.SUPPRESS)  # the older spelling
    parser.add_argument("--threshold", help="minimum change that counts: '5%%' for every metric or "
                        "'wall_s=3%%,maxrss_kb=1%%' (over the repository's .heapbench.toml [thresholds]; default "
                        "5%% time, 10%% memory, 2%% deterministic with --relative)")
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise significance level (default 0.05)")
    if not gate:
        parser.add_argument("--relative", action="store_true",
                            help="compare each cell's ratio to the reference allocator of the same run and rep "
                                 "(machine-independent; required across hosts)")
    parser.add_argument("--reference", default="glibc", help="reference allocator of --relative (default glibc)")
    parser.add_argument("--higher", default="", help="metrics where higher is better (comma-separated)")
    parser.add_argument("--markdown", metavar="FILE", help="also write a Markdown summary (e.g. $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML, one testcase per cell and metric")
    if gate:
        parser.add_argument("--pr-comment", metavar="FILE", help="also write one Markdown comment for the pull request "
                            "(the verdict, the changed and undecided cells; post it with examples/post-comment.py)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    parser.add_argument("--same-rule", choices=stats.SAME_RULES, default=stats.SAME_EQUIVALENCE,
                        help="when a cell is SAME: 'equivalence' (default) only when its interval lies within "
                             "+-threshold, else UNDECIDED; 'significance' (the older rule) whenever no significant "
                             "change beyond the threshold was found, however wide the interval")
    parser.add_argument(ownalloc.ALLOW_FLAG, action="store_true", help=ownalloc.ALLOW_HELP)


def compare_own_check(parser, args, *datasets):
    """Exit 2 with the reason when a program of the datasets brings its own allocator, unless allowed."""
    refusal = ownalloc.own_refusal([row for data in datasets for row in data["runs"]])
    if refusal and not args.allow_own_allocator:
        cli.usage_exit(parser.prog, refusal)


def compare_settings(parser, args):
    """The keyword arguments of verdicts.run() from parsed options (usage errors exit 2)."""
    metrics = cli.split_list(args.metrics)
    if not metrics:
        parser.error("--metrics is empty; name at least one runs.csv column, e.g. wall_s")
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha {args.alpha} is not between 0 and 1; use e.g. 0.05")
    try:
        given = cli.thresholds(args.threshold, metrics) if args.threshold else {}
    except ValueError as err:
        parser.error(f"bad --threshold ({err}); write it as 5% or wall_s=3%,maxrss_kb=1%")
    path = repofile.find()
    try:
        thresholds = dict(repofile.thresholds(path), **given)
    except repofile.RepoFileError as err:
        cli.usage_exit(parser.prog, str(err))
    if path:
        print(f"{parser.prog}: thresholds of {path} ({', '.join(f'{m} {v * 100:.3g}%' for m, v in thresholds.items())}"
              f"{'; --threshold overrides them' if given else ''})", file=sys.stderr)
    return {"metrics": metrics, "thresholds": thresholds, "alpha": args.alpha, "relative": args.relative,
            "reference": args.reference, "higher": set(cli.split_list(args.higher)), "seed": args.seed,
            "same_rule": args.same_rule}


def compare_write(args, result, csv_dir, title="heapbench compare", itemize=True):
    """Prints the table and writes compare.csv into csv_dir plus the optional Markdown/JUnit files
    (itemize: one stdout line per missing/extra cell, else one counting line each)."""
    if result.get("skipped"):
        print(f"note: {result['skipped']}", file=sys.stderr)
    sys.stdout.write(output.table(result, itemize))
    output.csv(result, os.path.join(csv_dir, "compare.csv"))
    if args.markdown:
        output.markdown(result, args.markdown, title)
    if args.junit:
        output.junit(result, args.junit, title)
    if getattr(args, "pr_comment", None):
        hosts = sorted({r.get("host_new") or "" for r in result["rows"]} - {""})
        prcomment.write(result, args.pr_comment, title=title, testbed=", ".join(hosts), where=csv_dir,
                        allow_unknown=getattr(args, "allow_unknown", False))
    unknown = [r for r in result["rows"] if r["verdict"] == stats.UNDECIDED and not r["note"]]
    if unknown:
        need = max(r["needed_reps"] for r in unknown)
        more = (f"run with -n {need} or more" if need < stats.MAX_NEEDED_REPS else
                f"a change sits on its threshold (no -n up to {stats.MAX_NEEDED_REPS - 1} would likely decide it)")
        print(f"note: {len(unknown)} comparisons are UNDECIDED: their reps cannot tell a change of the threshold's "
              f"size from none at alpha={args.alpha}; {more}", file=sys.stderr)


def compare_load(parser, directory):
    """results.load() with ResultsError turned into a one-line exit 2."""
    try:
        return results.load(directory)
    except results.ResultsError as err:
        cli.usage_exit(parser.prog, str(err))


def main(argv):
    """Entry of `heapbench compare`; returns the exit status."""
    parser = cli.ArgParser(prog="heapbench compare", allow_abbrev=False,
                               description="Compare two results directories cell by cell.")
    parser.add_argument("base", metavar="BASE", help="results directory of the reference run")
    parser.add_argument("new", metavar="NEW", help="results directory of the run under test")
    cli.add_option(parser, "output", "where compare.csv goes (default NEW)", aliases=["--out"])
    parser.add_argument("--fidelity", action="store_true",
                        help="BASE is a program's own run (heapbench exec -w NAME, or run -w prog:NAME), NEW its "
                             "trace's replay (run -w trace:.../NAME.hbt): set each program beside its replay, matched "
                             "by name and allocator, and compare the allocators' order on peak RSS / heap and time")
    compare_options(parser)
    args = parser.parse_args(argv)
    settings = compare_settings(parser, args)
    base, new = compare_load(parser, args.base), compare_load(parser, args.new)
    compare_own_check(parser, args, base, new)
    if args.fidelity:
        fidelity.fidelity_check(parser, base, new)
        return fidelity.fidelity_main(base, new, args.base, args.new)
    try:
        result = verdicts.run(base, new, **settings)
    except verdicts.CompareError as err:
        cli.usage_exit(parser.prog, str(err))
    out_dir = args.output or args.new
    os.makedirs(out_dir, exist_ok=True)
    compare_write(args, result, out_dir)
    return 1 if verdicts.count(result, "REGRESSION") else 0
