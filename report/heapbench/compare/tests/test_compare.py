"""test_compare.py - `heapbench compare` end to end on synthetic results directories (compare.py as a process).

Always holds: each test writes its own fixtures into a fresh temporary directory, runs
compare.py under /usr/bin/python3 exactly as the CLI does, and checks exit status, the
verdict per cell in compare.csv, stderr, and the well-formedness of Markdown and JUnit.
"""
import csv
import json
import os
import random
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

import fixture

COMPARE = ["-m", "heapbench.compare"]  # run as build/heapbench runs it (PYTHONPATH from tests/run)
ALLOCATORS = ("glibc", "jemalloc", "mimalloc")


def matrix(seed, reps=6, slow=None, factor=1.0, machine=1.0, params="--ops=1"):
    """Cells of two workloads x ALLOCATORS: wall_s ~ machine * N(1, 2%), maxrss_kb ~ 1000 +- 3;
    the cell whose (workload, allocator) is `slow` gets wall_s x factor."""
    rng = random.Random(seed)
    cells = {}
    for workload in ("churn", "batch"):
        for allocator in ALLOCATORS:
            k = factor if (workload, allocator) == slow else 1.0
            cells[(workload, allocator, 2, params, "")] = {
                "wall_s": [machine * k * rng.gauss(1.0, 0.02) for _ in range(reps)],
                "maxrss_kb": [1000 + rng.randint(-3, 3) for _ in range(reps)]}
    return cells


def run_compare(*args, cwd=None):
    """Runs compare.py with args (in cwd, default the test's own); returns the CompletedProcess (text)."""
    return subprocess.run(["/usr/bin/python3"] + COMPARE + list(args), capture_output=True, text=True, cwd=cwd)


def verdicts(directory):
    """{(workload, allocator, metric): verdict} from DIR/compare.csv."""
    with open(os.path.join(directory, "compare.csv"), newline="") as fh:
        return {(r["workload"], r["allocator"], r["metric"]): r["verdict"] for r in csv.DictReader(fh)}


class CompareTest(unittest.TestCase):
    """Exit codes, verdicts and output files of compare.py."""

    def setUp(self):
        """A fresh temporary directory per test (removed afterwards)."""
        self.tmp = tempfile.TemporaryDirectory()
        self.base, self.new = os.path.join(self.tmp.name, "base"), os.path.join(self.tmp.name, "new")

    def tearDown(self):
        """Removes the temporary directory."""
        self.tmp.cleanup()

    def test_one_regressed_cell_exits_1(self):
        """A 15% slowdown of one cell out of six: that cell alone is REGRESSION, exit 1."""
        fixture.fixture_write(self.base, matrix(1))
        fixture.fixture_write(self.new, matrix(2, slow=("churn", "jemalloc"), factor=1.15))
        proc = run_compare(self.base, self.new)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        got = verdicts(self.new)
        self.assertEqual(len(got), 12)
        self.assertEqual([k for k, v in got.items() if v == "REGRESSION"], [("churn", "jemalloc", "wall_s")])
        self.assertIn("REGRESSION", proc.stdout)

    def test_same_build_exits_0(self):
        """Two draws of the same matrix: no REGRESSION, exit 0."""
        fixture.fixture_write(self.base, matrix(3))
        fixture.fixture_write(self.new, matrix(4))
        proc = run_compare(self.base, self.new, "--out", self.tmp.name)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotIn("REGRESSION", verdicts(self.tmp.name).values())

    def test_schema_mismatch_exits_2(self):
        """A NEW of schema 2: exit 2 and one stderr line naming the schema."""
        fixture.fixture_write(self.base, matrix(1))
        fixture.fixture_write(self.new, matrix(2), schema=2)
        proc = run_compare(self.base, self.new)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("schema", proc.stderr)

    def test_bad_values_rejected(self):
        """NaN, inf, a negative time and text in a numeric column of NEW: exit 2, one line naming the
        column, never a comparison (once it printed a CI of [-4814%, +11%])."""
        fixture.fixture_write(self.base, matrix(1))
        for value in ("nan", "inf", "-0.5", "fast"):
            fixture.fixture_write(self.new, matrix(2))
            path = os.path.join(self.new, "runs.csv")
            with open(path, newline="") as fh:
                rows = list(csv.reader(fh))
            rows[1][rows[0].index("wall_s")] = value
            with open(path, "w", newline="") as fh:
                csv.writer(fh, lineterminator="\n").writerows(rows)
            proc = run_compare(self.base, self.new)
            self.assertEqual(proc.returncode, 2, (value, proc.stdout))
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
            self.assertIn("wall_s", proc.stderr)

    def test_repository_file_sets_thresholds(self):
        """A .heapbench.toml above the current directory (below the repository's top) sets per-metric
        thresholds, written into compare.csv; --threshold overrides it; a bad file is exit 2, one line
        naming it; a file beyond the repository's top (.git) is not read."""
        fixture.fixture_write(self.base, matrix(1))
        fixture.fixture_write(self.new, matrix(2))
        top = os.path.join(self.tmp.name, "repo")
        work = os.path.join(top, "sub", "dir")
        os.makedirs(work)
        os.makedirs(os.path.join(top, ".git"))
        conf = os.path.join(top, ".heapbench.toml")

        def thresholds():
            with open(os.path.join(self.new, "compare.csv"), newline="") as fh:
                return {r["metric"]: float(r["threshold"]) for r in csv.DictReader(fh)}
        with open(conf, "w") as fh:
            fh.write('[thresholds]\nwall_s = "3%"\nmaxrss_kb = 0.2\n')
        proc = run_compare(self.base, self.new, cwd=work)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(conf, proc.stderr)
        self.assertEqual(thresholds(), {"wall_s": 0.03, "maxrss_kb": 0.2})
        proc = run_compare(self.base, self.new, "--threshold", "wall_s=7%", cwd=work)
        self.assertEqual(thresholds(), {"wall_s": 0.07, "maxrss_kb": 0.2})
        for text in ('[thresholds]\nwall_s = "0%"\n', '[thresholds]\nwall_s = "nan"\n', '[thresholds]\nwall_s = -1\n',
                     '[thresholds\n', '[limits]\nwall_s = "3%"\n', 'thresholds = 3\n', '[thresholds]\nwall_s = true\n'):
            with open(conf, "w") as fh:
                fh.write(text)
            proc = run_compare(self.base, self.new, cwd=work)
            self.assertEqual(proc.returncode, 2, (text, proc.stderr))
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
            self.assertIn(conf, proc.stderr)
        os.rename(conf, os.path.join(self.tmp.name, ".heapbench.toml"))   # above the repository: not read
        proc = run_compare(self.base, self.new, cwd=work)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(thresholds(), {"wall_s": 0.05, "maxrss_kb": 0.10})

    def test_usage_errors_exit_2_one_line(self):
        """A bad threshold (0, NaN, negative, infinite, not a number, no metric name), a missing argument,
        a non-results directory, an unknown --same-rule: exit 2, one line each."""
        fixture.fixture_write(self.base, matrix(1))
        bad_thresholds = ("five", "0", "0%", "nan", "-5%", "inf", "wall_s=0%", "=5%", "wall_s=nan")
        for args in tuple((self.base, self.base, "--threshold", t) for t in bad_thresholds) + (
                (self.base,), (self.base, self.tmp.name), (self.base, self.base, "--metric", "no_such_column"),
                (self.base, self.base, "--same-rule", "maybe")):
            proc = run_compare(*args)
            self.assertEqual(proc.returncode, 2, args)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)

    def test_hosts_need_relative(self):
        """A 30% slower machine: absolute wall_s across hosts is refused (exit 2); --relative sees
        no regression, yet still catches a cell that regressed against glibc."""
        fixture.fixture_write(self.base, matrix(5), host="fast")
        fixture.fixture_write(self.new, matrix(6, machine=1.3), host="slow")
        self.assertEqual(run_compare(self.base, self.new).returncode, 2)
        proc = run_compare(self.base, self.new, "--relative")
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertFalse(any(a == "glibc" for _, a, _ in verdicts(self.new)), "the reference is not compared")
        fixture.fixture_write(self.new, matrix(6, machine=1.3, slow=("batch", "mimalloc"), factor=1.2), host="slow")
        proc = run_compare(self.base, self.new, "--relative")
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertEqual(verdicts(self.new)[("batch", "mimalloc", "wall_s")], "REGRESSION")

    def test_memory_counts_are_not_compared_across_hosts_or_testbeds(self):
        """Absolute maxrss_kb of two hosts, or of one host name on two kernels, is refused (exit 2):
        page faults and RSS depend on the kernel and the machine; --relative is accepted."""
        fixture.fixture_write(self.base, matrix(5), host="a", facts={"kernel": "6.1.0-9"})
        for host, kernel, word in (("b", "6.1.0-9", "different hosts"), ("a", "6.1.0-13", "kernel '6.1.0-9' vs '6.1.0-13'")):
            fixture.fixture_write(self.new, matrix(6), host=host, facts={"kernel": kernel})
            proc = run_compare(self.base, self.new, "--metrics", "maxrss_kb")
            self.assertEqual(proc.returncode, 2, proc.stdout)
            self.assertIn(word, proc.stderr)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
            self.assertEqual(run_compare(self.base, self.new, "--metrics", "maxrss_kb", "--relative").returncode, 0)
        fixture.fixture_write(self.new, matrix(6), host="a", facts={"kernel": "6.1.0-9"})
        self.assertEqual(run_compare(self.base, self.new, "--metrics", "maxrss_kb").returncode, 0)

    def test_priorities_are_testbeds(self):
        """A run at --priority rt against one at normal (or one written before meta.json had priority,
        which ran at normal) is another testbed: absolute figures refused (exit 2, naming priority);
        normal against a directory without the field is the same testbed."""
        fixture.fixture_write(self.base, matrix(5), host="a", facts={"priority": "normal"})
        fixture.fixture_write(self.new, matrix(6), host="a", facts={"priority": "rt"})
        proc = run_compare(self.base, self.new)
        self.assertEqual(proc.returncode, 2, proc.stdout)
        self.assertIn("priority 'normal' vs 'rt'", proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertEqual(run_compare(self.base, self.new, "--relative").returncode, 0)
        fixture.fixture_write(self.base, matrix(5), host="a")
        self.assertEqual(run_compare(self.base, self.new).returncode, 2)
        fixture.fixture_write(self.new, matrix(6), host="a", facts={"priority": "normal"})
        self.assertEqual(run_compare(self.base, self.new).returncode, 0)

    def test_higher_is_better_from_meta(self):
        """A metric_ops column declared 'higher' in meta.json: a 20% drop is a REGRESSION, a 20% rise is not."""
        for factor, expected in ((0.8, 1), (1.2, 0)):
            rng = random.Random(int(factor * 10))
            for directory, k in ((self.base, 1.0), (self.new, factor)):
                cells = {("app", "glibc", 1, "", ""): {"metric_ops": [k * rng.gauss(100, 1) for _ in range(6)]}}
                fixture.fixture_write(directory, cells, metrics={"ops": "higher"})
            proc = run_compare(self.base, self.new, "--metric", "metric_ops")
            self.assertEqual(proc.returncode, expected, proc.stdout)

    def test_unmeasured_counter_exits_2(self):
        """A perf counter the runner could not open (empty column, reason in meta.json): exit 2 naming it."""
        fixture.fixture_write(self.base, matrix(1))
        fixture.fixture_write(self.new, matrix(2))
        with open(os.path.join(self.new, "meta.json")) as fh:
            meta = json.load(fh)
        meta["counters"] = {"instructions": "unavailable: ENOENT"}
        with open(os.path.join(self.new, "meta.json"), "w") as fh:
            json.dump(meta, fh)
        proc = run_compare(self.base, self.new, "--metric", "instructions")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("instructions was not measured (unavailable: ENOENT)", proc.stderr)

    def test_cell_that_now_crashes_is_regression(self):
        """Every run of one cell crashed in NEW: that cell is a REGRESSION saying so, exit 1."""
        fixture.fixture_write(self.base, matrix(1))
        rows = fixture.fixture_write(self.new, matrix(2))
        with open(os.path.join(self.new, "runs.csv"), newline="") as fh:
            table = list(csv.DictReader(fh))
        for row in table:
            if (row["workload"], row["allocator"]) == ("batch", "mimalloc"):
                row.update(status="crashed", reason="signal 11", wall_s="", maxrss_kb="")
        with open(os.path.join(self.new, "runs.csv"), "w", newline="") as fh:
            writer = csv.DictWriter(fh, list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(table)
        proc = run_compare(self.base, self.new)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        bad = {k for k, v in verdicts(self.new).items() if v == "REGRESSION"}
        self.assertEqual(bad, {("batch", "mimalloc", "wall_s"), ("batch", "mimalloc", "maxrss_kb")})
        self.assertIn("every run ended crashed", proc.stdout)

    def test_relative_without_reference_exits_2(self):
        """--relative on runs without glibc cells: exit 2 saying to add glibc."""
        cells = {k: v for k, v in matrix(1).items() if k[1] != "glibc"}
        fixture.fixture_write(self.base, cells)
        fixture.fixture_write(self.new, cells)
        proc = run_compare(self.base, self.new, "--relative")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no glibc runs", proc.stderr)

    def test_two_reps_unknown(self):
        """2 reps per side: every verdict UNDECIDED, exit 0, stderr says how many reps are needed."""
        fixture.fixture_write(self.base, matrix(1, reps=2))
        fixture.fixture_write(self.new, matrix(2, reps=2, slow=("churn", "glibc"), factor=2.0))
        proc = run_compare(self.base, self.new)
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(set(verdicts(self.new).values()), {"UNDECIDED"})
        self.assertRegex(proc.stderr, r"run with -n \d+")

    def test_missing_and_extra_cells_listed(self):
        """A cell only in BASE and one only in NEW are listed by name."""
        base, new = matrix(1), matrix(2)
        base[("only-base", "glibc", 1, "", "")] = {"wall_s": [1.0] * 5}
        new[("only-new", "glibc", 1, "", "")] = {"wall_s": [1.0] * 5}
        fixture.fixture_write(self.base, base)
        fixture.fixture_write(self.new, new)
        proc = run_compare(self.base, self.new)
        self.assertIn("missing cell: only-base/glibc/t1", proc.stdout)
        self.assertIn("extra cell: only-new/glibc/t1", proc.stdout)

    def test_junit_and_markdown_well_formed(self):
        """JUnit parses, has one testcase per cell x metric (+ listed cells) and one failure per
        REGRESSION; every Markdown table row has the header's number of cells despite a '|' in params."""
        fixture.fixture_write(self.base, matrix(1, params="--mode=a|b"))
        fixture.fixture_write(self.new, matrix(2, params="--mode=a|b", slow=("churn", "glibc"), factor=1.2))
        junit, md = os.path.join(self.tmp.name, "j.xml"), os.path.join(self.tmp.name, "s.md")
        proc = run_compare(self.base, self.new, "--junit", junit, "--markdown", md)
        self.assertEqual(proc.returncode, 1)
        suite = ET.parse(junit).getroot().find("testsuite")
        cases = suite.findall("testcase")
        self.assertEqual(len(cases), len(verdicts(self.new)))
        self.assertEqual(int(suite.get("tests")), len(cases))
        failures = [c for c in cases if c.find("failure") is not None]
        self.assertEqual(len(failures), int(suite.get("failures")))
        self.assertEqual(len(failures), list(verdicts(self.new).values()).count("REGRESSION"))
        with open(md) as fh:
            table = [line for line in fh if line.startswith("|")]
        cells = [len(line.replace("\\|", "").strip().strip("|").split("|")) for line in table]
        self.assertEqual(len(table), 2 + len(cases))
        self.assertEqual(set(cells), {8})


if __name__ == "__main__":
    unittest.main()
