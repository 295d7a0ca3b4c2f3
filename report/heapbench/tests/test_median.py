"""test_median.py - heapbench.median is the one median: statistics.median's value and numpy.median's float.

Always holds: the samples are drawn from a seeded generator; nothing is written.
"""
import random
import statistics
import unittest

import numpy as np

from heapbench import memory, stats
from heapbench.median import median


class MedianTest(unittest.TestCase):
    """median() against the standard library and numpy; the callers that used to have their own."""

    def test_same_value_as_statistics_and_numpy(self):
        """Odd and even counts, ints and floats of any scale, in any order: statistics.median's
        value, and for floats the very float numpy.median gives."""
        rng = random.Random(16)
        for n in list(range(1, 12)) * 30:
            vals = [rng.choice([rng.random() * 10 ** rng.randint(-9, 9), float(rng.randint(0, 5))]) for _ in range(n)]
            self.assertEqual(median(vals), float(np.median(vals)), vals)
            ints = [rng.randint(-50, 50) for _ in range(n)]
            self.assertEqual(median(ints), statistics.median(ints), ints)

    def test_empty_and_iterables(self):
        """No values: None; a generator or a tuple is read once and left unchanged."""
        self.assertIsNone(median([]))
        self.assertIsNone(median(v for v in ()))
        self.assertEqual(median(v for v in (3, 1, 2)), 2)
        vals = (4.0, 1.0)
        self.assertEqual(median(vals), 2.5)
        self.assertEqual(vals, (4.0, 1.0))

    def test_stats_median_is_the_same_median(self):
        """stats.stats_median: median() as a float, NaN (not None) for an empty sample."""
        self.assertEqual(stats.stats_median([3, 1, 2, 10]), 2.5)
        self.assertIsInstance(stats.stats_median([1, 2, 3]), float)
        self.assertNotEqual(stats.stats_median([]), stats.stats_median([]))

    def test_no_second_median_left(self):
        """The medians that each module had are gone: the package has this one."""
        self.assertFalse(hasattr(memory, "median_or_none"))
        self.assertFalse(hasattr(__import__("heapbench.report.cells", fromlist=["x"]), "median_sorted"))


if __name__ == "__main__":
    unittest.main()
