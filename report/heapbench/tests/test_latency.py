"""test_latency.py - unit tests of heapbench.latency: bucket formula, exact merge, quantiles, the text form.

Always holds: every expected value comes from an independent computation here (a sorted list of
the same samples, one histogram of all samples, the formula's definition in docs/DATA.md, the
analytic median of a quantised constant); the C side (wl_hist_quantile) gives the same quantiles
on the same buckets and step (build/tests/workloads-quantile --lines, built by make; without it
that test FAILs saying so), and on real runner output (runner/tests/quick.sh).
"""
import math
import os
import random
import subprocess
import unittest

from heapbench import cli, latency

ROOT = cli.ROOT
C_QUANTILES = os.path.join(ROOT, "build", "tests", "workloads-quantile")
# The quantiles workloads-quantile --lines prints (its QS).
C_QS = (0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1)
# The corrected median of a constant read with a step s is within (3/2 - sqrt 2) s of it
# (workloads/tests/quantile.c derives it).
WORST = 1.5 - math.sqrt(2)


def histogram(values):
    """{bucket: count} of values."""
    counts = {}
    for v in values:
        i = latency.bucket_index(v)
        counts[i] = counts.get(i, 0) + 1
    return counts


class LatencyTest(unittest.TestCase):
    """The histogram arithmetic of latency.csv."""

    def test_buckets_tile_and_hold_their_values(self):
        """lo(i) + width(i) = lo(i + 1); every value lies in its bucket; width <= lo / 128 above 255."""
        for i in range(latency.BUCKETS - 1):
            self.assertEqual(latency.bucket_lo(i) + latency.bucket_width(i), latency.bucket_lo(i + 1), i)
            self.assertEqual(latency.bucket_index(latency.bucket_lo(i)), i)
        rng = random.Random(3)
        for _ in range(20000):
            v = int(math.exp(rng.uniform(0, 27)))
            i = latency.bucket_index(v)
            self.assertTrue(latency.bucket_lo(i) <= v < latency.bucket_lo(i) + latency.bucket_width(i), v)
            self.assertTrue(latency.bucket_width(i) == 1 or latency.bucket_width(i) * 128 <= latency.bucket_lo(i))

    def test_quantiles_against_sorted_samples(self):
        """Each quantile is within half a bucket (0.4%) of the sample of rank ceil(q n)."""
        rng = random.Random(5)
        values = [int(rng.lognormvariate(5, 1.5)) for _ in range(50000)]
        counts, ordered = histogram(values), sorted(values)
        for q in (0.0, 0.5, 0.9, 0.99, 0.999, 0.9999):
            exact = ordered[max(1, math.ceil(q * len(values))) - 1]
            self.assertLessEqual(abs(latency.quantile(counts, q, max(values), 0) - exact), exact / 256 + 0.5, q)
        self.assertEqual(latency.quantile(counts, 1.0, max(values), 0), max(values))
        self.assertEqual(latency.quantile({}, 0.5, 0, 0), 0.0)
        self.assertEqual(latency.quantile({}, 0.5, 0, 10), 0.0)

    def test_step_median_of_quantised_constant(self):
        """A constant d read with a step s (ks with probability 1 - f, (k + 1)s with f, d = (k + f)s):
        the corrected p50 is within (3/2 - sqrt 2) s of d; the rank rule can be s/2 off."""
        for s in (10, 7):
            worst = 0.0
            for j in range(400):
                d = s * j / 100
                k, f = math.floor(d / s), d / s - math.floor(d / s)
                low = round(1000000 * (1 - f))
                counts = {}
                for v, c in ((k * s, low), ((k + 1) * s, 1000000 - low)):
                    if c:
                        counts[latency.bucket_index(v)] = c
                err = abs(latency.quantile(counts, 0.5, (k + 1) * s, s) - d)
                self.assertLessEqual(err, WORST * s + 1e-4 * s, (s, d))
                worst = max(worst, err)
            self.assertGreaterEqual(worst, 0.98 * WORST * s, s)
        example = {0: 45, 10: 55}
        self.assertAlmostEqual(latency.quantile(example, 0.5, 10, 10), 5 + 0.5 / 0.55, places=9)
        self.assertEqual(latency.quantile(example, 0.5, 10, 0), 10)

    def test_fine_step_changes_nothing(self):
        """A step <= 1 ns gives the rank rule's quantiles exactly."""
        rng = random.Random(13)
        values = [int(rng.lognormvariate(5, 1.5)) for _ in range(20000)]
        counts = histogram(values)
        for q in (0.0, 0.1, 0.5, 0.9, 0.99, 0.999):
            rank = latency.quantile(counts, q, max(values), 0)
            self.assertEqual(latency.quantile(counts, q, max(values), 1), rank)
            self.assertEqual(latency.quantile(counts, q, max(values), 0.477), rank)

    def test_same_quantiles_as_c(self):
        """wl_hist_quantile (C) and latency.quantile give the same figures on the same buckets and
        step: fine and stepping clocks, narrow and wide buckets, overlapping spreads."""
        self.assertTrue(os.access(C_QUANTILES, os.X_OK), f"{C_QUANTILES} missing: run make first")
        rng = random.Random(17)
        cases = [({0: 45, 10: 55}, 10, 10.0), ({3: 1}, 3, 0.0)]
        for n in range(40):
            mu, sigma = rng.uniform(2, 9), rng.uniform(0.1, 2)
            values = [int(rng.lognormvariate(mu, sigma)) for _ in range(rng.randint(1, 3000))]
            step = rng.choice((0.0, 0.5, 1.0, 1.5, 10.019, 21.0, 250.0))
            if n % 3 == 0:
                values = [v - v % 10 for v in values]
            cases.append((histogram(values), max(values), step))
        text = "".join(f"{step!r}\t{top}\t{latency.format_buckets(c)}\n" for c, top, step in cases)
        out = subprocess.run([C_QUANTILES, "--lines"], input=text, capture_output=True, text=True, check=True).stdout
        lines = out.splitlines()
        self.assertEqual(len(lines), len(cases))
        for (counts, top, step), line in zip(cases, lines):
            for q, c_value in zip(C_QS, map(float, line.split())):
                py = latency.quantile(counts, q, top, step)
                self.assertLessEqual(abs(py - c_value), 1e-9 * max(1.0, abs(py)), (q, step, py, c_value))

    def test_merge_is_exact(self):
        """Histograms of 12 parts merged equal the histogram of all samples, and so do their quantiles."""
        rng = random.Random(7)
        parts = [[int(rng.expovariate(1 / (50 + 40 * p))) for _ in range(rng.randint(10, 3000))] for p in range(12)]
        merged, top = latency.merge((histogram(p), max(p)) for p in parts)
        everything = [v for p in parts for v in p]
        self.assertEqual(merged, histogram(everything))
        self.assertEqual(top, max(everything))

    def test_text_round_trip(self):
        """format_buckets and parse_buckets are inverse; malformed text raises ValueError."""
        counts = histogram(range(0, 100000, 7))
        self.assertEqual(latency.parse_buckets(latency.format_buckets(counts)), counts)
        for bad in ("1", "x:1", "4352:1", "1:2:3", "-1:4"):
            with self.assertRaises(ValueError):
                latency.parse_buckets(bad)

    def test_expand_latency_metrics(self):
        """A bare p99 stands for every p99:<phase>:<op>; other names pass through in order."""
        known = ["p99:churn:free", "p99:churn:malloc", "p99.9:churn:malloc"]
        self.assertEqual(latency.expand(["wall_s", "p99", "p99.9"], known),
                         ["wall_s", "p99:churn:free", "p99:churn:malloc", "p99.9:churn:malloc"])
        self.assertTrue(latency.is_metric("p99.9:churn:malloc") and not latency.is_metric("wall_s"))


if __name__ == "__main__":
    unittest.main()
