"""test_boundary.py - a step next to the last good or the first bad commit goes on past --max-rounds while its rounds' spread says more rounds can decide it, and an undecided one there is revisited once the search is over.

Always holds: nothing is built or run: the runs are made here (seeded noise on a CPU time, each run
only ever slowed, as a load slows it), through main.step with measure and repo replaced.
"""
import math
import random
import unittest
from unittest import mock

from heapbench.bisect import decide, main, output, search
from heapbench.bisect.search import BAD, GOOD, SKIP

METRIC = "task_clock_ms"


def settings(budget=40):
    """A bisect's settings on a CPU time, rounds as the defaults."""
    return {"metric": METRIC, "max_rounds": 15, "boundary_rounds": budget, "alpha": 0.05, "repo": "/nonexistent",
            "build": "", "build_timeout": 1, "workload": None, "library": None}


def a_state(commits=1):
    """A state whose ends differ by +10% in the CPU time."""
    return {"commits": [f"{i:040d}" for i in range(commits)], "metric": METRIC, "ends": {"change": 0.1}, "steps": {},
            "good": "g" * 40, "bad": "b" * 40}


def measured(sigma, commit_ms, seed, calls=None):
    """A run_once whose good end takes 20 ms, bad 22 ms, the commit commit_ms, each run slowed by
    exp(|N(0, sigma)|); the rounds' directories asked for are appended to calls."""
    rng = random.Random(seed)

    def run_once(tree, _settings, out_dir, counted=False):
        if calls is not None:
            calls.append(out_dir)
        base = {"G": 20.0, "B": 22.0}.get(tree, commit_ms)
        return {METRIC: base * math.exp(abs(rng.gauss(0, sigma)))}, ""
    return run_once


def step(run_once, boundary, record=None, budget=40):
    """main.step of commit 0 with the runs of run_once; its record."""
    with mock.patch.object(main.measure, "run_once", run_once), mock.patch.object(main.repo, "export", lambda *a: None), \
            mock.patch.object(main.measure, "build", lambda *a: (True, "")):
        return main.step(settings(budget), a_state(), {"good": "G", "bad": "B"}, "/nonexistent-bisect", 0, boundary,
                         record)


class LooksTest(unittest.TestCase):
    """The looks of a step that may be continued, and the rounds its spread asks for."""

    def test_boundary_looks(self):
        self.assertEqual(decide.boundary_looks(15, 40), [3, 5, 8, 13, 15, 24, 40])
        self.assertEqual(decide.boundary_looks(15, 15), decide.looks(15))
        self.assertEqual(decide.boundary_looks(15, 20), [3, 5, 8, 13, 15, 20])

    def test_rounds_needed(self):
        """Exact counts need no more rounds; a noisy candidate on one end a finite number that falls as
        its spread falls; one halfway between the ends more than any budget; one round cannot say."""
        self.assertEqual(decide.rounds_needed([(100, 110, 110)] * 3, 0.05, 7), 3)
        rng = random.Random(3)
        noisy = [tuple(x * math.exp(rng.gauss(0, 0.1)) for x in (1.0, 1.1, 1.1)) for _ in range(15)]
        quiet = [tuple(x * math.exp(rng.gauss(0, 0.03)) for x in (1.0, 1.1, 1.1)) for _ in range(15)]
        self.assertLess(decide.rounds_needed(quiet, 0.05, 7), decide.rounds_needed(noisy, 0.05, 7))
        self.assertLess(decide.rounds_needed(noisy, 0.05, 7), math.inf)
        halfway = [(100 * math.exp(rng.gauss(0, 0.03)), 105, 110.25) for _ in range(15)]
        self.assertGreater(decide.rounds_needed(halfway, 0.05, 7), 40)
        self.assertEqual(decide.rounds_needed([(100, 105, 110.25)] * 5, 0.05, 7), math.inf)
        self.assertEqual(decide.rounds_needed([(100, 110, 110)], 0.05, 7), math.inf)


class BoundaryStepTest(unittest.TestCase):
    """A step on the boundary gets the rounds its spread asks for, up to --boundary-rounds."""

    def test_boundary_decides_more_noisy_steps_and_none_wrongly(self):
        """60 seeded steps with 15% noise, half like good, half like bad: on the boundary more are
        decided than with --max-rounds only (where about a quarter are left undecided), none wrongly."""
        def count(boundary):
            right = wrong = 0
            for i in range(60):
                truth = (GOOD, 20.0) if i % 2 == 0 else (BAD, 22.0)
                verdict = step(measured(0.15, truth[1], i), boundary)["verdict"]
                right += verdict == truth[0]
                wrong += verdict in (GOOD, BAD) and verdict != truth[0]
            return right, wrong
        plain, extended = count(False), count(True)
        self.assertEqual((plain[1], extended[1]), (0, 0))
        self.assertLess(plain[0], 50, "the noise must leave steps undecided in 15 rounds for this test to say anything")
        self.assertGreaterEqual(extended[0], plain[0] + 6, (plain, extended))

    def test_a_step_off_the_boundary_stops_at_max_rounds(self):
        record = step(measured(0.4, 22.0, 5), False)
        self.assertEqual((record["verdict"], record["rounds"], record["extended"]), ("undecided", 15, False))

    def test_a_halfway_commit_is_not_measured_on(self):
        """A commit halfway between the ends (neither) is mostly left undecided at --max-rounds on the
        boundary too (its projected rounds are beyond the budget), and decided (either way) in fewer
        than alpha of 100 seeded steps."""
        records = [step(measured(0.05, math.sqrt(20.0 * 22.0), 100 + i), True) for i in range(100)]
        self.assertLessEqual(sum(r["verdict"] != "undecided" for r in records), 8, [r["verdict"] for r in records])
        self.assertGreaterEqual(sum(r["rounds"] <= 15 for r in records), 75, [r["rounds"] for r in records])

    def test_no_budget_beyond_max_rounds_is_the_old_step(self):
        record = step(measured(0.4, 22.0, 5), True, budget=15)
        self.assertEqual(record["rounds"], 15)

    def test_a_revisit_continues_the_rounds(self):
        """An undecided step's record is continued from its next round, in its own directory."""
        first = step(measured(0.4, 22.0, 5), False)
        calls = []
        again = step(measured(0.02, 22.0, 6, calls), True, record=first)
        self.assertTrue(calls[0].startswith(first["dir"] + "/round-16-"), calls[0])
        self.assertEqual(again["revisits"], 1)
        self.assertEqual(again["values"][:15], first["values"])
        self.assertTrue(again["extended"])
        self.assertEqual(output.steps_taken({"steps": {"0": again, "1": {"verdict": GOOD}}}), 3)


class RevisitTest(unittest.TestCase):
    """Which commit is revisited once the search is over."""

    def test_on_boundary(self):
        verdicts = {3: GOOD, 8: BAD}
        self.assertEqual([i for i in range(10) if search.on_boundary(10, verdicts, i)], [4, 7])
        self.assertEqual([i for i in range(3) if search.on_boundary(3, {}, i)], [0, 1])

    def test_revisit(self):
        verdicts = {3: GOOD, 4: SKIP, 5: SKIP, 6: BAD}
        self.assertEqual(search.revisit(10, verdicts, {4, 5}), 4, "next to the last good first")
        self.assertEqual(search.revisit(10, verdicts, {5}), 5)
        self.assertIsNone(search.revisit(10, verdicts, set()), "a build failure (not undecided) is not revisited")
        self.assertIsNone(search.revisit(10, {3: GOOD, 8: BAD}, {4}), "not before the search is over")
        self.assertIsNone(search.revisit(10, {3: GOOD, 4: SKIP, 5: SKIP, 6: SKIP, 7: BAD}, {5}), "5 is not on the boundary")

    def test_search_loop_revisits_an_undecided_boundary_commit(self):
        """A search whose steps left commit 1 of 3 undecided next to the good end measures it again
        with its rounds continued; one whose spread asks for more than the budget is not."""
        state = a_state(3)
        noisy = [(20.0, 22.0, 22.0), (20.0, 20.2, 22.0), (20.0, 24.0, 22.0)] * 5
        looks = len(decide.boundary_looks(15, 40))
        self.assertIsNone(decide.decide(noisy, 0.05, looks, 0.1)[0], "the rounds given must leave it undecided")
        self.assertLessEqual(decide.rounds_needed(noisy, 0.05, looks), 40)
        state["steps"] = {"0": {"verdict": GOOD, "rounds": 3}, "1": {"verdict": "undecided", "rounds": 15,
                                                                     "values": noisy, "dir": "/x/step-02"}}
        seen = []

        def fake_step(_settings, _state, _trees, _out, index, boundary, record):
            seen.append((index, boundary, record and record["dir"]))
            return dict(record or {}, verdict=BAD, rounds=24, revisits=1 if record else 0, extended=boundary)
        with mock.patch.object(main, "step", fake_step), mock.patch.object(main.st, "save", lambda *a: None), \
                mock.patch.object(main.measure, "say", lambda *a: None):
            main.search_loop(settings(), state, "/nonexistent-bisect")
        self.assertEqual(seen, [(1, True, "/x/step-02")])
        self.assertEqual(search.answer(3, output.search_verdicts(state)), (1, [1]))
        state["steps"]["1"] = {"verdict": "undecided", "rounds": 15, "dir": "/x", "values": [(20.0, 21.0, 22.05)] * 15}
        seen.clear()
        with mock.patch.object(main, "step", fake_step), mock.patch.object(main.st, "save", lambda *a: None), \
                mock.patch.object(main.measure, "say", lambda *a: None):
            main.search_loop(settings(), state, "/nonexistent-bisect")
        self.assertEqual(seen, [], "a halfway commit is not revisited")


if __name__ == "__main__":
    unittest.main()
