"""test_changes.py - the change-point method on series whose truth is known by construction.

Always holds: the series are drawn from seeded generators here (no hard-coded answer); a step is
checked to be found at its index, a flat series to give none, and the magnitude floor and alpha
to act as documented.
"""
import os
import re
import unittest

import numpy as np

from heapbench.history import main, scan
from heapbench.history.changes import change_points
from heapbench.history.store import Point


def points(medians, prefix="r"):
    """Points of a series, one run per point (run ids r0, r1, ...)."""
    return [Point(f"l{i}", i, None, float(m), 0.01 * m, {}, f"{prefix}{i}", "h", m, m) for i, m in enumerate(medians)]


HISTORY_MD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "docs", "HISTORY.md")


def documented_minimum():
    """{points after: fewest points before (None: never)} from docs/HISTORY.md's table."""
    text = open(HISTORY_MD, encoding="utf-8").read()
    table = text.split("| points after the change | fewest points before it |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (never|\d+)", table, re.M)
    return {int(after): None if before == "never" else int(before) for after, before in rows}


class ChangesTest(unittest.TestCase):
    def test_the_documented_minimum_points_hold(self):
        """The docs' table of how many points a clean +50% step needs is what change_points does: the
        fewest points before is found, one fewer is not; 'never' is never found with 3 to 10 before."""
        table = documented_minimum()
        self.assertEqual(sorted(table), list(range(3, 11)), table)

        def found(before, after):
            return bool(change_points([1000.0] * before + [1500.0] * after))
        for after, before in table.items():
            if before is None:
                self.assertEqual([b for b in range(3, 11) if found(b, after)], [], after)
                continue
            self.assertTrue(found(before, after), (before, after))
            if before > 3:
                self.assertFalse(found(before - 1, after), (before - 1, after))
    def test_step_is_found_at_its_index(self):
        rng = np.random.default_rng(7)
        for index in (8, 20, 31):
            x = rng.normal(100, 2, 40)
            x[index:] *= 1.08
            found = change_points(x)
            self.assertEqual([c.index for c in found], [index], found)
            self.assertGreater(found[0].pct, 4)
            self.assertLessEqual(found[0].p, 0.005)

    def test_two_steps_both_found(self):
        rng = np.random.default_rng(3)
        x = rng.normal(100, 1, 60)
        x[20:] += 6
        x[40:] -= 12
        found = change_points(x)
        self.assertEqual([c.index for c in found], [20, 40])
        self.assertLess(found[1].pct, 0)

    def test_flat_series_gives_nothing(self):
        rng = np.random.default_rng(11)
        alarms = sum(bool(change_points(rng.normal(100, 3, 40))) for _ in range(30))
        self.assertLessEqual(alarms, 1)

    def test_magnitude_floor_drops_small_changes(self):
        rng = np.random.default_rng(5)
        x = rng.normal(100, 0.05, 40)
        x[20:] += 0.5  # +0.5%: significant, below a 1% floor
        self.assertEqual([c.index for c in change_points(x, min_magnitude=0.001)], [20])
        self.assertEqual(change_points(x, min_magnitude=0.01), [])

    def test_deterministic_and_short_series(self):
        rng = np.random.default_rng(2)
        x = rng.normal(100, 3, 30)
        x[15:] += 10
        self.assertEqual(change_points(x), change_points(list(x)))
        self.assertEqual(change_points([1.0, 2.0, 3.0]), [])
        self.assertEqual(change_points([]), [])

    def test_constant_series_and_zero_medians(self):
        self.assertEqual(change_points([5.0] * 20), [])
        found = change_points([0.0] * 15 + [4.0] * 15)
        self.assertEqual([c.index for c in found], [15])
        self.assertIsNone(found[0].pct)


class LoadChangeTest(unittest.TestCase):
    """A change point of a figure that coincides with a change of the runs' load is marked, not counted."""

    def setUp(self):
        """A wall_s series that steps +30% at point 15 of 30."""
        rng = np.random.default_rng(5)
        self.wall = points(np.r_[rng.normal(1.0, 0.01, 15), rng.normal(1.3, 0.01, 15)])

    def test_step_with_the_load_is_marked(self):
        """The load moves from ~15 to ~37 with the step: load_change '15.x->37.x' and the line says so."""
        rng = np.random.default_rng(6)
        load = points(np.r_[rng.normal(15, 1, 15), rng.normal(37, 2, 15)])
        found = scan.series_changes("tb", "c", "wall_s", self.wall, 0.005, 0.01, load)
        self.assertEqual([f.index for f in found], [15])
        self.assertRegex(found[0].load_change, r"^1[45]\.\d->3[5-9]\.\d$")
        self.assertIn("[load moved", main.format_found(found[0]))

    def test_step_under_a_steady_load_is_not_marked(self):
        """A load that stays at ~15 (or is not recorded): the step is a change of the code."""
        rng = np.random.default_rng(7)
        load = points(rng.normal(15, 1, 30))
        for series in (load, None):
            found = scan.series_changes("tb", "c", "wall_s", self.wall, 0.005, 0.01, series)
            self.assertEqual([(f.index, f.load_change) for f in found], [(15, "")])
            self.assertNotIn("load moved", main.format_found(found[0]))

    def test_a_busy_machine_getting_busier_is_marked(self):
        """The loads of a real pure-noise series on 2 CPUs (medians ~40 before, ~58 after: the session's
        load plus 16 hogs): the wall-time step with them is a load move; a drift of 40 -> 46 is not."""
        self.assertEqual(scan.load_change(self.wall, points([40.0] * 15 + [58.0] * 15), 0, 15, 30), "40.0->58.0")
        self.assertEqual(scan.load_change(self.wall, points([58.0] * 15 + [40.0] * 15), 0, 15, 30), "58.0->40.0")
        self.assertEqual(scan.load_change(self.wall, points([40.0] * 15 + [46.0] * 15), 0, 15, 30), "")

    def test_small_load_moves_are_not_changes(self):
        """0.2 -> 0.9 (an idle machine) is below one runnable process: not a load change."""
        self.assertEqual(scan.load_change(self.wall, points([0.2] * 15 + [0.9] * 15), 0, 15, 30), "")


if __name__ == "__main__":
    unittest.main()
