"""paired.py - the statistics of the A/B gate: one cell's pairs (base, head) measured side by side, one verdict's figures out.

Always holds: pure and deterministic (the bootstrap is seeded); a pair is the base's and the
head's value of one round, measured next to each other, so the machine's drift between rounds
cancels out of each pair's difference. The test is Wilcoxon's signed-rank test, two-sided, on the
log ratios head/base (on the differences when a value is not positive), zero differences left out
(exact below 50 pairs without ties); p is 1 when every pair is equal. The change is the median of
the pairs' ratios minus 1, with a percentile bootstrap 95% interval over resampled pairs. The
smallest p of n pairs is 2 / 2^n (every pair moved the same way): fewer pairs than reach alpha
are UNDECIDED. The verdict is stats.stats_verdict's, the one rule of every heapbench verdict.
"""
import warnings

import numpy as np
from scipy import stats as scipy_stats

from heapbench import stats

BOOT_RESAMPLES = 2000


def min_p(n):
    """The smallest two-sided p of the signed-rank test on n pairs (1.0 for none)."""
    return min(1.0, 2.0 / 2 ** n) if n > 0 else 1.0


def needed_pairs(alpha, family=1):
    """The fewest pairs with which the test can reach alpha / family."""
    n = 1
    while min_p(n) > alpha / max(1, family):
        n += 1
    return n


def _differences(base, head):
    """Per-pair log ratios when every value is positive, else plain differences."""
    a, b = np.asarray(base, float), np.asarray(head, float)
    if len(a) and min(a.min(), b.min()) > 0:
        return np.log(b) - np.log(a)
    return b - a


def p_value(base, head):
    """Two-sided signed-rank p of paired samples; 1.0 when no pair differs."""
    d = _differences(base, head)
    d = d[d != 0]
    if not len(d):
        return 1.0
    with warnings.catch_warnings():  # ties or zeros: scipy falls back to the normal approximation and says so
        warnings.simplefilter("ignore")
        return float(scipy_stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def _ratios(base, head):
    """head/base per pair (pairs with base 0 left out)."""
    return np.array([h / b for b, h in zip(base, head) if b], float)


def change_ci(base, head, seed=0, level=stats.CI_LEVEL):
    """(change, ci_low, ci_high): the median of the pairs' ratios minus 1 and its percentile
    bootstrap interval at level (pairs resampled together); NaN where it does not exist."""
    r = _ratios(base, head)
    if not len(r):
        change = stats.stats_change(stats.stats_median(base), stats.stats_median(head))
        return change, float("nan"), float("nan")
    change = float(np.median(r)) - 1.0
    if len(r) < 2:
        return change, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    medians = np.median(r[rng.integers(0, len(r), size=(BOOT_RESAMPLES, len(r)))], axis=1)
    low, high = np.percentile(medians, [50 * (1 - level), 50 * (1 + level)])
    return change, float(low) - 1.0, float(high) - 1.0


def cell(base, head, seed=0, level=stats.CI_LEVEL):
    """Every figure of one paired cell that does not depend on the threshold or on other cells:
    the fields of stats.stats_cell (n_base = n_new = pairs), so that stats.stats_verdict applies."""
    change, low, high = change_ci(base, head, seed, level)
    return {"n_base": len(base), "n_new": len(head), "base_median": stats.stats_median(base),
            "new_median": stats.stats_median(head), "change": change, "ci_low": low, "ci_high": high,
            "ci_level": level, "p": p_value(base, head), "min_p": min_p(len(base))}


def verdict(figures, p_adjusted, threshold, alpha, family=1, lower_is_better=True, same_rule=stats.SAME_EQUIVALENCE):
    """(verdict, pairs needed) of one paired cell: stats.stats_verdict, with the pairs the
    signed-rank test needs to reach alpha / family at all."""
    return stats.stats_verdict(figures, p_adjusted, threshold, alpha, family, lower_is_better, same_rule,
                               reachable=needed_pairs(alpha, family))
