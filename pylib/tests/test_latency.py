"""test_latency.py - unit tests of heapbench.latency: bucket formula, exact merge, quantiles, the text form.

Always holds: every expected value comes from an independent computation here (a sorted list of
the same samples, one histogram of all samples, the formula's definition in docs/DATA.md); the
C side's agreement with these functions is checked on real runner output by runner/tests/quick.sh.
"""
import math
import random
import unittest

from heapbench import latency


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
            self.assertLessEqual(abs(latency.quantile(counts, q, max(values)) - exact), exact / 256 + 0.5, q)
        self.assertEqual(latency.quantile(counts, 1.0, max(values)), max(values))
        self.assertEqual(latency.quantile({}, 0.5, 0), 0.0)

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
