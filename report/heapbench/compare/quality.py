"""quality.py (report/heapbench/compare/quality) - measures how good `heapbench compare` is on this machine: false alarms and detection.

Always holds: it runs real benchmarks through build/heapbench (never synthetic numbers).
Each of PAIRS rounds makes two independent runs, A and B, of one small cell under glibc and
ALLOCATOR with two param sets interleaved by the runner: --ops=N and --ops=N*(1+slowdown)
(that much more work). Then, for ALLOCATOR's cell, in absolute and in --relative mode:
  same: A at --ops=N vs B at --ops=N      - any REGRESSION is a false alarm;
  slow: A at --ops=N vs B where ALLOCATOR ran --ops=N*(1+slowdown) (relabelled as --ops=N, glibc
        kept at --ops=N, as if only ALLOCATOR had become slower) - a REGRESSION is a detection;
at the given reps, default thresholds and alpha. Prints one line per round and a summary;
exit 0 when every metric meets the targets (<= 1/20 false alarms, >= 19/20 detected) in some mode.
--power prints the same figures for synthetic normal samples instead (noise level x reps).
It takes minutes: a measurement script, not a test.
"""
import os
import subprocess
import sys
import time

import random

from heapbench import cli
from heapbench.compare import verdicts
from heapbench import results
from heapbench import stats

MODES = ("absolute", "relative")


def quality_run(binary, out, args, params):
    """One `heapbench run` of the quality cells (glibc and ALLOCATOR x the param sets) into out; loaded."""
    cmd = [binary, "run", "-w", args.workloads, "-a", f"glibc,{args.judge}", "-t", "1", "-n", str(args.reps),
           "--interval", "0", "-o", out]
    if args.instructions:  # deterministic counts: a warm-up has nothing to warm
        cmd += ["--count-instructions", "--warmup", "0"]
    for p in params:
        cmd += ["-p", p]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=cli.run_env())
    if proc.returncode != 0:
        cli.usage_exit("report/heapbench/compare/quality", f"'{' '.join(cmd)}' failed: {proc.stderr.strip()[-300:]}")
    return results.load(out)


def quality_view(data, params_of, label):
    """A copy of data keeping, per allocator, the rows run with params_of[allocator], relabelled to label."""
    runs = [dict(r, params=label) for r in data["runs"] if r["params"] == params_of.get(r["allocator"])]
    return dict(data, runs=runs)


def quality_verdicts(base, new, args, metrics):
    """{(mode, metric): (verdict, change)} of ALLOCATOR's cell, base vs new, in both modes."""
    out = {}
    for mode in MODES:
        result = verdicts.run(base, new, metrics=metrics, alpha=args.alpha, relative=mode == "relative")
        for r in result["rows"]:
            if r["allocator"] == args.judge:
                out[(mode, r["metric"])] = (r["verdict"], r["change"])
    return out


def quality_power(args):
    """--power: the same two figures on synthetic normal samples (200 seeds per line) for noise
    levels and rep counts, to tell how quiet a machine must be; prints a table, returns 0."""
    print(f"# synthetic: base ~ N(1, cv), slow ~ N(1+{args.slowdown}, cv), threshold 5%, alpha {args.alpha}, 200 seeds")
    for cv in (0.01, 0.02, 0.03, 0.05, 0.10):
        cells = []
        for n in (5, 7, 10):
            det = fa = 0
            for seed in range(200):
                rng = random.Random(seed)
                base, same = [rng.gauss(1, cv) for _ in range(n)], [rng.gauss(1, cv) for _ in range(n)]
                slow = [rng.gauss(1 + args.slowdown, (1 + args.slowdown) * cv) for _ in range(n)]
                det += stats.compare_samples(base, slow, 0.05, args.alpha)["verdict"] == stats.REGRESSION
                fa += stats.compare_samples(base, same, 0.05, args.alpha)["verdict"] == stats.REGRESSION
            cells.append(f"n={n}: detected {det / 2:5.1f}% false {fa / 2:4.1f}%")
        print(f"cv {cv * 100:4.0f}%  " + " | ".join(cells))
    return 0


def main(argv):
    """Runs the rounds, prints them and the summary; returns 0 when the targets hold, else 1."""
    parser = cli.ArgParser(prog="report/heapbench/compare/quality", allow_abbrev=False,
                               description="Measure false alarms and detection of heapbench compare.")
    parser.add_argument("--pairs", type=int, default=20, help="rounds (default 20)")
    cli.add_option(parser, "reps", "reps per run (default 5, the runner's default)", type=int, default=5)
    cli.add_option(parser, "workloads", "the one workload measured (default thread-churn)", default="thread-churn",
                   aliases=["--workload"])
    parser.add_argument("--judge", default="jemalloc", metavar="A", help="allocator whose cell is judged (default jemalloc)")
    cli.add_option(parser, "params", "params besides --ops (default %(default)s)", default="--mode=loop")
    parser.add_argument("--ops", type=int, default=1000000, help="--ops of the base cell (~0.2 s CPU)")
    parser.add_argument("--slowdown", type=float, default=0.10, help="extra work of the slow cell (default 0.10)")
    parser.add_argument("--metrics", default=None, metavar="M1,M2",
                        help="metrics to judge (default wall_s,task_clock_ms; metric_instructions with --instructions)")
    parser.add_argument("--instructions", action="store_true",
                        help="run the cells under --count-instructions (valgrind) and judge metric_instructions")
    parser.add_argument("--alpha", type=float, default=0.05)
    cli.add_option(parser, "output", "where the rounds' results go (default /tmp/hb-quality-PID)",
                   default=os.path.join("/tmp", f"hb-quality-{os.getpid()}"), aliases=["--out"])
    parser.add_argument("--power", action="store_true", help="only the synthetic power table (seconds, no runs)")
    args = parser.parse_args(argv)
    if args.power:
        return quality_power(args)
    if args.instructions:
        cli.need_valgrind(parser.prog, "--instructions")
    binary = cli.binary()
    if args.metrics is None:
        args.metrics = "metric_instructions" if args.instructions else "wall_s,task_clock_ms"
    metrics = cli.split_list(args.metrics)
    p_base = f"{args.params} --ops={args.ops}".strip()
    p_slow = f"{args.params} --ops={round(args.ops * (1 + args.slowdown))}".strip()
    keys = [(mode, m) for mode in MODES for m in metrics]
    false_alarms, detected = dict.fromkeys(keys, 0), dict.fromkeys(keys, 0)
    os.makedirs(args.output, exist_ok=True)
    started = time.time()
    print(f"# {args.pairs} rounds, {args.workloads} {p_base} vs {p_slow}, {args.judge} judged (glibc the "
          f"reference), {args.reps} reps, alpha {args.alpha}, load average {os.getloadavg()[0]:.1f}")
    for i in range(1, args.pairs + 1):
        run_a = quality_run(binary, f"{args.output}/r{i}-a", args, (p_base, p_slow))
        run_b = quality_run(binary, f"{args.output}/r{i}-b", args, (p_base, p_slow))
        base = quality_view(run_a, {"glibc": p_base, args.judge: p_base}, p_base)
        same = quality_view(run_b, {"glibc": p_base, args.judge: p_base}, p_base)
        slow = quality_view(run_b, {"glibc": p_base, args.judge: p_slow}, p_base)
        null, shift = quality_verdicts(base, same, args, metrics), quality_verdicts(base, slow, args, metrics)
        words = []
        for key in keys:
            false_alarms[key] += null[key][0] == "REGRESSION"
            detected[key] += shift[key][0] == "REGRESSION"
            words.append(f"{key[0][:3]} {key[1]}: same {null[key][0][:4]} {null[key][1] * 100:+.1f}% "
                         f"slow {shift[key][0][:4]} {shift[key][1] * 100:+.1f}%")
        print(f"round {i:2d}  " + " | ".join(words), flush=True)
    print(f"# {time.time() - started:.0f} s, load average at the end {os.getloadavg()[0]:.1f}")
    met = set()
    for key in keys:
        print(f"{key[0]:8s} {key[1]:14s} false REGRESSIONs {false_alarms[key]}/{args.pairs}, "
              f"{args.slowdown * 100:.0f}% slowdown detected {detected[key]}/{args.pairs}")
        if false_alarms[key] <= args.pairs // 20 and detected[key] >= args.pairs - args.pairs // 20:
            met.add(key[1])
    return 0 if met == set(metrics) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
