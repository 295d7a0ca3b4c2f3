"""test_adaptive.py - the adaptive A/B gate (`ci --ab --budget`) and duet rounds (`ci --ab --duet`): the sequential rule, its budget, its false alarms, and real runs.

Always holds: the rule is checked on seeded synthetic rounds (the loop of adaptive.py fed by a
fake measure, judged by the real ab.judge); the end-to-end tests run the real runner on
/usr/bin/python3 one-liners whose peak RSS differs by design (load-independent), in a temporary
directory (skipped, not passed, when build/heapbench is not built; the duet test also on one CPU).
"""
import contextlib
import csv
import io
import math
import os
import random
import subprocess
import tempfile
import time
import unittest

from heapbench import cli, stats
from heapbench.compare import ab
from heapbench.compare import adaptive
from heapbench.compare import paired
from heapbench.compare import sequential

HB = os.path.join(cli.ROOT, "build", "heapbench")
PY = "/usr/bin/python3"
PAIR = (ab.Side("base", None, ["b"]), ab.Side("head", None, ["h"]))


def gate(*args, taskset=None):
    """Runs `heapbench ci` with args (under taskset -c CPUS when given); returns the process."""
    prefix = ["taskset", "-c", taskset] if taskset else []
    return subprocess.run(prefix + [HB, "ci"] + list(args), capture_output=True, text=True)


def fake(rng, change, noise, calls):
    """A measure() of synthetic rounds: wall_s drifts by +-30% between rounds, the head is
    (1 + change) times the base, each run with noise (a relative sd); calls records each call."""
    def measure(start, count, allocators, deadline=None):
        calls.append((start, count, tuple(allocators)))
        rows = []
        for k in range(start, start + count):
            drift = rng.uniform(0.7, 1.3)
            for allocator in allocators:
                for side, factor in (("base", 1.0), ("head", 1.0 + change)):
                    rows.append({"allocator": allocator, "threads": 1, "env": "", "status": "ok", "host": "h",
                                 "wall_s": drift * factor * math.exp(rng.gauss(0, noise)), "round": k, "side": side})
        return rows
    return measure


def settings(alpha=0.05, threshold=0.02):
    """The settings of a gate on wall_s."""
    return {"alpha": alpha, "metrics": ["wall_s"], "thresholds": {"wall_s": threshold}, "higher": set(), "seed": 0}


def decide(change, noise, budget="400", seed=0, allocators=("glibc",)):
    """Runs the rule on synthetic rounds; returns (result, calls)."""
    spend = sequential.parse_budget(budget)
    first = sequential.first_look(0.05, len(allocators), paired.min_p)
    calls = []
    with contextlib.redirect_stderr(io.StringIO()):
        result = adaptive.rounds_until_decided(fake(random.Random(seed), change, noise, calls), PAIR, settings(),
                                               spend, first, list(allocators))
    return result, calls


class SequentialTest(unittest.TestCase):
    """heapbench.compare.sequential: budgets, looks, their alpha."""

    def test_budgets_parse_or_say_what_to_give(self):
        """Runs, seconds and minutes parse; 0, negative, NaN, infinite, fractions of a run, words are refused."""
        self.assertEqual(sequential.parse_budget("400").runs, 400)
        self.assertEqual(sequential.parse_budget("60s").seconds, 60)
        self.assertEqual(sequential.parse_budget("2m").seconds, 120)
        for text in ("0", "0s", "-5", "nan", "NaN", "inf", "1.5", "ten", ""):
            with self.assertRaises(ValueError, msg=text) as err:
                sequential.parse_budget(text)
            self.assertIn("--budget 400", str(err.exception))

    def test_looks_spend_alpha_and_grow(self):
        """The looks' alphas sum to alpha and grow; the schedule rises from the first look to the last round."""
        alphas = sequential.look_alphas(0.05)
        self.assertAlmostEqual(sum(alphas), 0.05)
        self.assertEqual(alphas, sorted(alphas))
        first = sequential.first_look(0.05, 1, paired.min_p)
        self.assertLessEqual(paired.min_p(first), alphas[0])
        self.assertGreater(paired.min_p(first - 1), alphas[0])
        steps = sequential.schedule(first, 150)
        self.assertEqual((steps[0], steps[-1], len(steps)), (first, 150, sequential.LOOKS))
        self.assertEqual(steps, sorted(set(steps)))
        self.assertEqual(sequential.schedule(first, first + 1), [first, first + 1])
        self.assertEqual(sequential.schedule(first, first - 1), [])

    def test_too_small_a_budget_is_refused(self):
        """A runs budget below the first look's runs, or a seconds budget below their floor, raises."""
        with self.assertRaises(ValueError):
            sequential.check(sequential.parse_budget("17"), 9, 2)
        sequential.check(sequential.parse_budget("18"), 9, 2)
        with self.assertRaises(ValueError):
            sequential.check(sequential.parse_budget("0.5s"), 9, 2)


class RuleTest(unittest.TestCase):
    """adaptive.rounds_until_decided on synthetic rounds."""

    def test_clear_change_is_decided_at_the_first_look(self):
        """A head 20% slower with 2% noise: REGRESSION at look 1, after the first look's rounds, noted."""
        result, calls = decide(0.20, 0.02)
        row = result["rows"][0]
        self.assertEqual(row["verdict"], stats.REGRESSION)
        self.assertEqual(len(calls), 1)
        self.assertIn(f"decided at look 1 of {sequential.LOOKS}, after {calls[0][1]} rounds", row["note"])

    def test_noisy_change_takes_more_looks_within_the_budget(self):
        """A 5% slowdown under 10% noise per run: not decided at the first look, decided later, and never
        more rounds than the budget pays for (400 runs: 200 rounds of 2)."""
        result, calls = decide(0.05, 0.10, budget="400", seed=1)
        rounds = sum(count for _, count, _ in calls)
        self.assertGreater(len(calls), 1)
        self.assertLessEqual(rounds, 200)
        self.assertEqual(result["rows"][0]["verdict"], stats.REGRESSION, result["rows"][0])

    def test_budget_spent_leaves_undecided_with_a_note(self):
        """Noise far above the threshold and a small budget: the last look's row, its note saying the budget was spent."""
        result, calls = decide(0.0, 0.5, budget="40", seed=2)
        self.assertEqual(sum(count for _, count, _ in calls), 20)
        row = result["rows"][0]
        if row["verdict"] != stats.SAME or "decided" not in row["note"]:
            self.assertIn("undecided when the budget (40) was spent: 20 rounds", row["note"])
        self.assertNotEqual(row["verdict"], stats.REGRESSION)

    def test_decided_allocators_stop_running(self):
        """Two cells, one decided early: the later looks measure only the other."""
        spend = sequential.parse_budget("800")
        first = sequential.first_look(0.05, 2, paired.min_p)
        rng, calls = random.Random(5), []
        plain = fake(rng, 0.0, 0.3, calls)

        def measure(start, count, allocators, deadline=None):
            rows = plain(start, count, allocators)
            for row in rows:  # jemalloc's head is 50% slower with no noise: decided at once
                if row["allocator"] == "jemalloc":
                    row["wall_s"] = 1.5 if row["side"] == "head" else 1.0
            return rows
        with contextlib.redirect_stderr(io.StringIO()):
            result = adaptive.rounds_until_decided(measure, PAIR, settings(), spend, first, ["glibc", "jemalloc"])
        self.assertEqual(calls[0][2], ("glibc", "jemalloc"))
        self.assertTrue(all(c[2] == ("glibc",) for c in calls[1:]), calls)
        by = {r["allocator"]: r["verdict"] for r in result["rows"]}
        self.assertEqual(by["jemalloc"], stats.REGRESSION)

    def test_false_alarms_stay_at_alpha(self):
        """200 A = A gates (no change, 5% noise, threshold 0: every significant row is a false alarm),
        each allowed every look: REGRESSION or IMPROVEMENT in at most 18 (the 99.5% binomial bound of
        alpha 0.05 over 200)."""
        alarms = 0
        for seed in range(200):
            rng, calls = random.Random(seed), []
            spend = sequential.parse_budget("120")
            with contextlib.redirect_stderr(io.StringIO()):
                result = adaptive.rounds_until_decided(fake(rng, 0.0, 0.05, calls), PAIR, settings(threshold=0.0),
                                                       spend, sequential.first_look(0.05, 1, paired.min_p), ["glibc"])
            alarms += result["rows"][0]["verdict"] in (stats.REGRESSION, stats.IMPROVEMENT)
        self.assertLessEqual(alarms, 18)


class BudgetClockTest(unittest.TestCase):
    """A seconds budget is the gate's wall time from its own process's start, not from its first round."""

    def test_deadlines_count_from_the_gate_start(self):
        """A gate whose start (imports, the runner's probes) already took 30 s of a 40 s budget: no
        round is started after 40 s from that start, and the rounds it pays for are fewer."""
        deadlines, calls = [], []
        plain = fake(random.Random(3), 0.0, 0.5, calls)

        def measure(start, count, allocators, deadline=None):
            deadlines.append(deadline)
            return plain(start, count, allocators)
        started = time.monotonic() - 30
        with contextlib.redirect_stderr(io.StringIO()):
            result = adaptive.rounds_until_decided(measure, PAIR, settings(), sequential.parse_budget("40s"),
                                                   sequential.first_look(0.05, 1, paired.min_p), ["glibc"],
                                                   started=started)
        self.assertTrue(deadlines and all(d is not None and d <= started + 40 for d in deadlines), deadlines)
        self.assertIn("s since the gate started", result["rows"][0]["note"])

    def test_a_budget_spent_before_the_first_round_is_refused(self):
        """The gate's start took longer than the whole budget: ValueError saying so, nothing measured."""
        calls = []
        with self.assertRaises(ValueError) as err:
            adaptive.rounds_until_decided(fake(random.Random(0), 0.0, 0.1, calls), PAIR, settings(),
                                          sequential.parse_budget("20s"), 9, ["glibc"], started=time.monotonic() - 25)
        self.assertIn("spent before the first round", str(err.exception))
        self.assertEqual(calls, [])

    def test_process_start_is_this_process_start(self):
        """process_started() in a process that slept 1.5 s before asking: at least 1.4 s ago."""
        code = ("import time; time.sleep(1.5); from heapbench.compare import adaptive; "
                "print(time.monotonic() - adaptive.process_started())")
        out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ, PYTHONPATH=os.path.join(cli.ROOT, "report")))
        self.assertGreaterEqual(float(out.stdout), 1.4)
        self.assertLess(float(out.stdout), 600)


class RoundRepsTest(unittest.TestCase):
    """--round-reps: a side's value in a round is the median of its runs there."""

    def test_median_of_a_rounds_runs(self):
        """Three runs per side per round, one of them 5x off: the pairs are the medians, so the
        change is the head's +10% exactly, not the outliers'."""
        rows = []
        for k in range(1, 10):
            for side, value in (("base", 1.0), ("head", 1.1)):
                for v in (value, value, value * 5 if k % 2 else value / 5):
                    rows.append({"allocator": "glibc", "threads": 1, "env": "", "status": "ok", "host": "h",
                                 "wall_s": v, "round": k, "side": side})
        row = ab.judge(rows, PAIR, ["wall_s"], settings(), holm=True)["rows"][0]
        self.assertAlmostEqual(row["change"], 0.10)
        self.assertEqual(row["n_base"], 9)
        self.assertEqual(row["verdict"], stats.REGRESSION)


class NoValueTest(unittest.TestCase):
    """A metric that the runs did not measure is said so, not taken for runs that failed."""

    def test_ok_runs_without_the_metric_say_the_machine_does_not_measure_it(self):
        """Every run of both sides ended ok with no instructions value (a machine without a readable
        hardware counter): UNDECIDED, and the note says the metric is not measured here, not that
        no round had an ok run of both sides (which every round had)."""
        rows = [{"allocator": "glibc", "threads": 1, "env": "", "status": "ok", "host": "h", "wall_s": 1.0,
                 "instructions": None, "round": k, "side": side} for k in range(1, 9) for side in ("base", "head")]
        row = ab.judge(rows, PAIR, ["instructions"], settings(), holm=True)["rows"][0]
        self.assertEqual(row["verdict"], stats.UNDECIDED)
        self.assertIn("no run has a value of instructions (every run ended ok): this machine does not measure it",
                      row["note"])
        for side in ("base", "head"):  # one side's runs failed: the older note, as before
            failed = [dict(r, status="failed") if r["side"] == side else r for r in rows]
            note = ab.judge(failed, PAIR, ["instructions"], settings(), holm=True)["rows"][0]["note"]
            self.assertEqual(note, "no round with an ok run of both sides")


@unittest.skipUnless(os.access(HB, os.X_OK), "build/heapbench is not built")
class AdaptiveGateTest(unittest.TestCase):
    """`heapbench ci --ab --budget` and `--duet` end to end on real runs."""

    def setUp(self):
        """A temporary output directory."""
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "ab")

    def tearDown(self):
        """Removes it."""
        self.tmp.cleanup()

    def test_bigger_head_is_decided_at_the_first_look(self):
        """The head allocates 40 MB more: REGRESSION on maxrss_kb at look 1 (exit 1), the note says after
        how many rounds; no confirmation directory (the rule needs none)."""
        proc = gate("--ab", "--base", f"{PY} -c pass", "--budget", "200", "--metrics", "maxrss_kb", "-o", self.out,
                    "--", PY, "-c", "x = bytearray(40 << 20); x[::4096] = b'1' * len(x[::4096])")
        self.assertEqual(proc.returncode, 1, proc.stderr[-2000:])
        first = sequential.first_look(0.05, 1, paired.min_p)
        self.assertIn(f"ci --ab: look 1 of {sequential.LOOKS} after {first} rounds", proc.stderr)
        with open(os.path.join(self.out, "compare.csv"), newline="") as fh:
            rows = list(csv.DictReader(fh))
        self.assertEqual([r["verdict"] for r in rows], [stats.REGRESSION])
        self.assertIn(f"decided at look 1 of {sequential.LOOKS}, after {first} rounds", rows[0]["note"])
        self.assertFalse(os.path.exists(os.path.join(self.out, "confirm")))
        self.assertEqual(os.listdir(os.path.join(self.out, "rounds")), [f"rounds-001-{first:03d}"])  # one runner

    def test_noisy_time_is_traded_for_counts_at_the_first_look(self):
        """--budget without --metrics: the metrics are chosen on the first look's rounds; a wall time
        that jumps from rep to rep (a 10 ms or a 300 ms sleep, by pid) is traded for the counts."""
        noisy = "import os, time; time.sleep(0.3 if os.getpid() % 2 else 0.01)"
        proc = gate("--ab", "--base", f"{PY} -c '{noisy}'", "--budget", "60", "-o", self.out, "--", PY, "-c", noisy)
        self.assertIn(proc.returncode, (0, 1, 3), proc.stderr[-2000:])
        self.assertRegex(proc.stderr, r"ci --ab: wall_s spreads [0-9.]+% from rep to rep .*gating on the counts")
        with open(os.path.join(self.out, "compare.csv"), newline="") as fh:
            judged = {r["metric"] for r in csv.DictReader(fh)}
        self.assertNotIn("wall_s", judged)
        self.assertIn("minflt", judged)

    @unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2, "duet needs 2 CPUs")
    def test_duet_pins_each_side_and_swaps(self):
        """--duet: every round's two runs are pinned to different CPU sets, and the sets swap sides round by round."""
        proc = gate("--ab", "--duet", "--base", f"{PY} -c pass", "-n", "6", "--metrics", "maxrss_kb", "-o", self.out,
                    "--", PY, "-c", "pass")
        self.assertIn(proc.returncode, (0, 3), proc.stderr[-2000:])
        pins = {}
        for line in proc.stderr.splitlines():
            if line.startswith("ci: ") and " exec " in line:
                name = line.split(" -o ")[1].split()[0].rsplit("/", 1)[1]  # round-001-base
                pins[name] = line.split(" --pin ")[1].split()[0]
        self.assertEqual(len(pins), 12, proc.stderr[-2000:])
        for k in range(1, 7):
            base, head = pins[f"round-{k:03d}-base"], pins[f"round-{k:03d}-head"]
            self.assertNotEqual(base, head)
            if k > 1:
                self.assertEqual(base, pins[f"round-{k - 1:03d}-head"])

    def test_usage_errors(self):
        """Each is one line and exit 2, before anything runs."""
        cases = [(("--ab", "--base", "true", "--budget", b, "--", "true"), None) for b in ("0", "nan", "NaN", "-1", "10", "x")]
        cases += [(("--budget", "60s"), None), (("--duet",), None), (("--round-reps", "3"), None),
                  (("--ab", "--round-reps", "0", "--base", "true", "--", "true"), None),
                  (("--ab", "--duet", "--pin", "0", "--base", "true", "--", "true"), None),
                  (("--ab", "--duet", "--base", "true", "--", "true"), "0")]
        for args, cpus in cases:
            proc = gate("-o", self.out, *args, taskset=cpus)
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, (args, proc.stderr))
            self.assertFalse(os.path.exists(self.out), args)


if __name__ == "__main__":
    unittest.main()
