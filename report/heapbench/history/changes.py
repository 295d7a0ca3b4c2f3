"""changes.py - change points of a series: E-divisive means with a permutation significance test (Matteson & James; Otava's method).

Always holds: the input is the series' per-point medians in order; the result lists the change
points found, ascending, each as the index of the first point after the change with the medians
of the segments on either side, the change in % and its permutation p-value. The search is
hierarchical: the best split (the largest energy statistic) of every current segment is tested
by permuting that segment; the most significant one with p <= alpha is kept and its segment
split; it stops when no segment's split is significant. Then change points whose segments'
medians differ by less than min_magnitude are dropped (smallest first). Permutations come from a
generator seeded with the seed and the series' own bytes, so the same series always gives the
same answer and different series do not share one sequence of permutations (with a shared one, a
single unlucky permutation would fail every clean step of one length); a test stops early once it can no
longer reach alpha.
"""
import collections
import math
import zlib

from heapbench.median import median

Change = collections.namedtuple("Change", "index before_median after_median pct p")

ALPHA = 0.005          # significance of one split (a pure-noise series raises ~alpha false alarms)
MIN_MAGNITUDE = 0.01   # a change of the medians smaller than 1% is not reported
PERMUTATIONS = 199     # at least; a test runs max(PERMUTATIONS, 1/alpha - 1) permutations, more for a short
                       # segment (edivisive: up to 9,999, as many as 4 M distance entries allow)
MIN_SIZE = 3           # the fewest points on either side of a split


def _pct(before, after):
    """The change from before to after in % (None when before is 0 and after is not; 0 when both are)."""
    if before == 0:
        return 0.0 if after == 0 else None
    return (after / before - 1) * 100


def _with_medians(x, found):
    """[Change] for the change indexes in found ({index: p}), with the medians of the segments between them."""
    bounds = [0] + sorted(found) + [len(x)]
    out = []
    for i, index in enumerate(bounds[1:-1], start=1):
        before = median(x[bounds[i - 1]:index])
        after = median(x[index:bounds[i + 1]])
        out.append(Change(index, before, after, _pct(before, after), found[index]))
    return out


def change_points(series_medians, alpha=ALPHA, min_magnitude=MIN_MAGNITUDE, permutations=PERMUTATIONS, seed=0):
    """The change points of a series of medians ([Change], ascending index); see the module's Always holds.
    alpha: the largest p-value kept; min_magnitude: the smallest |change| of medians kept, as a fraction."""
    x = [float(v) for v in series_medians]
    if len(x) < 2 * MIN_SIZE or not all(math.isfinite(v) for v in x):
        return []
    import numpy as np  # here, not at import: `history add` never pays for numpy
    from heapbench.history import edivisive
    values = np.asarray(x)
    rng = np.random.default_rng([seed, zlib.crc32(values.tobytes())])  # the series' own permutations
    found = edivisive.split_points(values, alpha, rng, permutations, MIN_SIZE)
    while found:
        changes = _with_medians(x, found)
        small = [c for c in changes if c.pct is not None and abs(c.pct) < min_magnitude * 100]
        if not small:
            return changes
        del found[min(small, key=lambda c: abs(c.pct)).index]
    return []
