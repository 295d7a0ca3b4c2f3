"""test_stats.py - tests of heapbench.stats on synthetic samples whose truth is known (shift, no shift, tiny n).

Always holds: every sample is drawn from a seeded generator, so each run sees the same data;
the bounds asserted are derived in the test (binomial tails, exact minimum p), not copied
from an earlier output.
"""
import math
import random
import unittest

from hypothesis import HealthCheck, given, settings, strategies as st
from scipy import stats as scipy_stats

from heapbench import stats

ALPHA = 0.05


def draw(rng, n, scale=1.0, cv=0.03):
    """n timings around `scale` with a coefficient of variation cv (normal, like a quiet machine)."""
    return [rng.gauss(scale, scale * cv) for _ in range(n)]


def binomial_ceiling(trials, rate, tail=1e-3):
    """Largest count a Binomial(trials, rate) exceeds with probability < tail."""
    return int(scipy_stats.binom.ppf(1 - tail, trials, rate))


class StatsTest(unittest.TestCase):
    """The verdicts of stats.compare_samples and its helpers."""

    def test_shift_10pct_10reps_is_regression(self):
        """A 10% slowdown with 10 reps per side and 3% noise is a REGRESSION on every seed."""
        for seed in range(20):
            rng = random.Random(seed)
            res = stats.compare_samples(draw(rng, 10), draw(rng, 10, 1.10), 0.05, ALPHA)
            self.assertEqual(res["verdict"], stats.REGRESSION, f"seed {seed}: {res}")
            self.assertGreater(res["change"], 0.05)

    def test_direction(self):
        """A 10% speed-up is an IMPROVEMENT; with higher-is-better the same data is a REGRESSION."""
        rng = random.Random(7)
        base, new = draw(rng, 10), draw(rng, 10, 0.90)
        self.assertEqual(stats.compare_samples(base, new, 0.05, ALPHA)["verdict"], stats.IMPROVEMENT)
        self.assertEqual(stats.compare_samples(base, new, 0.05, ALPHA, lower_is_better=False)["verdict"],
                         stats.REGRESSION)

    def test_identical_distributions_are_same(self):
        """200 pairs from one distribution (5 reps): false REGRESSIONs stay under the binomial
        tail of rate alpha/2 (one direction of a two-sided test whose level is <= alpha)."""
        regressions = 0
        for seed in range(200):
            rng = random.Random(1000 + seed)
            res = stats.compare_samples(draw(rng, 5), draw(rng, 5), 0.05, ALPHA, seed=seed)
            regressions += res["verdict"] == stats.REGRESSION
        self.assertLessEqual(regressions, binomial_ceiling(200, ALPHA / 2))

    def test_p_value_is_valid_without_threshold(self):
        """With threshold 0 only the test decides: under no shift, p <= alpha on at most the
        binomial tail of alpha (the x2 for taking min(MW, KS) keeps it a valid p-value)."""
        hits = 0
        for seed in range(300):
            rng = random.Random(5000 + seed)
            hits += stats.stats_p_value(draw(rng, 8), draw(rng, 8)) <= ALPHA
        self.assertLessEqual(hits, binomial_ceiling(300, ALPHA))

    def test_small_shift_below_threshold_is_same(self):
        """A 2% shift with 40 reps is significant yet below the 5% threshold: SAME."""
        rng = random.Random(3)
        res = stats.compare_samples(draw(rng, 40, cv=0.005), draw(rng, 40, 1.02, cv=0.005), 0.05, ALPHA)
        self.assertLess(res["p"], ALPHA)
        self.assertEqual(res["verdict"], stats.SAME)

    def test_two_reps_are_unknown_with_needed_count(self):
        """2 reps per side cannot reach alpha: UNDECIDED, and needed_reps is the smallest n that can."""
        res = stats.compare_samples([1.0, 1.01], [1.5, 1.52], 0.05, ALPHA)
        self.assertEqual(res["verdict"], stats.UNDECIDED)
        n = res["needed_reps"]
        self.assertLessEqual(stats.stats_min_p(n, n), ALPHA)
        self.assertGreater(stats.stats_min_p(n - 1, n - 1), ALPHA)
        self.assertEqual(stats.stats_min_p(2, 2), min(1.0, stats.P_TESTS * 2 / math.comb(4, 2)))

    def test_min_p_is_reached_by_complete_separation(self):
        """The smallest p claimed for (n1, n2) is what the combined test gives on fully separated samples."""
        for n1, n2 in ((3, 3), (4, 5), (5, 5), (6, 4)):
            p = stats.stats_p_value(list(range(n1)), [100.0 + i for i in range(n2)])
            self.assertAlmostEqual(p, stats.stats_min_p(n1, n2), places=9)

    def test_holm_matches_step_down(self):
        """holm() rejects at alpha exactly the hypotheses the sequential step-down procedure rejects."""
        rng = random.Random(11)
        for _ in range(200):
            ps = [rng.random() ** 3 for _ in range(rng.randint(1, 12))]
            rejected, m = set(), len(ps)
            for rank, i in enumerate(sorted(range(m), key=lambda j: ps[j])):
                if ps[i] > ALPHA / (m - rank):
                    break
                rejected.add(i)
            adjusted = stats.holm(ps)
            self.assertEqual({i for i, p in enumerate(adjusted) if p <= ALPHA}, rejected)
            self.assertTrue(all(a >= p for a, p in zip(adjusted, ps)))

    def test_bootstrap_ci_covers_and_is_seeded(self):
        """The 95% CI of the ratio covers the true 10% change on most seeds and repeats for one seed."""
        covered = 0
        for seed in range(40):
            rng = random.Random(seed)
            res = stats.compare_samples(draw(rng, 10), draw(rng, 10, 1.10), 0.05, ALPHA, seed=seed)
            covered += res["ci_low"] <= 0.10 <= res["ci_high"]
        self.assertGreaterEqual(covered, 30)
        rng = random.Random(1)
        base, new = draw(rng, 8), draw(rng, 8)
        a = stats.compare_samples(base, new, 0.05, ALPHA, seed=4)
        b = stats.compare_samples(base, new, 0.05, ALPHA, seed=4)
        self.assertEqual((a["ci_low"], a["ci_high"]), (b["ci_low"], b["ci_high"]))

    def test_degenerate_samples(self):
        """Constant equal samples are SAME with p = 1; a zero base gives an infinite change, no CI."""
        res = stats.compare_samples([5] * 5, [5] * 5, 0.02, ALPHA)
        self.assertEqual((res["verdict"], res["p"]), (stats.SAME, 1.0))
        res = stats.compare_samples([0] * 5, [3] * 5, 0.10, ALPHA)
        self.assertTrue(math.isinf(res["change"]) and math.isnan(res["ci_low"]))
        self.assertEqual(res["verdict"], stats.REGRESSION)


SAMPLES = st.lists(st.floats(0.5, 2.0, allow_nan=False), min_size=2, max_size=12)


class VerdictRuleTest(unittest.TestCase):
    """SAME only when the interval of the change lies within +-threshold; UNDECIDED says what it needs."""

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(base=SAMPLES, scale=st.floats(0.7, 1.4), noise=SAMPLES, threshold=st.floats(0.005, 0.5))
    def test_same_never_wider_than_threshold(self, base, scale, noise, threshold):
        """On any samples, a SAME has its interval within +-threshold; an UNDECIDED has either an
        interval reaching beyond it or too few reps, and names the reps that would decide."""
        new = [v * scale for v in noise]
        res = stats.compare_samples(base, new, threshold, ALPHA)
        if res["verdict"] == stats.SAME:
            self.assertGreaterEqual(res["ci_low"], -threshold, res)
            self.assertLessEqual(res["ci_high"], threshold, res)
        if res["verdict"] == stats.UNDECIDED:
            self.assertTrue(res["min_p"] > ALPHA or not stats.stats_within(res, threshold), res)
            self.assertGreater(res["needed_reps"], 0, res)
            if not math.isnan(res["resolution"]):
                self.assertGreater(res["needed_reps"], min(len(base), len(new)), res)

    def test_wide_interval_is_undecided(self):
        """10 reps with 30% noise and a 30% slowdown that the test misses: the interval reaches far
        beyond 5%, so UNDECIDED (never SAME), with its half-width and more reps named; the older rule
        (SAME_SIGNIFICANCE) still says SAME."""
        missed = 0
        for seed in range(20):
            rng = random.Random(11 + seed)
            base, new = draw(rng, 10, cv=0.3), draw(rng, 10, 1.3, cv=0.3)
            res = stats.compare_samples(base, new, 0.05, ALPHA)
            if res["p"] <= ALPHA:
                continue
            missed += 1
            self.assertEqual(res["verdict"], stats.UNDECIDED, res)
            self.assertGreater(res["resolution"], 0.05)
            self.assertGreater(res["needed_reps"], 10)
            old = stats.compare_samples(base, new, 0.05, ALPHA, same_rule=stats.SAME_SIGNIFICANCE)
            self.assertEqual(old["verdict"], stats.SAME)
        self.assertGreater(missed, 3)

    def test_tight_equal_samples_are_same(self):
        """10 reps with 0.5% noise and no change: the interval lies within +-5%, SAME."""
        rng = random.Random(12)
        res = stats.compare_samples(draw(rng, 10, cv=0.005), draw(rng, 10, cv=0.005), 0.05, ALPHA)
        self.assertEqual(res["verdict"], stats.SAME, res)

    def test_change_of_threshold_size_is_rarely_same(self):
        """The true change equals the threshold (5%, 20 reps, 3% noise): SAME claims it is within the
        threshold, which is false; it may happen at most at the binomial tail of alpha."""
        same = 0
        for seed in range(200):
            rng = random.Random(9000 + seed)
            res = stats.compare_samples(draw(rng, 20), draw(rng, 20, 1.05), 0.05, ALPHA, seed=seed)
            same += res["verdict"] == stats.SAME
        self.assertLessEqual(same, binomial_ceiling(200, ALPHA))

    def test_more_reps_as_estimated_decide(self):
        """An UNDECIDED cell of no change (8 reps, 4% noise, threshold 5%) rerun with the estimated
        reps is decided (SAME) on most seeds: the estimate is not a guess off by a factor."""
        decided = tried = 0
        for seed in range(20):
            rng = random.Random(300 + seed)
            res = stats.compare_samples(draw(rng, 8, cv=0.04), draw(rng, 8, cv=0.04), 0.05, ALPHA)
            if res["verdict"] != stats.UNDECIDED or res["needed_reps"] >= stats.MAX_NEEDED_REPS:
                continue
            n = res["needed_reps"]
            again = stats.compare_samples(draw(rng, n, cv=0.04), draw(rng, n, cv=0.04), 0.05, ALPHA)
            tried += 1
            decided += again["verdict"] == stats.SAME
        self.assertGreater(tried, 5)
        self.assertGreaterEqual(decided, tried // 2, (decided, tried))

    def test_reps_to_clear(self):
        """Half-width 0.1 on 10 reps, to fall below 0.05: 40 reps (1/sqrt(n)); a gap of 0 cannot be cleared."""
        self.assertEqual(stats.stats_reps_to_clear(10, 0.1, 0.05), 40)
        self.assertEqual(stats.stats_reps_to_clear(10, 0.01, 0.05), 11)
        self.assertEqual(stats.stats_reps_to_clear(10, 0.1, 0.0), stats.MAX_NEEDED_REPS)

    def test_interval_level_follows_alpha(self):
        """95% for alpha >= 0.025 (TOST at alpha needs 1 - 2 alpha), wider below."""
        self.assertEqual(stats.stats_interval_level(0.05), 0.95)
        self.assertAlmostEqual(stats.stats_interval_level(0.01), 0.98)


if __name__ == "__main__":
    unittest.main()
