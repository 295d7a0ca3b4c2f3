#!/usr/bin/python3
"""quality.py - checks refmalloc's quality bar on a heapbench results directory.

Usage: PYTHONPATH=report /usr/bin/python3 reference_alloc/quality.py RESULTS_DIR [--base glibc] [--alloc refmalloc]

Reads the directory with heapbench.results (report/) and prints, for every cell the two allocators
share, the median wall time and median peak RSS of each, their ratios, then the bar:
geometric mean of time ratios <= 1.25, no cell above 2x, geometric mean of peak RSS ratios
<= 1.15, thread-churn with 2 threads >= 1.7x its 1-thread throughput (from phase seconds).
Always holds: only `ok` runs count; a cell missing for either allocator is listed and skipped;
exit 0 when every bar is met, 1 when one is not, 2 on a usage error.
"""
import math
import statistics
import sys

from heapbench import results

BAR_GEOMEAN, BAR_MAX, BAR_RSS, BAR_SCALING = 1.25, 2.0, 1.15, 1.7
# A cell of one allocator: the match key without the allocator (results.cell_key builds it).
CELL = tuple(f for f in results.MATCH_KEY if f != "allocator")


def usage(msg):
    """Prints a one-line usage error and exits 2."""
    print(f"quality.py: {msg}; usage: quality.py RESULTS_DIR [--base NAME] [--alloc NAME]", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    """Returns (dir, base, alloc) from the command line."""
    opts = {"--base": "glibc", "--alloc": "refmalloc"}
    rest = []
    it = iter(argv)
    for arg in it:
        if arg in opts:
            value = next(it, None)
            if value is None:
                usage(f"{arg} needs a value")
            opts[arg] = value
        elif arg.startswith("-"):
            usage(f"unknown option {arg}")
        else:
            rest.append(arg)
    if len(rest) != 1:
        usage("give exactly one results directory")
    return rest[0], opts["--base"], opts["--alloc"]


def medians(runs, alloc):
    """{(workload, threads, params, env): (median wall_s, median maxrss_kb)} of alloc's ok runs."""
    cells = results.group((r for r in runs if r["allocator"] == alloc and r["status"] == "ok"), CELL)
    return {k: (statistics.median(x["wall_s"] for x in v), statistics.median(x["maxrss_kb"] for x in v))
            for k, v in cells.items()}


def churn_scaling(phases, alloc):
    """{params: throughput(2 threads) / throughput(1 thread)} for thread-churn, from phase seconds."""
    secs = {}
    for p in phases:
        if p["workload"] == "thread-churn" and p["allocator"] == alloc:
            secs.setdefault((p["params"], p["threads"]), []).append(p["seconds"])
    out = {}
    for (params, threads), v in secs.items():
        if threads == 1 and (params, 2) in secs:
            out[params] = statistics.median(v) / statistics.median(secs[(params, 2)])
    return out


def geomean(values):
    """Geometric mean of positive values (nan for none)."""
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main():
    directory, base, alloc = parse_args(sys.argv[1:])
    try:
        data = results.load(directory)
    except results.ResultsError as err:
        print(f"quality.py: {err}", file=sys.stderr)
        sys.exit(2)
    b, a = medians(data["runs"], base), medians(data["runs"], alloc)
    print(f"| workload | threads | params | {base} s | {alloc} s | time ratio | {base} RSS MiB | {alloc} RSS MiB | RSS ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    times, rss = [], []
    for key in sorted(set(b) | set(a), key=str):
        if key not in a or key not in b:
            print(f"| {key[0]} | {key[1]} | {key[2]} | missing for {base if key not in b else alloc} |")
            continue
        (bt, br), (at, ar) = b[key], a[key]
        times.append(at / bt)
        rss.append(ar / br)
        print(f"| {key[0]} | {key[1]} | {key[2]}{' ' + key[3] if key[3] else ''} | {bt:.4f} | {at:.4f} | "
              f"{at / bt:.2f} | {br / 1024:.1f} | {ar / 1024:.1f} | {ar / br:.2f} |")
    scaling, base_scaling = churn_scaling(data["phases"], alloc), churn_scaling(data["phases"], base)
    checks = [
        (f"geometric mean of time ratios {geomean(times):.3f} <= {BAR_GEOMEAN}", geomean(times) <= BAR_GEOMEAN),
        (f"largest time ratio {max(times, default=float('nan')):.2f} <= {BAR_MAX}", max(times, default=9) <= BAR_MAX),
        (f"geometric mean of peak RSS ratios {geomean(rss):.3f} <= {BAR_RSS} (largest {max(rss, default=0):.2f})",
         geomean(rss) <= BAR_RSS),
    ]
    for params, s in sorted(scaling.items()):
        checks.append((f"thread-churn {params}: 2 threads give {s:.2f}x the 1-thread throughput >= {BAR_SCALING}"
                       f" ({base} in the same run: {base_scaling.get(params, float('nan')):.2f}x)", s >= BAR_SCALING))
    print()
    for text, ok in checks:
        print(f"{'MET    ' if ok else 'NOT MET'} {text}")
    sys.exit(0 if all(ok for _, ok in checks) else 1)


if __name__ == "__main__":
    main()
