"""stats.py - the statistics of heapbench compare, ci and tune: two samples in, one verdict out.

Always holds: every function is pure and deterministic (the bootstrap is seeded), takes plain
lists of floats, and never raises on degenerate data (constant samples, zero medians, tiny n):
it returns NaN where a figure does not exist and the UNDECIDED verdict where no test can decide.

The test of one cell: p = min(Mann-Whitney U two-sided, Kolmogorov-Smirnov two-sample), and
because the smaller of two p-values is not itself a p-value (it fires more often than alpha
under the null), it is multiplied by 2 (Bonferroni over the two tests): P_TESTS below.
Across cells, Holm's step-down correction (holm()) keeps the family-wise error at alpha.

The four verdicts (VERDICTS), one rule for every caller (stats_verdict):
- REGRESSION / IMPROVEMENT: significant (after Holm) AND the change beyond the threshold;
- SAME: the interval of the change lies wholly within +-threshold, so a change of the threshold's
  size is ruled out (an equivalence test: the interval at level max(95%, 1 - 2 alpha) is TOST at
  alpha or stricter; a family needs no correction for it, since every cell must pass its own test,
  the intersection-union principle);
- UNDECIDED: neither, or too few reps for the test to reach alpha at all. The interval's
  half-width (stats_resolution) is the smallest change these reps could have seen, and
  stats_reps_to_decide estimates the reps that would likely decide (half-width ~ 1/sqrt(reps)).
SAME_SIGNIFICANCE is the older, lenient rule (SAME whenever no significant change beyond the
threshold was found, however wide the interval), kept for users who depend on it.
"""
import math
import warnings

import numpy as np
from scipy import stats

from heapbench.median import median

REGRESSION = "REGRESSION"
IMPROVEMENT = "IMPROVEMENT"
SAME = "SAME"
UNDECIDED = "UNDECIDED"
UNKNOWN = UNDECIDED   # the older name of UNDECIDED (the verdict prints UNDECIDED either way)
VERDICTS = (REGRESSION, IMPROVEMENT, SAME, UNDECIDED)

SAME_EQUIVALENCE = "equivalence"    # SAME only when the interval lies within +-threshold (default)
SAME_SIGNIFICANCE = "significance"  # SAME whenever no significant change beyond the threshold (older rule)
SAME_RULES = (SAME_EQUIVALENCE, SAME_SIGNIFICANCE)

P_TESTS = 2          # Bonferroni factor for taking the smaller of the two tests' p-values
BOOT_RESAMPLES = 2000
CI_LEVEL = 0.95
MAX_NEEDED_REPS = 1000


def stats_median(values):
    """Median of a non-empty list of numbers (heapbench.median's) as a float; NaN for an empty list."""
    mid = median(values)
    return float("nan") if mid is None else float(mid)


def stats_change(base_median, new_median):
    """Relative change (new - base) / base; 0 when both are 0, +-inf when only base is 0, NaN if unknown."""
    if math.isnan(base_median) or math.isnan(new_median):
        return float("nan")
    if base_median == 0:
        if new_median == 0:
            return 0.0
        return math.copysign(float("inf"), new_median)
    return (new_median - base_median) / abs(base_median)


def stats_min_p(n1, n2):
    """The smallest p-value the combined test can give for sample sizes n1, n2.

    Exact Mann-Whitney and exact KS both bottom out at 2 / C(n1+n2, n1) (complete separation,
    two-sided); the combined test multiplies by P_TESTS. 1.0 when a sample is empty.
    """
    if n1 < 1 or n2 < 1:
        return 1.0
    ways = math.comb(n1 + n2, n1)
    return min(1.0, P_TESTS * 2.0 / ways) if ways < 1e300 else 0.0  # beyond a float: as good as 0


def stats_needed_reps(alpha, family=1):
    """Smallest n (reps in each of the two samples) for which the test can reach alpha / family.

    family is the number of cells Holm corrects over (the first Holm step tests at alpha/family).
    Returns MAX_NEEDED_REPS when alpha is unreachably small.
    """
    target = alpha / max(1, family)
    for n in range(1, MAX_NEEDED_REPS):
        if stats_min_p(n, n) <= target:
            return n
    return MAX_NEEDED_REPS


def stats_p_value(base, new):
    """Combined two-sided p-value of base vs new: P_TESTS * min(Mann-Whitney U, KS), capped at 1.

    1.0 when either sample is empty or when every value of both samples is equal (no evidence).
    """
    if not len(base) or not len(new):
        return 1.0
    if min(min(base), min(new)) == max(max(base), max(new)):
        return 1.0
    with warnings.catch_warnings():  # ks_2samp warns when it falls back from exact to asymptotic (ties)
        warnings.simplefilter("ignore", RuntimeWarning)
        p_mw = stats.mannwhitneyu(base, new, alternative="two-sided").pvalue
        p_ks = stats.ks_2samp(base, new, alternative="two-sided").pvalue
    valid = [p for p in (p_mw, p_ks) if not math.isnan(p)]
    return min(1.0, P_TESTS * min(valid)) if valid else 1.0


def stats_ratio_ci(base, new, seed=0, level=CI_LEVEL, resamples=BOOT_RESAMPLES):
    """Percentile bootstrap CI of median(new)/median(base), both samples resampled independently.

    Seeded (same input and seed -> same interval). Returns (low, high); (NaN, NaN) when a sample
    has fewer than 2 values or a resampled base median can be 0 (ratio undefined).
    """
    if len(base) < 2 or len(new) < 2 or min(base) <= 0 <= max(base):
        return (float("nan"), float("nan"))

    def ratio(b, n, axis=-1):
        return np.median(n, axis=axis) / np.median(b, axis=axis)

    res = stats.bootstrap((np.asarray(base, float), np.asarray(new, float)), ratio, vectorized=True,
                          paired=False, confidence_level=level, n_resamples=resamples,
                          method="percentile", random_state=np.random.default_rng(seed))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def stats_median_ci(values, seed=0, level=CI_LEVEL, resamples=BOOT_RESAMPLES):
    """Percentile bootstrap CI of median(values), seeded like stats_ratio_ci; (NaN, NaN) with
    fewer than 2 values."""
    if len(values) < 2:
        return (float("nan"), float("nan"))
    res = stats.bootstrap((np.asarray(values, float),), np.median, vectorized=True, confidence_level=level,
                          n_resamples=resamples, method="percentile", random_state=np.random.default_rng(seed))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def stats_interval_level(alpha):
    """The level of the interval of a change judged at alpha: 95%, or 1 - 2 alpha when that is
    higher (the SAME test, TOST at alpha, needs the 1 - 2 alpha interval; 95% is stricter above
    alpha 0.025)."""
    return max(CI_LEVEL, 1 - 2 * alpha)


def stats_cell(base, new, seed=0, level=CI_LEVEL):
    """Every figure of one cell that does not depend on the threshold or on the other cells.

    Returns dict(n_base, n_new, base_median, new_median, change, ci_low, ci_high, ci_level, p,
    min_p); ci_low/ci_high are the bootstrap interval (at level) of the ratio of medians minus 1
    (a relative change, like change).
    """
    base = [float(v) for v in base]
    new = [float(v) for v in new]
    bm, nm = stats_median(base), stats_median(new)
    low, high = stats_ratio_ci(base, new, seed, level)
    return {"n_base": len(base), "n_new": len(new), "base_median": bm, "new_median": nm,
            "change": stats_change(bm, nm), "ci_low": low - 1.0, "ci_high": high - 1.0,
            "ci_level": level, "p": stats_p_value(base, new), "min_p": stats_min_p(len(base), len(new))}


def stats_holm(pvalues):
    """Holm step-down adjusted p-values, in the input order (monotone, capped at 1).

    Rejecting every hypothesis whose adjusted p <= alpha keeps the family-wise error <= alpha.
    NaN inputs are treated as 1.
    """
    m = len(pvalues)
    clean = [1.0 if (p is None or math.isnan(p)) else float(p) for p in pvalues]
    order = sorted(range(m), key=lambda i: clean[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * clean[i]))
        adjusted[i] = running
    return adjusted


def _interval(cell):
    """(ci_low, ci_high) of a cell as floats, NaN where missing."""
    def value(key):
        v = cell.get(key)
        return float("nan") if v is None else float(v)
    return value("ci_low"), value("ci_high")


def stats_resolution(cell):
    """The half-width of a cell's interval of the change: the smallest change its reps could have
    seen (a relative change; NaN when the cell has no interval)."""
    low, high = _interval(cell)
    return (high - low) / 2


def stats_within(cell, threshold):
    """True when the cell's interval of the change lies wholly within +-threshold (SAME's test;
    False when there is no interval)."""
    low, high = _interval(cell)
    return -threshold <= low and high <= threshold


def stats_reps_to_clear(reps, half, gap):
    """The reps that would likely shrink an interval of half-width half, measured on reps, below
    gap (the half-width falls as 1/sqrt(reps)); more than reps, at most MAX_NEEDED_REPS (also when
    gap <= 0: the figure sits on the bound, or when nothing is known)."""
    if reps < 2 or math.isnan(half) or math.isnan(gap) or gap <= 0:
        return MAX_NEEDED_REPS
    return min(MAX_NEEDED_REPS, max(reps + 1, math.ceil(reps * (half / gap) ** 2)))


def stats_reps_to_decide(cell, threshold):
    """The reps per side that would likely decide an UNDECIDED cell: shrink its interval into
    +-threshold when its middle lies inside (SAME), or away from 0 when beyond (a change)."""
    low, high = _interval(cell)
    middle = abs(low + high) / 2
    gap = threshold - middle if middle < threshold else middle
    return stats_reps_to_clear(min(cell["n_base"], cell["n_new"]), stats_resolution(cell), gap)


def stats_verdict(cell, p_adjusted, threshold, alpha, family=1, lower_is_better=True,
                  same_rule=SAME_EQUIVALENCE, reachable=None):
    """Verdict of one cell from stats_cell()-like figures and its (Holm-)adjusted p-value: the one
    rule of every heapbench verdict (see the module's docstring).

    UNDECIDED when a side is empty or the sample sizes cannot reach alpha/family at all;
    REGRESSION / IMPROVEMENT when p_adjusted <= alpha and |change| > threshold, the direction
    given by lower_is_better; SAME when the interval lies within +-threshold (same_rule
    SAME_SIGNIFICANCE: whenever no change was found); UNDECIDED otherwise. reachable: the fewest
    reps per side with which the test can reach alpha/family (default stats_needed_reps').
    Returns (verdict, needed_reps): the reps per side that would likely decide an UNDECIDED
    cell (0 for the other verdicts).
    """
    needed = stats_needed_reps(alpha, family) if reachable is None else reachable
    if cell["n_base"] < 1 or cell["n_new"] < 1 or cell["min_p"] > alpha / max(1, family):
        return UNDECIDED, needed
    change = cell["change"]
    if not math.isnan(change) and p_adjusted <= alpha and abs(change) > threshold:
        worse = change > 0 if lower_is_better else change < 0
        return (REGRESSION if worse else IMPROVEMENT), 0
    if same_rule == SAME_SIGNIFICANCE or stats_within(cell, threshold):
        return SAME, 0
    return UNDECIDED, max(needed, stats_reps_to_decide(cell, threshold))


def compare_samples(base, new, threshold, alpha, lower_is_better=True, seed=0, same_rule=SAME_EQUIVALENCE):
    """One comparison of two samples (a family of one): the stable entry point for tune and advise.

    Returns dict(verdict, base_median, new_median, change, ci_low, ci_high, ci_level, p,
    needed_reps, resolution, n_base, n_new, min_p). threshold is a fraction (0.05 = 5%); change,
    ci_low and ci_high are relative changes of new against base.
    """
    cell = stats_cell(base, new, seed, stats_interval_level(alpha))
    verdict, needed = stats_verdict(cell, cell["p"], threshold, alpha, 1, lower_is_better, same_rule)
    cell.update(verdict=verdict, needed_reps=needed, resolution=stats_resolution(cell))
    return cell


def holm(pvalues):
    """Alias of stats_holm() under the name other components import."""
    return stats_holm(pvalues)
