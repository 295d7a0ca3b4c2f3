"""test_export.py - `heapbench history export` in its three formats, on a history built here.

Always holds: the values checked are computed from the reps the test wrote (no hard-coded
result); bmf and github-action-benchmark are checked to be the JSON those tools read; a history
of two testbeds without --testbed is one line and exit 2.
"""
import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import statistics
import tempfile
import unittest

import histfix
from histfix import cell, write_run

KEY = ("churn", "jemalloc", 2, "--ops=10", "")


class ExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hb-history-export-")
        cls.db = os.path.join(cls.tmp, "h.sqlite")
        cls.walls = {}
        for i in range(3):
            cells = {KEY: cell(1.0 + i, reps=5, jitter=0.01)}
            cls.walls[f"v{i}"] = cells[KEY]["wall_s"]
            d = write_run(os.path.join(cls.tmp, f"r{i}"), cells, run_id=f"r{i}",
                          libraries={"jemalloc": {"path": "/l.so", "version": "5.3.0-1", "sha256": "c" * 64}})
            commit = ["--commit", f"{i + 1:x}" * 40] if i else []  # v0 has no commit under test
            assert histfix.run_cli(["add", "--db", cls.db, "--label", f"v{i}"] + commit + [d], cls.tmp).returncode == 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def export(self, *args):
        done = histfix.run_cli(["export", "--db", self.db] + list(args), self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def test_bmf_is_the_newest_point(self):
        doc = json.loads(self.export("--format", "bmf"))
        entry = doc["churn/jemalloc/t2 [--ops=10]"]["wall-s"]
        self.assertAlmostEqual(entry["value"], statistics.median(self.walls["v2"]))
        self.assertLess(entry["lower_value"], entry["value"])
        self.assertGreater(entry["upper_value"], entry["value"])
        self.assertEqual(set(doc["churn/jemalloc/t2 [--ops=10]"]), {"wall-s", "maxrss-kb"})

    def test_github_action_benchmark_of_a_label(self):
        out = os.path.join(self.tmp, "gab.json")
        self.export("--format", "github-action-benchmark", "--label", "v0", "-o", out)
        doc = json.load(open(out))
        wall = next(e for e in doc if e["name"].endswith(" wall_s"))
        self.assertEqual(wall["unit"], "s")
        self.assertAlmostEqual(wall["value"], statistics.median(self.walls["v0"]))
        self.assertTrue(wall["range"].startswith("± "))

    def test_csv_has_every_point(self):
        rows = list(csv.DictReader(self.export("--format", "csv", "--metric", "wall_s").splitlines()))
        self.assertEqual([r["label"] for r in rows], ["v0", "v1", "v2"])
        self.assertEqual(rows[0]["schema"], "2")
        self.assertEqual([r["tested_commit"] for r in rows], ["", "2" * 40, "3" * 40])
        self.assertEqual([float(v) for v in rows[1]["reps"].split()], self.walls["v1"])
        self.assertEqual(rows[2]["library_sha256"], "c" * 64)

    def test_two_testbeds_need_testbed_for_bmf(self):
        d = write_run(os.path.join(self.tmp, "other"), {KEY: cell(1)}, run_id="other",
                      facts=dict(histfix.FACTS, cores=64))
        db = os.path.join(self.tmp, "two.sqlite")
        histfix.run_cli(["add", "--db", db, d, os.path.join(self.tmp, "r0")], self.tmp)
        done = histfix.run_cli(["export", "--db", db, "--format", "bmf"], self.tmp)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("give --testbed", done.stderr)

    def test_infinite_median_is_refused_not_printed(self):
        db = os.path.join(self.tmp, "inf.sqlite")
        shutil.copy(self.db, db)
        with sqlite3.connect(db) as con:  # as a PostgreSQL history held after an unchecked add
            con.execute("UPDATE points SET median = ?, spread = ? WHERE metric = 'wall_s'", (float("inf"), float("inf")))
        for fmt in ("bmf", "github-action-benchmark"):
            done = histfix.run_cli(["export", "--db", db, "--format", fmt], self.tmp)
            self.assertEqual(done.returncode, 2, (fmt, done.stdout))
            self.assertNotIn("Infinity", done.stdout)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn("not a finite number", done.stderr)
        done = histfix.run_cli(["changes", "--db", db, "--json"], self.tmp)
        self.assertNotIn("Infinity", done.stdout)
        self.assertNotIn("NaN", done.stdout)

    def test_values_beyond_the_physical_range_are_never_added(self):
        d = write_run(os.path.join(self.tmp, "huge"), {KEY: {"wall_s": [1.7e308, 1.7e308], "maxrss_kb": [1.7e308] * 2}},
                      run_id="huge")
        db = os.path.join(self.tmp, "huge.sqlite")
        done = histfix.run_cli(["add", "--db", db, d], self.tmp)
        self.assertEqual(done.returncode, 2, done.stdout)
        self.assertIn("physical range", done.stderr)
        self.assertNotIn("damaged", done.stderr)

    def test_a_metric_it_does_not_have_is_refused(self):
        for fmt in ("bmf", "github-action-benchmark"):
            done = histfix.run_cli(["export", "--db", self.db, "--format", fmt, "--metric", "typo"], self.tmp)
            self.assertEqual(done.returncode, 2, (fmt, done.stdout))
            self.assertEqual(done.stdout, "")
            self.assertIn("no value of metric typo", done.stderr)
            self.assertIn("wall_s", done.stderr)

    def test_help_says_which_point_each_format_holds(self):
        done = histfix.run_cli(["export", "--help"], self.tmp)
        text = " ".join(done.stdout.split())
        self.assertNotIn("default: every point;", text)
        self.assertIn("bmf and github-action-benchmark, which describe one point, the newest", text)
        doc = json.loads(self.export("--format", "github-action-benchmark"))
        self.assertTrue(all("label v2" in e["extra"] for e in doc), doc)

    def test_a_run_whose_cells_all_failed_is_not_added(self):
        d = write_run(os.path.join(self.tmp, "allfail"), {KEY: cell(1.0)}, run_id="allfail")
        path = os.path.join(d, "runs.csv")
        rows = list(csv.reader(open(path, newline="")))
        for row in rows[1:]:
            row[rows[0].index("status")] = "crashed"
            row[rows[0].index("reason")] = "killed by signal 11 (SIGSEGV)"
        csv.writer(open(path, "w", newline=""), lineterminator="\n").writerows(rows)
        db = os.path.join(self.tmp, "allfail.sqlite")
        done = histfix.run_cli(["add", "--db", db, d], self.tmp)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertNotIn("added", done.stdout)
        self.assertIn("no cell has an ok rep", done.stderr)

    def test_a_closed_pipe_ends_quietly(self):
        for args in (["changes", "--min-magnitude", "0"], ["export", "--format", "csv"], ["testbeds"]):
            read, write = os.pipe()
            os.close(read)  # as `| head -1` once it has its line
            try:
                done = subprocess.run([histfix.BIN, "history"] + args + ["--db", self.db], stdout=write,
                                      stderr=subprocess.PIPE, text=True, timeout=600)
            finally:
                os.close(write)
            self.assertEqual(done.stderr, "", args)
            self.assertIn(done.returncode, (0, -signal.SIGPIPE), args)


if __name__ == "__main__":
    unittest.main()
