#!/usr/bin/python3
"""ci.py - `heapbench ci`: the regression gate (quick matrix vs a baseline kept in the repository).

Always holds: the gate fails (exit 1) only when a cell x metric regresses twice, on two
independent batches: batch 1 (the quick matrix) screens without multiple-test correction and
names suspects; batch 2 re-runs just the suspect cells with enough reps for Holm's correction
over the suspects to be able to reach alpha, and only its REGRESSIONs count. By default values
are ratios to glibc of the same run and rep (--relative), so a slower CI machine is not a
regression; --absolute compares raw figures (same host only). Exit 2 on usage errors or when
the baseline cannot be read; --update-baseline replaces the baseline with batch 1 and exits 0.
"""
import os
import shutil
import subprocess
import sys
import time

from heapbench import cli, judged, layout
from heapbench.compare import verdicts
from heapbench import results
from heapbench import stats
from heapbench.compare import compare

BASELINE_FILES = ("meta.json", "runs.csv", "phases.csv", "sizes.csv", "latency.csv")  # rss.csv: a timeline, not compared
MAX_CONFIRM_REPS = 30
RUN_SHORT = {short: concept for concept, (short, _, _) in cli.VOCABULARY.items()}  # '-w' -> 'workloads'


def ci_parser():
    """The argparse parser of `heapbench ci`."""
    parser = cli.ArgParser(prog="heapbench ci", allow_abbrev=False,
                               description="Run the quick matrix and gate it against a baseline.")
    parser.add_argument("--baseline", default=os.path.join(layout.results_dir(), "baseline"),
                        help="baseline results directory (default results/baseline)")
    parser.add_argument("--update-baseline", action="store_true", help="replace the baseline with this run")
    cli.add_option(parser, "output", "where the batches go (default results/ci-<time>)", aliases=["--out"])
    cli.add_option(parser, "reps", "reps of batch 1 (default 5)", type=int, default=5)
    parser.add_argument("--absolute", action="store_true", help="compare raw figures, not ratios to glibc")
    for concept in ("workloads", "allocators", "threads", "params"):
        cli.add_option(parser, concept, "passed to 'run' for batch 1", action="append", default=[])
    cli.add_option(parser, "env", "passed to 'run' for batch 1", action="append", default=[])
    for concept in ("allocator", "workload_bin", "pin", "timeout", "warmup"):
        cli.add_option(parser, concept, "passed to 'run' for both batches", action="append", default=[])
    cli.add_option(parser, "latency", "passed to 'run' for both batches: off, sampled or all; sampled "
                   "writes latency.csv, so that the default --metrics gate on p99 and p99.9 too",
                   choices=("off", "sampled", "all"))
    parser.add_argument("--count-instructions", action="store_true",
                        help="passed to 'run' for both batches: callgrind counts into metric_instructions, "
                             "a deterministic metric to gate on (--metrics metric_instructions)")
    compare.compare_options(parser, gate=True)
    return parser


def _passed(args, names):
    """The run options named in names, as argv words, from the parsed ci options."""
    words = []
    for name in names:
        for value in getattr(args, RUN_SHORT.get(name) or name.lstrip("-").replace("-", "_")):
            words += [name, value]
    return words


def ci_run(args, out_dir, matrix_words, reps):
    """Runs `heapbench run --quick -n reps -o out_dir` with matrix_words; exits 2 if it could not run."""
    binary = cli.binary()
    cmd = [binary, "run", "--quick", "-n", str(reps), "-o", out_dir] + matrix_words
    cmd += _passed(args, ("--allocator", "--workload-bin", "--pin", "--timeout", "--warmup"))
    if args.count_instructions:
        cmd.append("--count-instructions")
    cmd += ["--latency", args.latency] if args.latency else []
    os.makedirs(os.path.dirname(out_dir), exist_ok=True)  # the runner creates out_dir, not its parent
    print("ci: " + " ".join(cmd), file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(cmd, stdout=sys.stderr, env=cli.run_env())
    except OSError as err:
        cli.usage_exit("heapbench ci", f"cannot run {binary} ({err}); build it with 'make'")
    if proc.returncode == 2 or not os.path.exists(os.path.join(out_dir, "runs.csv")):
        cli.usage_exit("heapbench ci", f"'heapbench run' failed (exit {proc.returncode}); see its message above")


def ci_update_baseline(batch_dir, baseline):
    """Replaces the baseline directory's result files with those of batch_dir."""
    os.makedirs(baseline, exist_ok=True)
    for name in BASELINE_FILES:
        target = os.path.join(baseline, name)
        if os.path.exists(target):
            os.remove(target)
        if os.path.exists(os.path.join(batch_dir, name)):
            shutil.copy2(os.path.join(batch_dir, name), target)
    print(f"ci: baseline {baseline} updated from {batch_dir}; commit it (git add {baseline})", file=sys.stderr)


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
    cells = sorted({(r["workload"], r["allocator"], r["threads"], r["params"], r["env"]) for r in suspects})
    reps = ci_confirm_reps(suspects, args.reps, args.alpha)
    runs = []
    for k, (workload, allocator, threads, params, env) in enumerate(cells, start=1):
        allocators = allocator + ("," + settings["reference"] if settings["relative"] else "")
        words = ["-w", workload, "-a", allocators, "-t", str(threads), "-p", params]
        words += ["--env", env] if env else []
        batch = os.path.join(out_dir, f"confirm-{k}")
        ci_run(args, batch, words, reps)
        runs += judged.judged(results.load(batch))["runs"]  # judged per batch: run numbers repeat across them
    confirm = {"dir": os.path.join(out_dir, "confirm-*"), "meta": {}, "runs": runs}
    result = verdicts.run(baseline, confirm, **settings)
    wanted = {(r["label"], r["metric"]) for r in suspects}
    return {(r["label"], r["metric"]): r for r in result["rows"] if (r["label"], r["metric"]) in wanted}


def ci_verdicts(screen, confirmed):
    """Final rows: screening rows, each suspect replaced by its batch-2 row (REGRESSION only if
    confirmed, SAME noted 'not confirmed' if not, UNKNOWN if the re-run gave no figure)."""
    for row in screen["rows"]:
        again = confirmed.get((row["label"], row["metric"]))
        if row["verdict"] == "IMPROVEMENT":
            row["note"] = "batch 1 only, not corrected for multiple tests"
        if row["verdict"] != "REGRESSION":
            continue
        first = f"batch 1 {row['change'] * 100:+.1f}% p={row['p']:.3g}"
        if again is None:
            row.update(verdict="UNKNOWN", note=f"suspect ({first}) but its re-run produced no result")
            continue
        row.update(again)
        if again["verdict"] != "REGRESSION":
            row["verdict"] = "SAME"
            row["note"] = f"not confirmed on re-run ({first})"
        else:
            row["note"] = f"confirmed on re-run ({first})"
    return screen


def ci_check_shared(screen, batch_dir):
    """Exit 1 when the baseline and the new run share no cell (a gate that compared nothing must
    not pass); a warning when fewer than half of the cells of either side are shared."""
    shared = len({(r["label"], r["host_base"], r["host_new"]) for r in screen["rows"]})
    base_cells, new_cells = shared + len(screen["missing"]), shared + len(screen["extra"])
    if not shared:
        print(f"ci: FAIL: no cells in common between the baseline ({base_cells} cells) and this run "
              f"({new_cells} cells, {batch_dir}): nothing was compared; run the baseline's matrix "
              "or refresh it with --update-baseline", file=sys.stderr)
        sys.exit(1)
    if 2 * shared < max(base_cells, new_cells):
        print(f"ci: warning: only {shared} cells are shared (baseline {base_cells}, this run {new_cells}); "
              "most of the matrix is not gated", file=sys.stderr)


def main(argv):
    """Entry of `heapbench ci`; returns the exit status."""
    parser = ci_parser()
    args = parser.parse_args(argv)
    if args.reps < 2:
        parser.error(f"-n {args.reps}: a comparison needs at least 2 reps (5 recommended)")
    args.relative = not args.absolute
    settings = compare.compare_settings(parser, args)
    out_dir = args.output or os.path.join(layout.results_dir(), time.strftime("ci-%Y%m%d-%H%M%S"))
    matrix = _passed(args, ("-w", "-t", "-p", "--env"))
    allocators = ",".join(args.allocators)
    if allocators and args.relative and settings["reference"] not in allocators.split(","):
        allocators += "," + settings["reference"]
    matrix += ["-a", allocators] if allocators else []
    if not args.update_baseline:
        baseline = compare.compare_load(parser, args.baseline)
    batch1 = os.path.join(out_dir, "batch1")
    ci_run(args, batch1, matrix, args.reps)
    if args.update_baseline:
        ci_update_baseline(batch1, args.baseline)
        return 0
    new = compare.compare_load(parser, batch1)
    try:
        screen = verdicts.run(baseline, new, holm=False, **settings)
    except verdicts.CompareError as err:
        cli.usage_exit(parser.prog, str(err))
    ci_check_shared(screen, batch1)
    suspects = [r for r in screen["rows"] if r["verdict"] == "REGRESSION"]
    print(f"ci: batch 1 (screening, uncorrected): {len(suspects)} suspect cell x metric", file=sys.stderr)
    confirmed = ci_confirm(args, settings, baseline, suspects, out_dir) if suspects else {}
    result = ci_verdicts(screen, confirmed)
    compare.compare_write(args, result, out_dir, title="heapbench ci", itemize=False)
    failed = verdicts.count(result, "REGRESSION")
    print(f"ci: {'FAIL' if failed else 'PASS'}: {failed} confirmed regression(s); results in {out_dir}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
