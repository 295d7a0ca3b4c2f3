"""test_ci.py - `heapbench ci` logic with a fake runner (tests/fakebench): screen, confirm, update, hosts.

Always holds: ci.py runs as a process with HEAPBENCH_BIN pointing at fakebench, so the gate's
decisions (not the runner's measurements) are what is tested; each test has its own baseline,
output directory and fake-runner state in a fresh temporary directory.
"""
import contextlib
import csv
import io
import os
import shutil
import subprocess
import tempfile
import unittest

from heapbench.compare import ci
from heapbench.compare import gate
from heapbench import stats

HERE = os.path.dirname(os.path.abspath(__file__))
CI = ["-m", "heapbench.compare.ci"]  # run as build/heapbench runs it (PYTHONPATH from tests/run)


class CiTest(unittest.TestCase):
    """The regression gate's decisions on synthetic batches."""

    def setUp(self):
        """A temporary directory holding the baseline, the ci output and the fake runner's state."""
        self.tmp = tempfile.TemporaryDirectory()
        self.baseline = os.path.join(self.tmp.name, "baseline")
        self.out = os.path.join(self.tmp.name, "ci")

    def tearDown(self):
        """Removes the temporary directory."""
        self.tmp.cleanup()

    def ci(self, *args, **fake):
        """Runs ci.py with fakebench as the runner and FAKE_* settings; returns the process. The fake
        machine is quiet (0.5% noise per rep) unless noise= says otherwise: with fakebench's 2%, 5 reps
        cannot rule out a 5% change (intervals of about +-6%), so a gate of them is UNDECIDED."""
        fake.setdefault("noise", 0.005)
        env = dict(os.environ, HEAPBENCH_BIN=os.path.join(HERE, "fakebench"), FAKE_STATE=self.tmp.name)
        for name in [k for k in env if k.startswith("FAKE_") and k != "FAKE_STATE"]:
            del env[name]
        env.update({f"FAKE_{k.upper()}": str(v) for k, v in fake.items()})
        for name in ("calls",):
            path = os.path.join(self.tmp.name, name)
            if os.path.exists(path):
                os.remove(path)
        return subprocess.run(["/usr/bin/python3"] + CI + ["--baseline", self.baseline, "--out", self.out] + list(args),
                              capture_output=True, text=True, env=env)

    def rows(self):
        """compare.csv of the last ci run as dicts."""
        with open(os.path.join(self.out, "compare.csv"), newline="") as fh:
            return list(csv.DictReader(fh))

    def make_baseline(self):
        """Creates the baseline with --update-baseline and checks it worked."""
        proc = self.ci("--update-baseline", host="base-host", seed=1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.baseline, "runs.csv")))

    def test_update_baseline_then_same_passes(self):
        """A baseline from one run, then another run of the same 'build' on another host: exit 0."""
        self.make_baseline()
        proc = self.ci(host="other-host", seed=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotIn("REGRESSION", {r["verdict"] for r in self.rows()})

    def test_noisy_machine_is_undecided_not_same(self):
        """The same build on a noisy machine (5% per rep): 5 reps cannot rule out a 5% change, so the
        gate is UNDECIDED (exit 3), never a PASS on SAME; each such row prints what its reps could see;
        --same-rule significance (the older rule) passes it."""
        self.make_baseline()
        proc = self.ci("--metrics", "wall_s,maxrss_kb", host="other-host", seed=2, noise=0.05)  # named: else ci trades noisy times for counts
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertRegex(proc.stderr, r"ci: UNDECIDED: \d+ of \d+ comparisons are UNDECIDED.*widest interval of a change is \+-")
        undecided = [r for r in self.rows() if r["verdict"] == "UNDECIDED"]
        self.assertTrue(undecided)
        for row in self.rows():
            if row["verdict"] == "SAME":
                self.assertLessEqual(max(abs(float(row["ci_low"])), abs(float(row["ci_high"]))),
                                     float(row["threshold"]), row)
        self.assertRegex(proc.stdout, r"UNDECIDED \(could see \+-\d+\.\d% at threshold 5%; ~\d+ reps per side")
        proc = self.ci("--same-rule", "significance", "--metrics", "wall_s,maxrss_kb", host="other-host", seed=2, noise=0.05)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_history_defaults_gate_a_small_memory_regression(self):
        """ci --history with its defaults, on a tight history (5 runs, peak RSS +-0.1%): a run whose peak RSS
        rose 9% in one cell is a confirmed REGRESSION (exit 1: the threshold comes from the series' own
        spread, at least 2%, not a fixed 10%); a run like the history's points passes (exit 0, minflt
        gated too); with --fixed-thresholds (one fixed 10% for memory) the same +9% is not a regression."""
        db = os.path.join(self.tmp.name, "h.sqlite")
        for seed in range(5):
            proc = self.ci("--history", db, "--update-baseline", "-o", os.path.join(self.tmp.name, f"s{seed}"),
                           host="h", seed=10 + seed)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        out = os.path.join(self.tmp.name, "bad")
        proc = self.ci("--history", db, "-o", out, host="h", seed=20, rss="churn/jemalloc=1.09")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        with open(os.path.join(out, "compare.csv"), newline="") as fh:
            rows = list(csv.DictReader(fh))
        failed = {(r["workload"], r["allocator"], r["metric"]) for r in rows if r["verdict"] == "REGRESSION"}
        self.assertEqual(failed, {("churn", "jemalloc", "maxrss_kb")}, rows)
        self.assertEqual({r["metric"] for r in rows}, {"wall_s", "maxrss_kb", "minflt"})
        self.assertTrue(all(float(r["threshold"]) >= 0.02 for r in rows if r["metric"] != "wall_s"), rows)
        self.assertRegex(proc.stderr, r"ci: thresholds 3 x each series' spread over its window, at least the floor: "
                                      r"wall_s 5%, maxrss_kb 2%, minflt 2%")
        proc = self.ci("--history", db, "-o", os.path.join(self.tmp.name, "good"), host="h", seed=21)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = self.ci("--history", db, "--fixed-thresholds", "-o", os.path.join(self.tmp.name, "old"), host="h",
                       seed=20, rss="churn/jemalloc=1.09")
        self.assertNotEqual(proc.returncode, 1, proc.stdout + proc.stderr)

    def test_no_cell_in_common_fails(self):
        """A baseline of workload churn, a run of workload batch: nothing compared, exit 1, never PASS."""
        proc = self.ci("--update-baseline", "-w", "churn", seed=1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.ci("-w", "batch", seed=2)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("no cells in common", proc.stderr)
        self.assertNotIn("PASS", proc.stderr)

    def test_few_shared_cells_warn_and_extra_cells_counted(self):
        """A baseline of 1 workload, a run of 4: a warning (fewer than half shared) and one counting
        line for the 18 extra cells instead of 18 lines; the Markdown lists them."""
        proc = self.ci("--update-baseline", "-w", "churn", seed=1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        md = os.path.join(self.tmp.name, "ci.md")
        proc = self.ci("-w", "churn,batch,x,y", "--markdown", md, seed=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stderr, r"warning: only \d+ cells are shared")
        self.assertNotIn("extra cell:", proc.stdout)
        self.assertIn("18 extra cells", proc.stdout)
        with open(md) as fh:
            self.assertEqual(fh.read().count("x/"), 6)

    def test_persistent_regression_is_confirmed(self):
        """A cell 15% slower in every batch: re-run, confirmed, exit 1."""
        self.make_baseline()
        proc = self.ci(slow="churn/mimalloc=1.15", seed=3)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        bad = [r for r in self.rows() if r["verdict"] == "REGRESSION"]
        self.assertEqual({(r["workload"], r["allocator"], r["metric"]) for r in bad}, {("churn", "mimalloc", "wall_s")})
        self.assertTrue(all(r["note"].startswith("confirmed") for r in bad))
        self.assertTrue(os.path.isdir(os.path.join(self.out, "confirm-1")))

    def test_flaky_regression_is_not_confirmed(self):
        """A cell slow only in batch 1: a suspect, re-run, not confirmed, exit 0."""
        self.make_baseline()
        proc = self.ci(slow="batch/jemalloc=1.2", flaky=1, seed=4)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        notes = [r["note"] for r in self.rows() if r["workload"] == "batch" and r["allocator"] == "jemalloc"
                 and r["metric"] == "wall_s"]
        self.assertTrue(notes and all(n.startswith("not confirmed") for n in notes), notes)

    def test_slower_machine_is_not_a_regression(self):
        """Every allocator 40% slower (a slower CI machine): relative by default, exit 0;
        --absolute across hosts is refused with exit 2."""
        self.make_baseline()
        proc = self.ci(machine=1.4, host="slow-host", seed=5)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.ci("--absolute", machine=1.4, host="slow-host").returncode, 2)

    def test_absolute_across_testbeds_is_refused(self):
        """A baseline made on another testbed (same host name, another kernel: a baseline
        measured elsewhere confirmed a false minflt regression): --absolute is refused for every metric,
        memory counts included (exit 2, one line naming the fact that differs); relative still gates."""
        proc = self.ci("--update-baseline", host="runner", kernel="6.1.0-9", seed=1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.ci("--absolute", "--metrics", "maxrss_kb", host="runner", kernel="6.1.0-13", seed=2)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("kernel '6.1.0-9' vs '6.1.0-13'", proc.stderr)
        self.assertIn("memory counts included", proc.stderr)
        proc = self.ci("--metrics", "maxrss_kb", host="runner", kernel="6.1.0-13", seed=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = self.ci("--absolute", "--metrics", "maxrss_kb", host="runner", kernel="6.1.0-9", seed=3)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_absolute_across_priorities_is_refused(self):
        """A baseline measured at the default priority and a run at --priority rt (SCHED_FIFO: not
        preempted by the load, its times another machine's): --absolute is refused like another
        kernel (exit 2, its last line naming priority); at the baseline's priority it gates."""
        proc = self.ci("--update-baseline", host="runner", seed=1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.ci("--absolute", "--priority", "rt", host="runner", seed=2)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("priority 'normal' vs 'rt'", proc.stderr.strip().splitlines()[-1])
        self.assertNotIn("Traceback", proc.stderr)
        proc = self.ci("--absolute", "--priority", "normal", host="runner", seed=3)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_confirm_reps_can_reach_alpha(self):
        """Batch 2 gets the fewest reps (>= batch 1's) with which Holm over m suspects can reach alpha."""
        for m in (1, 3, 4, 10, 40):
            for n_base in (3, 5, 8):
                suspects = [{"metric": "wall_s", "n_base": n_base}] * m
                n = ci.ci_confirm_reps(suspects, 5, 0.05)
                if n < ci.MAX_CONFIRM_REPS:
                    self.assertLessEqual(stats.stats_min_p(n_base, n), 0.05 / m, (m, n_base, n))
                if n > 5:
                    self.assertGreater(stats.stats_min_p(n_base, n - 1), 0.05 / m, (m, n_base, n))

    def test_too_few_reps_is_refused_before_measuring(self):
        """-n 2 against a 5-rep baseline cannot decide anything (it printed PASS with every
        comparison UNDECIDED): exit 2 before any run, one line naming the reps needed (-n 4)."""
        self.make_baseline()
        shutil.rmtree(self.out)
        proc = self.ci("--absolute", "-n", "2", host="base-host", seed=2)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("-n 4 or more", proc.stderr)
        self.assertNotIn("PASS", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "batch1")))

    def test_allow_unknown_passes_an_undecided_gate_and_says_so(self):
        """--allow-unknown with -n 2: every comparison UNDECIDED, exit 0, and the PASS line counts them."""
        self.make_baseline()
        proc = self.ci("--absolute", "-n", "2", "--allow-unknown", host="base-host", seed=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual({r["verdict"] for r in self.rows()}, {"UNDECIDED"})
        self.assertRegex(proc.stderr, r"ci: PASS: .*\((\d+) of \1 comparisons UNDECIDED, allowed by --allow-unknown\)")

    def test_outcome_of_a_gate(self):
        """gate.outcome: a REGRESSION fails (1); an UNDECIDED row without --allow-unknown leaves the gate
        UNDECIDED (3) naming the reps it needs, the widest interval and the reasons of rows without
        data; with it, a PASS (0)."""
        def row(verdict, needed=0, note="", half=float("nan")):
            return {"verdict": verdict, "needed_reps": needed, "note": note, "ci_low": -half, "ci_high": half}
        cases = (([row("SAME"), row("REGRESSION"), row("UNDECIDED", 6)], False, 1, "FAIL"),
                 ([row("SAME"), row("UNDECIDED", 6), row("UNDECIDED", 7, half=0.123),
                   row("UNDECIDED", 0, "BASE: no ok run")],
                  False, 3, "UNDECIDED: 3 of 4 comparisons are UNDECIDED"),
                 ([row("SAME"), row("UNDECIDED", 6)], True, 0, "PASS"),
                 ([row("SAME"), row("IMPROVEMENT")], False, 0, "PASS: 0 confirmed"))
        for rows, allow, status, text in cases:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(gate.outcome({"rows": rows}, allow, "DIR"), status, rows)
            self.assertIn(text, err.getvalue())
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            gate.outcome({"rows": cases[1][0]}, False, "DIR")
        self.assertIn("the widest interval of a change is +-12.3%; run with -n 7 or more; BASE: no ok run", err.getvalue())

    def test_missing_baseline_exits_2(self):
        """No baseline directory: exit 2 with one line saying so."""
        proc = self.ci()
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)


if __name__ == "__main__":
    unittest.main()
