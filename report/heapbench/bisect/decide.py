"""decide.py - is a commit like the good end or like the bad end? One decision from rounds measured side by side.

Each round measures the good end, the candidate and the bad end one after the other (in an order
that rotates), so that the machine's drift between rounds hits all three. A round gives the
candidate's position on the way from good to bad, (candidate - good) / (bad - good): 0 is like
good, 1 like bad. The decision is taken from the median position's percentile-bootstrap interval
at level 1 - alpha / looks (Bonferroni over the looks a step may take, so that adding rounds
until decided keeps the error at alpha): GOOD when the whole interval lies below 1/2, BAD when it
lies above, else None (measure more rounds, or give up as undecided).
Always holds: pure and deterministic (the bootstrap is seeded); a round whose ends do not differ
(bad equals good) gives no position; fewer than MIN_ROUNDS positions decide nothing.
"""
import numpy as np

from heapbench.bisect.search import BAD, GOOD

MIN_ROUNDS = 3
RESAMPLES = 4000


def positions(rounds):
    """The positions of [(good, candidate, bad), ...] rounds, rounds whose ends are equal left out."""
    return [(c - g) / (b - g) for g, c, b in rounds if b != g]


def interval(values, level, seed=0):
    """(median, low, high): the median and its percentile-bootstrap interval at level."""
    v = np.asarray(values, float)
    rng = np.random.default_rng(seed)
    med = np.median(v[rng.integers(0, len(v), size=(RESAMPLES, len(v)))], axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(med, [tail, 100 - tail])
    return float(np.median(v)), float(low), float(high)


def decide(rounds, alpha, looks, seed=0):
    """(GOOD, BAD or None, (median, low, high) or None) of a candidate's rounds."""
    pos = positions(rounds)
    if len(pos) < MIN_ROUNDS:
        return None, None
    med, low, high = interval(pos, 1 - alpha / max(1, looks), seed)
    if high < 0.5:
        return GOOD, (med, low, high)
    if low > 0.5:
        return BAD, (med, low, high)
    return None, (med, low, high)
