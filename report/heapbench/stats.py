"""stats.py - the statistics of heapbench compare, ci and tune: two samples in, one verdict out.

Always holds: every function is pure and deterministic (the bootstrap is seeded), takes plain
lists of floats, and never raises on degenerate data (constant samples, zero medians, tiny n):
it returns NaN where a figure does not exist and the UNKNOWN verdict where no test can decide.

The test of one cell: p = min(Mann-Whitney U two-sided, Kolmogorov-Smirnov two-sample), and
because the smaller of two p-values is not itself a p-value (it fires more often than alpha
under the null), it is multiplied by 2 (Bonferroni over the two tests): P_TESTS below.
Across cells, Holm's step-down correction (holm()) keeps the family-wise error at alpha.
A change is REGRESSION/IMPROVEMENT only when it is significant AND beyond the threshold.
"""
import math
import warnings

import numpy as np
from scipy import stats

REGRESSION = "REGRESSION"
IMPROVEMENT = "IMPROVEMENT"
SAME = "SAME"
UNKNOWN = "UNKNOWN"

P_TESTS = 2          # Bonferroni factor for taking the smaller of the two tests' p-values
BOOT_RESAMPLES = 2000
CI_LEVEL = 0.95
MAX_NEEDED_REPS = 1000


def stats_median(values):
    """Median of a non-empty list of numbers; NaN for an empty list."""
    return float(np.median(values)) if len(values) else float("nan")


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
    return min(1.0, P_TESTS * 2.0 / math.comb(n1 + n2, n1))


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


def stats_cell(base, new, seed=0):
    """Every figure of one cell that does not depend on the threshold or on the other cells.

    Returns dict(n_base, n_new, base_median, new_median, change, ci_low, ci_high, p, min_p);
    ci_low/ci_high are the bootstrap interval of the ratio of medians minus 1 (a relative change,
    like change).
    """
    base = [float(v) for v in base]
    new = [float(v) for v in new]
    bm, nm = stats_median(base), stats_median(new)
    low, high = stats_ratio_ci(base, new, seed)
    return {"n_base": len(base), "n_new": len(new), "base_median": bm, "new_median": nm,
            "change": stats_change(bm, nm), "ci_low": low - 1.0, "ci_high": high - 1.0,
            "p": stats_p_value(base, new), "min_p": stats_min_p(len(base), len(new))}


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


def stats_verdict(cell, p_adjusted, threshold, alpha, family=1, lower_is_better=True):
    """Verdict of one cell from stats_cell() figures and its (Holm-)adjusted p-value.

    UNKNOWN when the sample sizes cannot reach alpha/family at all (no data could be significant);
    REGRESSION / IMPROVEMENT when p_adjusted <= alpha and |change| > threshold, the direction
    given by lower_is_better; SAME otherwise. Returns (verdict, needed_reps) where needed_reps
    is the reps per side that would make the test able to decide (0 when it already can).
    """
    needed = stats_needed_reps(alpha, family)
    if cell["n_base"] < 1 or cell["n_new"] < 1 or cell["min_p"] > alpha / max(1, family):
        return UNKNOWN, needed
    change = cell["change"]
    if math.isnan(change) or p_adjusted > alpha or abs(change) <= threshold:
        return SAME, 0
    worse = change > 0 if lower_is_better else change < 0
    return (REGRESSION if worse else IMPROVEMENT), 0


def compare_samples(base, new, threshold, alpha, lower_is_better=True, seed=0):
    """One comparison of two samples (a family of one): the stable entry point for tune.

    Returns dict(verdict, base_median, new_median, change, ci_low, ci_high, p, needed_reps,
    n_base, n_new, min_p). threshold is a fraction (0.05 = 5%); change, ci_low and ci_high are
    relative changes of new against base.
    """
    cell = stats_cell(base, new, seed)
    verdict, needed = stats_verdict(cell, cell["p"], threshold, alpha, 1, lower_is_better)
    cell.update(verdict=verdict, needed_reps=needed)
    return cell


def holm(pvalues):
    """Alias of stats_holm() under the name other components import."""
    return stats_holm(pvalues)
