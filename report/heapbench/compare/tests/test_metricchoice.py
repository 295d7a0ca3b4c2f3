"""test_metricchoice.py - which metrics a gate judges (heapbench.compare.metricchoice): the times and
memory of instrumented runs are left out with a note, the counts kept; a time metric whose
rep-to-rep spread is above half its threshold is traded for the counts by ci's defaults, one line
saying so; compare as a process prints that note and judges only the counts.

Always holds: every figure comes from synthetic results directories written here (fixture.py);
the spreads expected follow from the values given.
"""
import argparse
import csv
import os
import random
import subprocess
import tempfile
import unittest

import fixture
from heapbench import results
from heapbench import cells
from heapbench.compare import ci, cihistory, metricchoice, verdicts

VALGRIND = "valgrind cachegrind (--count-instructions)"


def make(tmp, name, wall_sd, seed, instrumented=None, counts=True, factor=1.0):
    """A directory of 3 cells x 6 reps: wall_s ~ N(1, wall_sd), maxrss_kb ~ 1000, minflt and
    metric_instructions constant per cell (times factor); returns results.load() of it."""
    rng = random.Random(seed)
    cellmap = {}
    for i, alloc in enumerate(("glibc", "jemalloc", "mimalloc")):
        c = {"wall_s": [max(0.01, rng.gauss(1.0, wall_sd)) for _ in range(6)], "maxrss_kb": [1000 + i] * 6}
        if counts:
            c["minflt"] = [(500 + i) * factor] * 6
            c["metric_instructions"] = [(1e6 + i) * factor] * 6
        cellmap[("churn", alloc, 1, "", "")] = c
    directory = os.path.join(tmp, name)
    fixture.fixture_write(directory, cellmap, facts={"instrumented": instrumented} if instrumented else None)
    return results.load(directory)


class ComparableTest(unittest.TestCase):
    """Instrumented runs: only metric_* is judged."""

    def test_instrumented_keeps_counts_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            plain, inst = make(tmp, "a", 0.01, 1), make(tmp, "b", 0.01, 2, instrumented=VALGRIND)
            kept, note = metricchoice.comparable(["wall_s", "maxrss_kb", "metric_instructions"], plain, inst)
            self.assertEqual(kept, ["metric_instructions"])
            self.assertIn("wall_s, maxrss_kb not gated", note)
            self.assertIn(VALGRIND, note)
            self.assertEqual(metricchoice.comparable(["wall_s"], plain, plain), (["wall_s"], ""))

    def test_verdicts_skip_and_refuse(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = make(tmp, "a", 0.01, 1, instrumented=VALGRIND)
            new = make(tmp, "b", 0.01, 2, instrumented=VALGRIND, factor=1.2)
            result = verdicts.run(base, new, metrics=("wall_s", "metric_instructions"))
            self.assertEqual({r["metric"] for r in result["rows"]}, {"metric_instructions"})
            self.assertIn("wall_s not gated", result["skipped"])
            self.assertTrue(all(r["verdict"] == "REGRESSION" for r in result["rows"]), result["rows"])
            with self.assertRaises(verdicts.CompareError) as err:
                verdicts.run(base, new, metrics=("wall_s", "maxrss_kb"))
            self.assertIn("--metrics metric_instructions", str(err.exception))

    def test_compare_process_prints_the_note(self):
        """heapbench compare of two instrumented runs: one note line, wall_s absent from compare.csv."""
        with tempfile.TemporaryDirectory() as tmp:
            make(tmp, "a", 0.01, 1, instrumented=VALGRIND)
            make(tmp, "b", 0.01, 2, instrumented=VALGRIND)
            proc = subprocess.run(["/usr/bin/python3", "-m", "heapbench.compare", os.path.join(tmp, "a"),
                                   os.path.join(tmp, "b"), "--metrics", "wall_s,metric_instructions", "-o",
                                   os.path.join(tmp, "out")], capture_output=True, text=True, cwd=tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(sum("not gated: measured under instrumentation" in line
                                 for line in proc.stderr.splitlines()), 1, proc.stderr)
            with open(os.path.join(tmp, "out", "compare.csv"), newline="") as fh:
                self.assertEqual({r["metric"] for r in csv.DictReader(fh)}, {"metric_instructions"})


class HistoryTest(unittest.TestCase):
    """ci --history: an instrumented run is judged on its counts only."""

    def test_history_metrics_of_instrumented_run(self):
        class Store:
            """A history that keeps every metric asked for."""
            def metrics(self, testbed):
                return ["wall_s", "maxrss_kb", "metric_instructions"]
        with tempfile.TemporaryDirectory() as tmp:
            inst = make(tmp, "a", 0.01, 1, instrumented=VALGRIND)
            settings = {"metrics": ["wall_s", "maxrss_kb", "metric_instructions"]}
            self.assertEqual(cihistory.metrics_of(inst, settings, Store(), "tb"), ["metric_instructions"])
            plain = make(tmp, "b", 0.01, 1)
            self.assertEqual(cihistory.metrics_of(plain, settings, Store(), "tb"), settings["metrics"])


class ChooseTest(unittest.TestCase):
    """ci's defaults trade noisy times for the counts."""

    def test_spread(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = make(tmp, "a", 0.0, 1)
            for i, r in enumerate(x for x in d["runs"] if x["allocator"] == "glibc"):
                r["wall_s"] = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0][i]
            # glibc: quartiles (inclusive) of 1,2,3,3,4,5 are 2.25 and 3.75, median 3: 0.5; the others 0
            self.assertAlmostEqual(metricchoice.spread(d, "wall_s"), 0.0)
            self.assertIsNone(metricchoice.spread(d, "cycles"))

    def test_noisy_time_traded_for_counts(self):
        with tempfile.TemporaryDirectory() as tmp:
            noisy = make(tmp, "a", 0.30, 3)
            kept, line = metricchoice.choose(list(cells.DEFAULT_METRICS), noisy, {}, relative=False)
            self.assertNotIn("wall_s", kept)
            self.assertNotIn("p99", kept)
            self.assertIn("maxrss_kb", kept)
            self.assertIn("minflt", kept)
            self.assertIn("metric_instructions", kept)
            self.assertRegex(line, r"^wall_s spreads [0-9.]+% from rep to rep \(above half its 5% threshold\): "
                                   r"gating on the counts metric_instructions, minflt instead of")
            self.assertNotIn("\n", line)

    def test_quiet_time_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            quiet = make(tmp, "a", 0.005, 4)
            self.assertEqual(metricchoice.choose(["wall_s", "maxrss_kb"], quiet, {}, relative=False),
                             (["wall_s", "maxrss_kb"], ""))
            # a threshold given by the user moves the limit: 0.5% spread is above half of 0.5%
            kept, line = metricchoice.choose(["wall_s"], quiet, {"wall_s": 0.005}, relative=False)
            self.assertNotIn("wall_s", kept)
            self.assertIn("(above half its 0.5% threshold)", line)

    def test_no_counts_keeps_times(self):
        with tempfile.TemporaryDirectory() as tmp:
            noisy = make(tmp, "a", 0.30, 5, counts=False)
            self.assertEqual(metricchoice.choose(["wall_s"], noisy, {}, relative=False), (["wall_s"], ""))

    def test_ci_default_metrics(self):
        """ci's wiring: only without --metrics; instrumented batches gate on their metric_* counts."""
        with tempfile.TemporaryDirectory() as tmp:
            noisy, inst = make(tmp, "a", 0.30, 6), make(tmp, "b", 0.01, 7, instrumented=VALGRIND)
            default = argparse.Namespace(metrics=",".join(cells.DEFAULT_METRICS))
            settings = {"metrics": list(cells.DEFAULT_METRICS), "thresholds": {}, "relative": False}
            ci.ci_default_metrics(default, settings, noisy)
            self.assertIn("minflt", settings["metrics"])
            settings = {"metrics": list(cells.DEFAULT_METRICS), "thresholds": {}, "relative": False}
            ci.ci_default_metrics(default, settings, inst)
            self.assertEqual(settings["metrics"], ["metric_instructions"])
            given = argparse.Namespace(metrics="wall_s")
            settings = {"metrics": ["wall_s"], "thresholds": {}, "relative": False}
            ci.ci_default_metrics(given, settings, noisy)
            self.assertEqual(settings["metrics"], ["wall_s"])


if __name__ == "__main__":
    unittest.main()
