"""test_rebuild.py - rebuild.py: the list rebuild's steps and ratios from callgrind tables, and the agreement of a rebuild with a row.

Always holds: nothing is measured; the tables are built here in callgrind_annotate's form and read
back through profile.inclusive, and every judge is shown both outcomes (agree and differ, the same
verdict and another) and a missing figure.
"""
import unittest

from heapbench.claims import profile, rebuild
from heapbench.claims import verdict as V

N = 1000


def listing(costs):
    """callgrind_annotate's listing of {function: Ir} (a program total first)."""
    lines = [f"{sum(costs.values()):,} (100.0%)  PROGRAM TOTALS", ""]
    lines += [f"{ir:,} ( 1.00%)  /src/list_rebuild.c:{f} [/tmp/x]" for f, ir in costs.items()]
    return "\n".join(lines)


INCL = dict(build_malloc=186 * N, walk=8 * N, drop_malloc=115 * N, build_arena=11 * N, drop_arena=70,
            print_line=85 * N)
SELF = dict(build_malloc=11 * N, drop_malloc=6 * N, walk=8 * N, build_arena=11 * N)


def steps(incl=INCL):
    return rebuild.list_steps(profile.inclusive(listing(incl))[1], profile.inclusive(listing(SELF))[1])


class ListTest(unittest.TestCase):
    def test_steps_read_from_callgrind_tables(self):
        s = steps()
        self.assertEqual(s["build_malloc"], 186 * N)
        self.assertEqual(s["build_malloc_loop"], 11 * N)

    def test_missing_step_gives_none(self):
        self.assertIsNone(steps({k: v for k, v in INCL.items() if k != "build_arena"}))

    def test_ratios_count_only_the_timed_steps(self):
        r = rebuild.list_ratios(steps())
        self.assertAlmostEqual(r["build"], 186 / 11)
        self.assertAlmostEqual(r["total"], (186 + 4 + 115) / (11 + 4 + 0.07))
        self.assertAlmostEqual(r["build+print"], (186 + 85) / 11)

    def test_per_node_breakdown(self):
        node = rebuild.per_node(steps(), N)
        self.assertAlmostEqual(node["malloc"], 175)
        self.assertAlmostEqual(node["free"], 109)
        self.assertAlmostEqual(node["walk"], 4)
        self.assertAlmostEqual(node["first printf"], 85)


class AgreementTest(unittest.TestCase):
    def test_span_of_readings(self):
        iv = rebuild.span(16.9, 13.3)
        self.assertEqual((iv.lo, iv.hi), (13.3, 16.9))
        self.assertIsNone(rebuild.span(16.9, None))

    def test_agree_when_intervals_overlap(self):
        self.assertTrue(rebuild.agrees(rebuild.span(13.3, 16.9), V.exact(15.5)))
        self.assertTrue(rebuild.agrees(V.Interval(1.34, 1.08, 1.58, 5), V.Interval(1.28, 0.83, 1.85, 5)))

    def test_differ_when_they_do_not(self):
        self.assertFalse(rebuild.agrees(V.exact(23.0), V.exact(15.5)))
        self.assertFalse(rebuild.agrees(V.Interval(1.1, 1.0, 1.2, 5), V.Interval(2.0, 1.5, 2.5, 5)))
        self.assertIsNone(rebuild.agrees(None, V.exact(1.0)))

    def test_same_verdict_both_outcomes(self):
        self.assertTrue(rebuild.same_verdict(V.exact(23.0), V.exact(15.5), lo=4.0))
        self.assertFalse(rebuild.same_verdict(V.exact(3.0), V.exact(15.5), lo=4.0))
        self.assertIsNone(rebuild.same_verdict(None, V.exact(15.5), lo=4.0))


if __name__ == "__main__":
    unittest.main()
