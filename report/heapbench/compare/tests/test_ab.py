"""test_ab.py - the A/B gate `heapbench ci --ab`: its paired statistics, its usage errors, and real interleaved runs.

Always holds: the statistics are checked on seeded synthetic pairs; the end-to-end tests run the
real runner (`heapbench exec`) on /usr/bin/python3 one-liners whose peak RSS and page faults differ
by design (load-independent, so the tests hold on a loaded machine), in a temporary directory
(skipped, not passed, when build/heapbench is not built).
"""
import csv
import json
import os
import random
import subprocess
import tempfile
import unittest

from heapbench import cli
from heapbench.compare import paired

ROOT = cli.ROOT
HB = os.path.join(ROOT, "build", "heapbench")
PY = "/usr/bin/python3"
WITHOUT_VALGRIND = os.path.join(ROOT, "scripts", "without-valgrind")  # runs a command as if valgrind were not installed


def gate(*args):
    """Runs `heapbench ci` with args; returns the process."""
    return subprocess.run([HB, "ci"] + list(args), capture_output=True, text=True)


class PairedTest(unittest.TestCase):
    """heapbench.compare.paired on synthetic pairs."""

    def test_smallest_p_and_pairs_needed(self):
        """2/2^n is the exact signed-rank test's floor: reached when every pair moves one way."""
        for n in (4, 6, 8, 10):
            base = [1.0 + i / 100 for i in range(n)]
            head = [b * 1.1 for b in base]
            self.assertAlmostEqual(paired.p_value(base, head), paired.min_p(n))
        self.assertEqual(paired.needed_pairs(0.05), 6)
        self.assertEqual(paired.needed_pairs(0.05, 4), 8)
        self.assertGreater(paired.min_p(paired.needed_pairs(0.05, 4) - 1), 0.05 / 4)

    def test_equal_pairs_give_p_1_and_no_change(self):
        """Identical values on both sides (a deterministic count): p 1, change 0."""
        figures = paired.cell([100.0] * 8, [100.0] * 8)
        self.assertEqual(figures["p"], 1.0)
        self.assertEqual(figures["change"], 0.0)

    def test_drift_cancels_in_pairs(self):
        """A machine that drifts by +-30% between rounds and a head 10% slower within each round: the
        paired change is found (+10%, significant); unpaired medians would mostly see the drift."""
        rng = random.Random(3)
        drift = [rng.uniform(0.7, 1.3) for _ in range(10)]
        base = [d * rng.gauss(1.0, 0.01) for d in drift]
        head = [d * 1.1 * rng.gauss(1.0, 0.01) for d in drift]
        figures = paired.cell(base, head)
        self.assertLess(figures["p"], 0.01)
        self.assertAlmostEqual(figures["change"], 0.10, delta=0.02)
        self.assertLess(figures["ci_low"], figures["change"])
        self.assertGreater(figures["ci_high"], figures["change"])
        verdict, needed = paired.verdict(figures, figures["p"], 0.05, 0.05)
        self.assertEqual((verdict, needed), ("REGRESSION", 0))

    def test_false_alarms_under_the_null(self):
        """No change, 200 seeds of 8 pairs: REGRESSION or IMPROVEMENT (threshold 0) at most as often
        as the binomial tail allows at alpha 0.05 (<= 18 of 200)."""
        alarms = 0
        for seed in range(200):
            rng = random.Random(seed)
            base = [rng.gauss(1, 0.05) for _ in range(8)]
            head = [rng.gauss(1, 0.05) for _ in range(8)]
            alarms += paired.cell(base, head)["p"] <= 0.05
        self.assertLessEqual(alarms, 18)


@unittest.skipUnless(os.access(HB, os.X_OK), "build/heapbench is not built")
class AbGateTest(unittest.TestCase):
    """`heapbench ci --ab` end to end on real runs."""

    def setUp(self):
        """A temporary output directory."""
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "ab")

    def tearDown(self):
        """Removes it."""
        self.tmp.cleanup()

    def rows(self):
        """compare.csv of the gate as dicts."""
        with open(os.path.join(self.out, "compare.csv"), newline="") as fh:
            return list(csv.DictReader(fh))

    def test_same_program_passes_and_rounds_alternate(self):
        """The same command on both sides: exit 0, every row SAME; the 6 rounds ran in one runner
        (one runner start, not 12), whose runs.csv (rows in the order they ran) shows the sides
        alternating which goes first, round by round."""
        proc = gate("--ab", "--base", f"{PY} -c pass", "-n", "6", "--metrics", "maxrss_kb,minflt",
                    "-o", self.out, "--", PY, "-c", "pass")
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        self.assertEqual({r["verdict"] for r in self.rows()}, {"SAME"})
        self.assertIn("ci --ab: PASS", proc.stderr)
        starts = [line for line in proc.stderr.splitlines() if line.startswith("ci: ") and " exec " in line]
        self.assertEqual(len(starts), 1, proc.stderr[-2000:])
        self.assertIn(" exec -w base,head --alternate -n 6 ", starts[0])
        with open(os.path.join(self.out, "rounds", "rounds-001-006", "runs.csv"), newline="") as fh:
            ran = [(int(r["rep"]), r["workload"]) for r in csv.DictReader(fh)]
        self.assertEqual(sorted(ran), [(k, side) for k in range(1, 7) for side in ("base", "head")])
        firsts = [side for k, side in ran[::2]]
        self.assertEqual([k for k, _ in ran[::2]], list(range(1, 7)))
        self.assertEqual(firsts, ["head", "base"] * 3)

    @unittest.skipUnless(os.geteuid() == 0, "--priority rt needs root here")
    def test_priority_reaches_every_round(self):
        """--priority rt: the rounds' runner ran at rt (its meta.json says so) and the gate passes."""
        proc = gate("--ab", "--base", f"{PY} -c pass", "-n", "6", "--metrics", "maxrss_kb", "--priority", "rt",
                    "-o", self.out, "--", PY, "-c", "pass")
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        with open(os.path.join(self.out, "rounds", "rounds-001-006", "meta.json")) as fh:
            self.assertEqual(json.load(fh)["priority"], "rt")

    def test_priority_not_permitted_is_one_line_before_measuring(self):
        """--priority rt and nice without CAP_SYS_NICE (setpriv drops it, prlimit zeroes RLIMIT_RTPRIO
        and RLIMIT_NICE): one line saying what to do, exit 2, nothing measured."""
        for level in ("rt", "nice"):
            out = os.path.join(self.tmp.name, f"refused-{level}")
            proc = subprocess.run(["prlimit", "--rtprio=0", "--nice=0", "setpriv", "--bounding-set=-sys_nice",
                                   "--inh-caps=-sys_nice", HB, "ci", "--ab", "--base", f"{PY} -c pass", "-n", "6",
                                   "--priority", level, "-o", out, "--", PY, "-c", "pass"],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2, proc.stderr[-2000:])
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
            self.assertIn(f"--priority {level} is not permitted here", proc.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "rounds")))

    def test_count_without_valgrind_is_one_line_before_measuring(self):
        """--count-instructions where valgrind is not installed (scripts/without-valgrind hides the
        one the runner runs): in each gate mode one line saying to install it with make deps, exit 2,
        nothing measured."""
        modes = (("--ab", "--base", f"{PY} -c pass", "-n", "6", "--", PY, "-c", "pass"),
                 ("-w", "thread-churn", "--baseline", self.tmp.name),
                 ("-w", "thread-churn", "--history", os.path.join(self.tmp.name, "h.sqlite")))
        for args in modes:
            proc = subprocess.run([WITHOUT_VALGRIND, HB, "ci", "--count-instructions", "-o", self.out, *args],
                                  capture_output=True, text=True)
            if proc.returncode == 77:
                self.skipTest(proc.stderr.strip())
            self.assertEqual(proc.returncode, 2, (args, proc.stderr[-2000:]))
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, (args, proc.stderr))
            self.assertRegex(proc.stderr, r"--count-instructions needs valgrind .*make deps", args)
            self.assertFalse(os.path.exists(self.out), args)

    def test_noisy_time_is_traded_for_counts_without_metrics(self):
        """Without --metrics, a program whose wall time jumps from rep to rep (a 10 ms or a 300 ms
        sleep, by its pid): wall_s spreads far above half its threshold, so the gate says so in one
        line and judges the counts (minflt among them) instead of wall_s."""
        noisy = "import os, time; time.sleep(0.3 if os.getpid() % 2 else 0.01)"
        proc = gate("--ab", "--base", f"{PY} -c '{noisy}'", "-n", "8", "-o", self.out, "--", PY, "-c", noisy)
        self.assertIn(proc.returncode, (0, 1, 3), proc.stderr[-2000:])
        self.assertRegex(proc.stderr, r"ci --ab: wall_s spreads [0-9.]+% from rep to rep .*gating on the counts")
        judged = {r["metric"] for r in self.rows()}
        self.assertNotIn("wall_s", judged)
        self.assertIn("minflt", judged)
        self.assertIn("maxrss_kb", judged)

    def test_a_command_with_the_separator_word_runs_a_runner_per_side(self):
        """A command holding the runner's ':::' word cannot share a runner: each side of each round
        runs in its own (round-NNN-base, round-NNN-head), and the gate still pairs them."""
        proc = gate("--ab", "--base", f"{PY} -c pass :::", "-n", "6", "--metrics", "maxrss_kb",
                    "-o", self.out, "--", PY, "-c", "pass", ":::")
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "rounds")))[:2], ["round-001-base", "round-001-head"])
        self.assertEqual(self.rows()[0]["n_base"], "6")

    def test_bigger_head_is_a_confirmed_regression(self):
        """The head allocates 40 MB more (peak RSS and page faults up, whatever the load): screened,
        re-run in fresh rounds, confirmed: exit 1, REGRESSION on maxrss_kb with a note."""
        proc = gate("--ab", "--base", f"{PY} -c pass", "-n", "6", "--metrics", "maxrss_kb",
                    "-o", self.out, "--", PY, "-c", "x = bytearray(40 << 20); x[::4096] = b'1' * len(x[::4096])")
        self.assertEqual(proc.returncode, 1, proc.stderr[-2000:])
        bad = [r for r in self.rows() if r["verdict"] == "REGRESSION"]
        self.assertEqual(len(bad), 1, self.rows())
        self.assertTrue(bad[0]["note"].startswith("confirmed on re-run"), bad[0])
        self.assertGreater(float(bad[0]["change"]), 1.0)
        self.assertTrue(os.path.isdir(os.path.join(self.out, "confirm")))

    def test_failing_head_says_why_not_nan(self):
        """A head whose every run fails: a confirmed REGRESSION whose note says how the head's runs
        ended, never a change of 'nan%'."""
        proc = gate("--ab", "--base", f"{PY} -c pass", "-n", "6", "--metrics", "maxrss_kb",
                    "-o", self.out, "--", PY, "-c", "raise SystemExit(3)")
        self.assertEqual(proc.returncode, 1, proc.stderr[-2000:])
        bad = [r for r in self.rows() if r["verdict"] == "REGRESSION"]
        self.assertEqual(len(bad), 1, self.rows())
        self.assertNotIn("nan", bad[0]["note"])
        self.assertIn("every run ended failed", bad[0]["note"])
        self.assertNotIn("nan%", proc.stdout + proc.stderr)

    def test_usage_errors(self):
        """Each is one line and exit 2, before anything runs."""
        for args in (("--base", "true", "--", "true"),                    # no --ab
                     ("--ab", "--", "true"),                              # no --base
                     ("--ab", "--base", "true"),                          # no head
                     ("--ab", "--base", "prog:sqlite3", "--", "true"),    # one of each
                     ("--ab", "--base", "'unclosed", "--", "true"),       # bad quoting
                     ("--ab", "--base", "true", "-n", "4", "--", "true"),  # 4 pairs cannot reach 0.05
                     ("--ab", "--base", "true", "--metrics", "p99", "--", "true")):
            proc = gate("-o", self.out, *args)
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, (args, proc.stderr))
            self.assertFalse(os.path.exists(self.out), args)


if __name__ == "__main__":
    unittest.main()
