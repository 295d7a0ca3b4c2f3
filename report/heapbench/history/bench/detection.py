#!/usr/bin/python3
"""detection.py - how well history's change points find steps, and how often they raise false alarms, on synthetic series.

Always holds: every series is drawn here from a seeded generator (100 + noise, a step of the given
size at the middle); a step counts as found when a change point is reported within +-1 point of
it; a false alarm is any change point in a pure-noise series. It prints Markdown tables (the
ones docs/HISTORY.md shows) and its two targets with MET or NOT MET, and exits 0
either way (a benchmark, not a test). Usage: report/py report/heapbench/history/bench/detection.py [--trials N] [--noise-series N]
"""
import argparse
import time

import numpy as np

from heapbench.history.changes import change_points

STEPS = (0.01, 0.02, 0.05, 0.10)
NOISES = (("1%", 0.01), ("3%", 0.03), ("10%", 0.10), ("t3 3%", "t3"))
SIDES = (10, 20, 40)


REPS = 1  # reps per point: a point is the median of REPS draws (--reps)


def noise(rng, kind, n):
    """n points of relative noise, each the median of REPS draws: normal with CV kind, or Student t
    (3 df) scaled to a 3% standard deviation."""
    if kind == "t3":
        draws = rng.standard_t(3, (n, REPS)) * 0.03 / np.sqrt(3)
    else:
        draws = rng.normal(0, kind, (n, REPS))
    return np.median(draws, axis=1)


def series(rng, kind, side, step):
    """2*side points around 100 with a step of `step` (a fraction) at index side."""
    x = 100 * (1 + noise(rng, kind, 2 * side))
    x[side:] *= 1 + step
    return x


def detection(trials, seed):
    """{(step, noise label, side): (found within +-1 / trials, mean extra change points)}."""
    rng = np.random.default_rng(seed)
    out = {}
    for step in STEPS:
        for label, kind in NOISES:
            for side in SIDES:
                found = extra = 0
                for _ in range(trials):
                    cps = [c.index for c in change_points(series(rng, kind, side, step))]
                    hit = any(abs(i - side) <= 1 for i in cps)
                    found += hit
                    extra += len(cps) - hit
                out[(step, label, side)] = (found / trials, extra / trials)
    return out


def false_alarms(count, seed, length=40):
    """{noise label: series with any change point per 100} over count pure-noise series of length points."""
    rng = np.random.default_rng(seed)
    return {label: 100 * sum(bool(change_points(100 * (1 + noise(rng, kind, length)))) for _ in range(count)) / count
            for label, kind in NOISES}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=50, help="series per (step, noise, size) (default 50)")
    parser.add_argument("--target-trials", type=int, default=200, help="series for the detection target (default 200)")
    parser.add_argument("--noise-series", type=int, default=400, help="pure-noise series per noise (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reps", type=int, default=1, help="each point is the median of this many draws (default 1: "
                        "the noise CV is the CV of the points themselves)")
    args = parser.parse_args()
    global REPS
    REPS = args.reps
    print(f"reps per point: {REPS} (a point is the median of {REPS} draws of the noise)\n")
    start = time.time()
    table = detection(args.trials, args.seed)
    print(f"## Steps found within ±1 point ({args.trials} series each; extra change points per series in brackets)\n")
    print("| step | noise | " + " | ".join(f"{s}+{s} points" for s in SIDES) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in SIDES) + " |")
    for step in STEPS:
        for label, _ in NOISES:
            cells = [f"{table[(step, label, s)][0]:.0%} ({table[(step, label, s)][1]:.2f})" for s in SIDES]
            print(f"| {step:.0%} | {label} | " + " | ".join(cells) + " |")
    rng = np.random.default_rng(args.seed + 1)
    hits = sum(any(abs(c.index - 20) <= 1 for c in change_points(series(rng, 0.03, 20, 0.05)))
               for _ in range(args.target_trials))
    alarms = false_alarms(args.noise_series, args.seed + 2)
    print(f"\n## False alarms: pure-noise series of 40 points with any change point, per 100 ({args.noise_series} each)\n")
    print("| noise | " + " | ".join(alarms) + " |")
    print("| --- | " + " | ".join("---" for _ in alarms) + " |")
    print("| per 100 | " + " | ".join(f"{v:.2f}" for v in alarms.values()) + " |")
    found = hits / args.target_trials
    worst = max(alarms.values())
    print(f"\ntarget 1: 5% step, CV 3%, 20+20 points, found within ±1: {found:.1%} of {args.target_trials} "
          f"(target >= 95%): {'MET' if found >= 0.95 else 'NOT MET'}")
    print(f"target 2: false alarms per 100 pure-noise series of 40 points, worst noise: {worst:.2f} "
          f"(target <= 1): {'MET' if worst <= 1 else 'NOT MET'}")
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
