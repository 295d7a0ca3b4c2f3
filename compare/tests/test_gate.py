"""test_gate.py - the project's own regression gate (compare/self-gate) passes on its committed baseline.

Always holds: it runs the real runner on the real quick matrix of compare/self-gate and compares
with results/baseline (skipped, not passed, when build/heapbench is not built); its output goes
to a temporary directory, never into the repository.
"""
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GATE = os.path.join(ROOT, "compare", "self-gate")


class GateTest(unittest.TestCase):
    """`heapbench ci` on the project's baseline."""

    @unittest.skipUnless(os.access(os.path.join(ROOT, "build", "heapbench"), os.X_OK), "build/heapbench is not built")
    def test_gate_passes_on_repo_baseline(self):
        """The self-gate exits 0 and every gated cell was compared (none missing, none UNKNOWN)."""
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([GATE, "--out", tmp], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stdout[-1500:] + proc.stderr[-500:])
            summary = proc.stdout.strip().splitlines()[-1]
            self.assertRegex(summary, r"^0 REGRESSION, \d+ IMPROVEMENT, \d+ SAME, 0 UNKNOWN; 0 missing")
            self.assertIn("ci: PASS", proc.stderr)


if __name__ == "__main__":
    unittest.main()
