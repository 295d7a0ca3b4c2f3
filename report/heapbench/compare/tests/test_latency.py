"""test_latency.py - latency quantiles in `heapbench compare`: p99 and p99.9 judged like any metric.

Always holds: the fixtures are drawn here from a seeded generator (log-normal call times, the shape
real latency has) and written as latency.csv rows with the histogram arithmetic of
heapbench.latency; compare runs as a process exactly as the CLI runs it; nothing is a hard-coded
result: the verdicts follow from the injected change.
"""
import csv
import json
import os
import random
import subprocess
import tempfile
import unittest

import fixture
from heapbench import latency, results

HEADER = ["schema", "run_id", "run", "workload", "allocator", "threads", "params", "env", "rep", "phase", "op",
          "samples"] + [name for name, _ in latency.QUANTILES] + ["max", "mean", "clock_ns", "clock_step_ns", "buckets"]
SAMPLES = 20000
REPS = 6


def histogram(rng, slow_fraction):
    """{bucket: count} and max of SAMPLES log-normal call times around 100 ns (sigma 0.15: a fast
    path, whose p99 a slow 1% of the calls moves), each call 2x slower with probability slow_fraction."""
    counts, top, total = {}, 0, 0
    for _ in range(SAMPLES):
        v = int(rng.lognormvariate(4.6, 0.15))
        if rng.random() < slow_fraction:
            v *= 2
        i = latency.bucket_index(v)
        counts[i] = counts.get(i, 0) + 1
        top, total = max(top, v), total + v
    return counts, top, total


def write(directory, seed, slow_fraction):
    """A results directory with one cell of REPS ok runs, each with a churn/malloc latency row."""
    runs = fixture.fixture_write(directory, {("churn", "glibc", 2, "--ops=1", ""): {
        "wall_s": [1.0 + 0.01 * r for r in range(REPS)], "maxrss_kb": [1000] * REPS}})
    rng = random.Random(seed)
    rows = []
    for run in runs:
        counts, top, total = histogram(rng, slow_fraction)
        quantiles = [latency.quantile(counts, q, top, 0) for _, q in latency.QUANTILES]
        rows.append([1, run["run_id"], run["run"], "churn", "glibc", 2, "--ops=1", "", run["rep"], "churn", "malloc",
                     SAMPLES] + quantiles + [top, total / SAMPLES, 20, 0, latency.format_buckets(counts)])
    results.write_csv(os.path.join(directory, "latency.csv"), HEADER, rows)


def compare_verdicts(base, new, out):
    """Runs heapbench.compare on p50, p99 and p99.9; returns (exit status, {metric: verdict})."""
    proc = subprocess.run(["/usr/bin/python3", "-m", "heapbench.compare", base, new, "--metrics", "p50,p99,p99.9",
                           "-o", out], capture_output=True, text=True)
    with open(os.path.join(out, "compare.csv"), newline="") as fh:
        return proc.returncode, {r["metric"]: r["verdict"] for r in csv.DictReader(fh)}


class LatencyCompareTest(unittest.TestCase):
    """An injected tail slowdown is found at p99 and p99.9, not at p50."""

    def setUp(self):
        """A fresh temporary directory per test (removed afterwards)."""
        self.tmp = tempfile.TemporaryDirectory()
        self.base, self.new = os.path.join(self.tmp.name, "base"), os.path.join(self.tmp.name, "new")

    def tearDown(self):
        """Removes the temporary directory."""
        self.tmp.cleanup()

    def test_one_percent_twice_slower(self):
        """1% of the calls 2x slower: REGRESSION at p99 and p99.9, SAME at p50, exit 1."""
        write(self.base, 1, 0.0)
        write(self.new, 2, 0.01)
        rc, got = compare_verdicts(self.base, self.new, self.tmp.name)
        self.assertEqual(got.get("p99:churn:malloc"), "REGRESSION", got)
        self.assertEqual(got.get("p99.9:churn:malloc"), "REGRESSION", got)
        self.assertEqual(got.get("p50:churn:malloc"), "SAME", got)
        self.assertEqual(rc, 1)

    def test_same_distribution_is_same(self):
        """Two draws of the same distribution: no REGRESSION at any quantile, exit 0."""
        write(self.base, 3, 0.0)
        write(self.new, 4, 0.0)
        rc, got = compare_verdicts(self.base, self.new, self.tmp.name)
        self.assertEqual(set(got.values()), {"SAME"}, got)
        self.assertEqual(rc, 0)

    def test_no_latency_rows_exit_2(self):
        """Only latency metrics asked for and no latency.csv: exit 2 with one line saying what to do."""
        fixture.fixture_write(self.base, {("churn", "glibc", 2, "", ""): {"wall_s": [1.0] * 3}})
        proc = subprocess.run(["/usr/bin/python3", "-m", "heapbench.compare", self.base, self.base, "--metrics", "p99"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("--latency", proc.stderr)

    def test_sampled_against_all_refused_or_marked(self):
        """A --latency sampled run against an --latency all run: latency quantiles refused (exit 2, one
        line naming both modes); runs.csv metrics compared, each verdict marked."""
        write(self.base, 1, 0.0)
        write(self.new, 2, 0.0)
        for directory, mode in ((self.base, "sampled"), (self.new, "all")):
            path = os.path.join(directory, "meta.json")
            with open(path) as fh:
                meta = json.load(fh)
            meta["latency"] = {"mode": mode, "every": 64 if mode == "sampled" else 1}
            with open(path, "w") as fh:
                json.dump(meta, fh)
        proc = subprocess.run(["/usr/bin/python3", "-m", "heapbench.compare", self.base, self.new, "--metrics", "p99"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("--latency sampled and NEW with --latency all", proc.stderr)
        proc = subprocess.run(["/usr/bin/python3", "-m", "heapbench.compare", self.base, self.new, "--metrics", "wall_s",
                               "-o", self.tmp.name], capture_output=True, text=True)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        with open(os.path.join(self.tmp.name, "compare.csv"), newline="") as fh:
            notes = [r["note"] for r in csv.DictReader(fh)]
        self.assertTrue(notes and all("latency modes differ: BASE sampled, NEW all" in n for n in notes), notes)
        self.assertIn("latency modes differ", proc.stdout)


if __name__ == "__main__":
    unittest.main()
