"""test_gate.py - the project's own regression gate (report/heapbench/compare/self-gate) passes against this machine's own baseline.

Always holds: it runs the real runner on the real quick matrix of report/heapbench/compare/self-gate twice on the
machine that runs the test: once to make a baseline (--update-baseline), once to gate against it;
no committed numbers of another machine are read (skipped, not passed, when build/heapbench is not
built); everything goes to a temporary directory, never into the repository.
"""
import os
import subprocess
import tempfile
import unittest

from heapbench import cli, stats

ROOT = cli.ROOT
GATE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "self-gate")


class GateTest(unittest.TestCase):
    """`heapbench ci` of the project on a baseline it made itself on this machine."""

    @unittest.skipUnless(os.access(os.path.join(ROOT, "build", "heapbench"), os.X_OK), "build/heapbench is not built")
    def test_gate_passes_on_repo_baseline(self):
        """The self-gate exits 0 against a baseline made here a moment before, and every gated cell was
        compared (none missing, none UNDECIDED)."""
        with tempfile.TemporaryDirectory() as tmp:
            baseline = os.path.join(tmp, "baseline")
            made = subprocess.run([GATE, "--baseline", baseline, "--update-baseline", "--out", os.path.join(tmp, "b")],
                                  capture_output=True, text=True)
            self.assertEqual(made.returncode, 0, made.stderr[-1500:])
            proc = subprocess.run([GATE, "--baseline", baseline, "--out", os.path.join(tmp, "g")],
                                  capture_output=True, text=True)
            not_same = {stats.REGRESSION, stats.IMPROVEMENT, stats.UNDECIDED}
            unsure = [" ".join(words) for words in map(str.split, proc.stdout.splitlines())
                      if words and words[-1] in not_same]
            # the runner prints a failure's last line: the cells that were not SAME end it
            self.assertEqual(proc.returncode, 0, proc.stderr[-500:] + "\nnot SAME: " + " | ".join(unsure))
            summary = proc.stdout.strip().splitlines()[-1]
            self.assertRegex(summary, r"^0 REGRESSION, \d+ IMPROVEMENT, [1-9]\d* SAME, 0 UNDECIDED; 0 missing")
            self.assertIn("ci: PASS", proc.stderr)


if __name__ == "__main__":
    unittest.main()
