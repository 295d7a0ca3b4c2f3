"""decide.py - is a commit like the good end or like the bad end? One decision from rounds measured side by side.

Each round measures the good end, the candidate and the bad end one after the other (in an order
that rotates), so that the machine's drift between rounds hits all three. A round gives the
candidate's position on the way from good to bad, (candidate - good) / (bad - good): 0 is like
good, 1 like bad; a round whose ends came out close gives a wild position, so positions are
clipped to [-1, 2]. The decision is taken from Student's t interval of the mean position at level
1 - alpha / looks (Bonferroni over the looks a step may take, so that adding rounds until decided
keeps the error at alpha): GOOD when the whole interval lies below 1/2, BAD when it lies above,
else None (measure more rounds, or give up as undecided). Counts that no load moves (page faults,
peak RSS) give the same position every round and decide in MIN_ROUNDS; a noisy time needs the
rounds its spread asks for (with 3 rounds the t quantile at that level is in the tens).
Always holds: pure and deterministic; a round whose ends are equal gives no position; fewer than
MIN_ROUNDS positions decide nothing.
"""
import math

from scipy import stats as scipy_stats

from heapbench.bisect.search import BAD, GOOD

MIN_ROUNDS = 3
CLIP = (-1.0, 2.0)


def looks(max_rounds):
    """The rounds after which a step looks at its data: 3, then each about 1.6 times the last, and
    max_rounds (3, 5, 8, 13, 15 for 15): few looks, so that each can use a larger share of alpha."""
    out, k = [], MIN_ROUNDS
    while k < max_rounds:
        out.append(k)
        k = max(k + 1, round(k * 1.6))
    return out + [max_rounds]


def positions(rounds):
    """The clipped positions of [(good, candidate, bad), ...] rounds, rounds whose ends are equal left out."""
    return [min(CLIP[1], max(CLIP[0], (c - g) / (b - g))) for g, c, b in rounds if b != g]


def interval(values, level):
    """(mean, low, high): the mean and its two-sided Student's t interval at level."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.inf
    half = float(scipy_stats.t.ppf(1 - (1 - level) / 2, n - 1)) * sd / math.sqrt(n) if sd else 0.0
    return mean, mean - half, mean + half


def decide(rounds, alpha, looks):
    """(GOOD, BAD or None, (mean, low, high) or None) of a candidate's rounds."""
    pos = positions(rounds)
    if len(pos) < MIN_ROUNDS:
        return None, None
    mean, low, high = interval(pos, 1 - alpha / max(1, looks))
    if high < 0.5:
        return GOOD, (mean, low, high)
    if low > 0.5:
        return BAD, (mean, low, high)
    return None, (mean, low, high)
