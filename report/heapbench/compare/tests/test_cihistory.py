"""test_cihistory.py - `heapbench ci --history`: the gate against the testbed's own past, on real quick runs.

Always holds: the history is an SQLite file in a temporary directory built by the test itself from
real runs of this machine (`heapbench run` through ci); the gated metrics are page faults and peak
RSS (load-independent); the regression is a real one (the library behind an allocator name swapped
with --allocator); the window and the prediction test are also checked on synthetic series.
"""
import collections
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from heapbench import cli
from heapbench.compare import cihistory
from heapbench.history.store import open_store

ROOT = cli.ROOT
HB = os.path.join(ROOT, "build", "heapbench")
LIBS = "/usr/lib/x86_64-linux-gnu/"
MIMALLOC, TCMALLOC = LIBS + "libmimalloc.so.2", LIBS + "libtcmalloc_minimal.so.4"
MATRIX = ["-w", "thread-churn", "-a", "glibc,mine", "-t", "1", "-p=--mode=loop --ops=20000",
          "--metrics", "minflt,maxrss_kb", "-n", "3"]
Point = collections.namedtuple("Point", "label median")


class WindowTest(unittest.TestCase):
    """The window of a series and the prediction test, on synthetic medians."""

    def test_window_starts_after_the_last_change(self):
        """A +20% step at point 12 of 24: the window is the last 10 points, all after the step."""
        medians = [100 + (i % 3) * 0.3 for i in range(12)] + [120 + (i % 3) * 0.3 for i in range(12)]
        points = [Point(str(i), m) for i, m in enumerate(medians)]
        win, change = cihistory.window(points, 10)
        self.assertEqual(change.index, 12)
        self.assertEqual([p.label for p in win], [str(i) for i in range(14, 24)])
        win, _ = cihistory.window(points, 50)
        self.assertEqual(win[0].label, "12")

    def test_prediction(self):
        """A new median inside the window's spread: large p; far outside: small p; too few points: 1."""
        medians = [100, 102, 98, 101, 99, 100, 103, 97]
        self.assertGreater(cihistory.prediction(100.5, medians)[0], 0.5)
        self.assertLess(cihistory.prediction(115, medians)[0], 0.001)
        self.assertEqual(cihistory.prediction(500, medians[:2])[0], 1.0)
        self.assertEqual(cihistory.prediction(100, [100, 100, 100])[0], 1.0)
        self.assertEqual(cihistory.prediction(101, [100, 100, 100])[0], 0.0)


@unittest.skipUnless(os.access(HB, os.X_OK), "build/heapbench is not built")
class HistoryGateTest(unittest.TestCase):
    """The history gate's whole story on real runs of this machine."""

    def setUp(self):
        """A temporary directory for the history and the gates' output."""
        self.tmp = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.tmp.name, "h.sqlite")
        self.count = 0

    def tearDown(self):
        """Removes it."""
        self.tmp.cleanup()

    def gate(self, *args, library=MIMALLOC):
        """Runs `heapbench ci --history DB` on MATRIX, the allocator 'mine' being library, into a fresh
        output directory; returns (process, out dir)."""
        self.count += 1
        out = os.path.join(self.tmp.name, f"g{self.count}")
        proc = subprocess.run([HB, "ci", "--history", self.db, "-o", out, f"--allocator=mine={library}"] + MATRIX + list(args),
                              capture_output=True, text=True)
        return proc, out

    def runs(self):
        """The number of runs in the history (all testbeds)."""
        store = open_store(self.db)
        try:
            return sum(len(store.runs(t.name)) for t in store.testbeds())
        finally:
            store.close()

    def forge_other_testbed(self, run_dir):
        """Adds a copy of run_dir whose meta.json names another kernel; returns the copy's run id."""
        copy = os.path.join(self.tmp.name, "elsewhere")
        shutil.copytree(run_dir, copy)
        path = os.path.join(copy, "meta.json")
        with open(path) as fh:
            meta = json.load(fh)
        meta["kernel"] = "0.0.1-another-machine"
        with open(path, "w") as fh:
            json.dump(meta, fh)
        store = open_store(self.db)
        try:
            return store.add(copy)[0][0]
        finally:
            store.close()

    @unittest.skipUnless(os.path.exists(MIMALLOC) and os.path.exists(TCMALLOC),
                         "libmimalloc2.0 or libtcmalloc-minimal4 is not installed (make deps)")
    def test_gate_against_history(self):
        """Empty history: exit 2; another testbed only: exit 2 naming it; seeded (--update-baseline), two
        undecided passes added with --allow-unknown, then a decided PASS added (the testbed named); then
        the library behind the allocator name 'mine' swapped from mimalloc's to tcmalloc's (peak RSS and page
        faults up several times): a confirmed REGRESSION, exit 1, and not added."""
        proc, out = self.gate()
        self.assertEqual(proc.returncode, 2, proc.stderr[-1500:])
        self.assertIn("it is empty", proc.stderr.splitlines()[-1])
        batch = next(os.path.join(out, d) for d in os.listdir(out) if d.startswith("batch1"))
        other = self.forge_other_testbed(batch)
        proc, _ = self.gate()
        self.assertEqual(proc.returncode, 2, proc.stderr[-1500:])
        self.assertIn(f"it has {other}", proc.stderr.splitlines()[-1])
        proc, _ = self.gate("--update-baseline")
        self.assertEqual(proc.returncode, 0, proc.stderr[-1500:])
        for _ in range(2):
            proc, _ = self.gate("--add")
            self.assertEqual(proc.returncode, 3, proc.stderr[-1500:])   # 1-2 points: undecided, not added
            self.assertIn("UNDECIDED", proc.stderr)
            proc, _ = self.gate("--add", "--allow-unknown")
            self.assertEqual(proc.returncode, 0, proc.stderr[-1500:])
            self.assertIn("ci: added", proc.stderr)
        self.assertEqual(self.runs(), 4)
        proc, _ = self.gate("--add")
        self.assertEqual(proc.returncode, 0, proc.stdout[-1500:] + proc.stderr[-1500:])
        self.assertRegex(proc.stderr, r"ci: testbed \S+: gating against its last 10 points")
        self.assertRegex(proc.stdout.splitlines()[-1], r"^0 REGRESSION, \d+ IMPROVEMENT, [1-9]\d* SAME, 0 UNDECIDED")
        self.assertEqual(self.runs(), 5)
        proc, out = self.gate("--add", library=TCMALLOC)
        self.assertEqual(proc.returncode, 1, proc.stdout[-1500:] + proc.stderr[-1500:])
        self.assertIn("ci: FAIL", proc.stderr)
        self.assertIn("confirmed on re-run", proc.stdout)
        self.assertTrue(os.path.isdir(os.path.join(out, "confirm-1")))
        self.assertEqual(self.runs(), 5)

    def test_usage_errors(self):
        """Options of another mode, a history that cannot be opened: one line, exit 2, nothing run."""
        for args in (["--add"], ["--label", "x"], ["--history", self.db, "--ab", "--base", "true", "--", "true"],
                     ["--history", self.db, "--window", "1"],
                     ["--history", os.path.join(self.tmp.name, "no", "such", "dir", "h.sqlite")]):
            out = os.path.join(self.tmp.name, "never")
            proc = subprocess.run([HB, "ci", "-o", out] + args, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, (args, proc.stderr))
            self.assertFalse(os.path.exists(out), args)


if __name__ == "__main__":
    unittest.main()
