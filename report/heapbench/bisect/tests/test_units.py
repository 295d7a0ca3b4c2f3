"""test_units.py - bisect's pure parts: the search's next commit and answer with skips, and the good/bad decision from rounds.

Always holds: nothing is measured or built; the decision's tests feed rounds made here.
"""
import itertools
import unittest
from unittest import mock

from heapbench.bisect import decide, main, search
from heapbench.bisect.search import BAD, GOOD, SKIP


def simulate(n, first_bad, skips=()):
    """Runs the search on n commits whose first bad index is first_bad; skips never decide.
    Returns (answer, candidates, steps)."""
    verdicts, steps = {}, 0
    while (i := search.next_index(n, verdicts)) is not None:
        verdicts[i] = SKIP if i in skips else (BAD if i >= first_bad else GOOD)
        steps += 1
    first, cands = search.answer(n, verdicts)
    return first, cands, steps


class SearchTest(unittest.TestCase):
    """The bisection finds the first bad commit in log2 steps, around skipped ones."""

    def test_every_position_of_64(self):
        """Every first-bad position of 64 commits is found in at most ceil(log2(64)) = 6 steps."""
        for k in range(64):
            first, cands, steps = simulate(64, k)
            self.assertEqual(first, k)
            self.assertEqual(cands, [k])
            self.assertLessEqual(steps, search.max_steps(64))

    def test_skips_are_searched_around(self):
        """A skipped commit next to the answer leaves both as candidates; one far away costs a step."""
        first, cands, steps = simulate(64, 40, skips={39})
        self.assertIsNone(first)
        self.assertEqual(cands, [39, 40])
        first, cands, steps = simulate(64, 40, skips={31})  # the first midpoint
        self.assertEqual(first, 40)
        self.assertLessEqual(steps, search.max_steps(64) + 2)

    def test_skip_is_not_linear(self):
        """With a tenth of the commits skipped, steps stay near log2, not linear."""
        skips = set(range(3, 64, 10))
        for k in (0, 17, 33, 63):
            first, cands, steps = simulate(64, k, skips)
            self.assertIn(k, cands)
            self.assertLessEqual(len(cands), 3)
            self.assertLessEqual(steps, 12, (k, steps))

    def test_bad_end_is_the_answer(self):
        """When every commit before the bad end is good, the bad end is the first bad commit."""
        self.assertEqual(simulate(8, 7)[0], 7)
        self.assertEqual(search.answer(1, {}), (0, [0]))

    def test_looks(self):
        self.assertEqual(decide.looks(15), [3, 5, 8, 13, 15])
        self.assertEqual(decide.looks(3), [3])

    def test_stopped_search_lists_the_unmeasured(self):
        """A search stopped early: the commits left unmeasured inside the range are candidates too."""
        self.assertEqual(search.answer(8, {1: GOOD, 2: SKIP, 6: BAD}), (None, [2, 3, 4, 5, 6]))

    def test_max_steps(self):
        self.assertEqual([search.max_steps(n) for n in (1, 2, 3, 64, 65)], [0, 1, 2, 6, 7])


class DecideTest(unittest.TestCase):
    """A candidate's position between the ends decides, from an interval, never from one round."""

    def test_exact_counts(self):
        """Counts that sit on one end decide in the minimum of rounds."""
        self.assertEqual(decide.decide([(1000, 1050, 1050)] * 3, 0.05, 13)[0], BAD)
        self.assertEqual(decide.decide([(1000, 1000, 1050)] * 3, 0.05, 13)[0], GOOD)
        self.assertIsNone(decide.decide([(1000, 1050, 1050)] * 2, 0.05, 13)[0], "2 rounds are too few")
        rounds = [(1000 + d, 1050 + d, 1050 + d) for d in (0, 1, -1)]  # counts off by a fault or two
        self.assertEqual(decide.decide(rounds, 0.05, 13)[0], BAD)

    def test_midway_is_undecided(self):
        """A candidate halfway between the ends is neither."""
        rounds = [(100, 105 + (i % 3 - 1), 110) for i in range(15)]
        verdict, iv = decide.decide(rounds, 0.05, 13)
        self.assertIsNone(verdict)
        self.assertLess(iv[1], 0.5)
        self.assertGreater(iv[2], 0.5)

    def test_noisy_rounds(self):
        """Noisy times: a bad candidate (+10%) among ends 10% apart with 3% noise decides bad in 15 rounds."""
        import random
        rng = random.Random(1)
        rounds = [tuple(x * rng.gauss(1, 0.03) for x in (1.0, 1.1, 1.1)) for _ in range(15)]
        self.assertEqual(decide.decide(rounds, 0.05, 13)[0], BAD)

    def test_unusable_rounds_decide_nothing(self):
        """Rounds with a value that is not positive are left out; ends with no change decide nothing."""
        self.assertEqual(decide.midpoint_gaps([(5, 0, 6), (4, 4, 4)]), [0.0])
        self.assertEqual(decide.decide([(5, 6, 5)] * 5, 0.05, 3), (None, None))
        self.assertEqual(decide.decide([(5, 6, 6)] * 5, 0.05, 3, change=0.0), (None, None))

    def test_a_noisy_round_of_close_ends_does_not_swing_the_decision(self):
        """A round whose ends came out reversed by chance (a per-round ratio would put the candidate at
        -4, clipped to -1) counts as what it is, one noisy round: 14 bad rounds and that one still decide bad.
        The ends' change given from the ends' rounds sets the reported position's scale."""
        rounds = [(1.0, 1.1, 1.1)] * 7 + [(1.06, 1.1, 1.05)] + [(1.0, 1.1, 1.1)] * 7
        verdict, (pos, low, high) = decide.decide(rounds, 0.05, 5, change=0.1)
        self.assertEqual(verdict, BAD)
        self.assertGreater(low, 0.5)
        self.assertAlmostEqual(pos, 1.0, delta=0.05)

    def test_a_slowdown_by_a_fall_in_time_is_decided_too(self):
        """Ends whose bad is faster (a change downwards): the sides swap, like bad is still BAD."""
        self.assertEqual(decide.decide([(1.1, 1.0, 1.0)] * 3, 0.05, 5, change=-0.09)[0], BAD)
        self.assertEqual(decide.decide([(1.1, 1.1, 1.0)] * 3, 0.05, 5, change=-0.09)[0], GOOD)

    def test_decides_more_often_than_per_round_positions_under_load(self):
        """On runs with 6% noise and one in ten slowed up to 50% by a burst of load, the midpoint gap
        decides (rightly) more steps within 15 rounds than the clipped per-round position did, and
        none wrongly (400 seeded steps, half like good, half like bad)."""
        import math
        import random

        def old_decide(rounds, looks):  # the clipped per-round position (c - g) / (b - g)
            pos = [min(2.0, max(-1.0, (c - g) / (b - g))) for g, c, b in rounds if b != g]
            mean, low, high = decide.interval(pos, 1 - 0.05 / looks)
            return GOOD if high < 0.5 else BAD if low > 0.5 else None

        def steps(fn):
            rng, at, right, wrong = random.Random(1), decide.looks(15), 0, 0
            for i in range(400):
                truth, rounds = (BAD, 1.1) if i % 2 else (GOOD, 1.0), []
                for k in range(1, 16):
                    rounds.append(tuple(x * math.exp(rng.gauss(0, 0.06)) * (1 + rng.random() * 0.5 if rng.random() < 0.1
                                                                            else 1) for x in (1.0, truth[1], 1.1)))
                    verdict = fn(rounds, len(at)) if k in at else None
                    if verdict:
                        right, wrong = right + (verdict == truth[0]), wrong + (verdict != truth[0])
                        break
            return right, wrong
        new = steps(lambda rounds, looks: decide.decide(rounds, 0.05, looks, change=0.1)[0])
        old = steps(old_decide)
        self.assertEqual(new[1], 0, new)
        self.assertGreater(new[0], 2 * old[0], (new, old))

    def test_three_noisy_rounds_do_not_decide(self):
        """Three noisy time rounds on one side of 1/2 by chance are not enough (the t quantile at the
        Bonferroni level is large): no decision, where an interval of three resampled values would have
        decided."""
        rounds = [(1.00, 1.06, 1.10), (1.00, 1.08, 1.10), (1.00, 1.03, 1.10)]
        self.assertIsNone(decide.decide(rounds, 0.05, 13)[0])

    def test_false_decisions_on_noise(self):
        """A candidate exactly halfway (neither end) with 5% noise: over 300 seeded steps of up to 15
        rounds with looks at every round, wrong decisions stay below alpha."""
        import random
        rng = random.Random(7)
        wrong = 0
        for _ in range(300):
            rounds = []
            for k in range(15):
                rounds.append(tuple(x * rng.gauss(1, 0.05) for x in (1.0, 1.05, 1.1)))
                verdict, _ = decide.decide(rounds, 0.05, 13)
                if verdict:
                    wrong += 1
                    break
        self.assertLessEqual(wrong, 15, wrong)


class EndsTest(unittest.TestCase):
    """The ends' check measures a time as the steps do: each round keeps the least of TIME_RUNS runs a role."""

    def test_a_time_round_keeps_the_least_of_its_runs(self):
        """Each end's runs cycle through 1x, 2x and 3x its CPU time (a load that only adds); the ends'
        rounds must hold the least, as a step's rounds do, so the change is the steps' figure."""
        cycles = {"G": itertools.cycle([20.0, 40.0, 60.0]), "B": itertools.cycle([22.0, 44.0, 66.0])}
        calls = []

        def run_once(tree, settings, out_dir, counted=False):
            calls.append(tree)
            return {"task_clock_ms": next(cycles[tree])}, ""

        settings = {"metric": "task_clock_ms", "max_rounds": 15, "min_change": 0.05, "alpha": 0.05}
        with mock.patch.object(main.measure, "run_once", run_once):
            metric, effect = main.check_ends(mock.Mock(), settings, {"good": "G", "bad": "B"}, "/nonexistent")
        self.assertEqual(metric, "task_clock_ms")
        self.assertEqual(effect["values"], [[20.0, 22.0]] * effect["rounds"])
        self.assertEqual(calls.count("G"), main.TIME_RUNS * effect["rounds"])
        self.assertAlmostEqual(effect["change"], 0.1)

    def test_a_count_round_is_one_run(self):
        """A count (no load moves it) takes one run of each end a round."""
        calls = []

        def run_once(tree, settings, out_dir, counted=False):
            calls.append(tree)
            return {"minflt": 1000.0 if tree == "G" else 1100.0}, ""

        settings = {"metric": "minflt", "max_rounds": 15, "min_change": 0.05, "alpha": 0.05}
        with mock.patch.object(main.measure, "run_once", run_once):
            metric, effect = main.check_ends(mock.Mock(), settings, {"good": "G", "bad": "B"}, "/nonexistent")
        self.assertEqual(metric, "minflt")
        self.assertEqual(calls.count("G"), effect["rounds"])


if __name__ == "__main__":
    unittest.main()
