"""test_realverdicts.py - on real runs of this machine, `heapbench compare` never prints SAME for an interval wider than +-threshold.

Always holds: two real quick runs A and A' of one small matrix (build/heapbench run, skipped when
not built) go into a temporary directory, and a copy of A' with every wall time x1.3; compare
judges A against each, and every SAME it prints (stdout table and compare.csv) has its interval
within +-threshold; the x1.3 wall times are never SAME; an UNDECIDED row says what it could see.
"""
import csv
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from heapbench import cli

HB = os.path.join(cli.ROOT, "build", "heapbench")
MATRIX = ["-w", "thread-churn", "-a", "glibc,jemalloc", "-t", "1"]
METRICS = "wall_s,maxrss_kb,minflt"
PCT = r"([+-]\d+\.\d|[+-]inf)%?"


def slowed(src, dst, factor):
    """Copies results directory src to dst with every wall_s multiplied by factor."""
    shutil.copytree(src, dst)
    with open(os.path.join(src, "runs.csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    with open(os.path.join(dst, "runs.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            if row["wall_s"]:
                row["wall_s"] = repr(float(row["wall_s"]) * factor)
            writer.writerow(row)


@unittest.skipUnless(os.access(HB, os.X_OK), "build/heapbench is not built")
class RealVerdictsTest(unittest.TestCase):
    """compare's SAME on real, noisy runs."""

    def setUp(self):
        """Two real runs and a slowed copy in a temporary directory."""
        self.tmp = tempfile.TemporaryDirectory()
        self.a, self.b = os.path.join(self.tmp.name, "a"), os.path.join(self.tmp.name, "b")
        for out in (self.a, self.b):
            proc = subprocess.run([HB, "run", "--quick", "-n", "6", "-o", out] + MATRIX, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr[-1500:])
        self.slow = os.path.join(self.tmp.name, "b13")
        slowed(self.b, self.slow, 1.3)

    def tearDown(self):
        """Removes the temporary directory."""
        self.tmp.cleanup()

    def judge(self, new):
        """Runs compare A NEW; returns (stdout, compare.csv rows)."""
        out = os.path.join(self.tmp.name, "out-" + os.path.basename(new))
        proc = subprocess.run([HB, "compare", self.a, new, "-o", out, "--metrics", METRICS],
                              capture_output=True, text=True)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        with open(os.path.join(out, "compare.csv"), newline="") as fh:
            return proc.stdout, list(csv.DictReader(fh))

    def check_same(self, stdout, rows):
        """Every printed and written SAME has its interval within +-threshold."""
        for row in rows:
            if row["verdict"] == "SAME":
                self.assertLessEqual(max(abs(float(row["ci_low"])), abs(float(row["ci_high"]))),
                                     float(row["threshold"]) + 1e-12, row)
        thresholds = {r["metric"]: float(r["threshold"]) for r in rows}
        printed = 0
        for line in stdout.splitlines():
            match = re.search(rf"\s(\S+)\s.*\[{PCT}, {PCT}\]\s+\S+\s+SAME(\s+\(.*\))?\s*$", line)
            if match:
                printed += 1
                metric = next(m for m in thresholds if f" {m} " in line)
                low, high = float(match.group(2)) / 100, float(match.group(3)) / 100
                self.assertLessEqual(max(abs(low), abs(high)), thresholds[metric] + 0.0005, line)
        self.assertEqual(printed, sum(1 for r in rows if r["verdict"] == "SAME"), stdout)

    def test_no_same_wider_than_threshold(self):
        """A vs A' and A vs A' x1.3: no SAME beyond +-threshold; the x1.3 wall times never SAME; the
        UNDECIDED rows print what they could see."""
        stdout, rows = self.judge(self.b)
        self.check_same(stdout, rows)
        stdout, rows = self.judge(self.slow)
        self.check_same(stdout, rows)
        wall = [r for r in rows if r["metric"] == "wall_s"]
        self.assertTrue(wall)
        self.assertFalse([r for r in wall if r["verdict"] == "SAME"], wall)
        for line in stdout.splitlines():
            if "UNDECIDED (" in line and "could see" not in line:
                self.assertRegex(line, r"needs \d+ reps per side|no ok run")


if __name__ == "__main__":
    unittest.main()
