"""test_replay.py - compare on replays (trace:FILE cells): judged by the replay, not the process,
and --fidelity, a program's run beside its replay's.

Always holds: each test writes its own results directories (runs.csv and phases.csv, fixture.py)
into a fresh temporary directory and runs compare as the CLI does; the expected verdicts follow
from the figures written here (a replay's time = replay - self, its memory = peak - load).
"""
import csv
import os
import random
import subprocess
import tempfile
import unittest

import fixture

COMPARE = ["/usr/bin/python3", "-m", "heapbench.compare"]
TRACE = "trace:/t/sq.hbt"
ALLOCATORS = ("glibc", "jemalloc", "mimalloc")


def replay_dir(directory, replay_s, heap_kb, seed, load_s=1.5, load_kb=400000, reps=6):
    """A results directory of TRACE under ALLOCATORS: per allocator its replay less self (s) and heap (KiB),
    each rep within 1%; the process's wall time is dominated by loading the trace (load_s, +-3%) and its
    peak RSS by the replayer's baseline (load_kb): the process figures hide the replay's."""
    rng = random.Random(seed)
    cells, phases = {}, {}
    for alloc in ALLOCATORS:
        reps_ = [(replay_s[alloc] * rng.uniform(0.99, 1.01), heap_kb[alloc] * rng.uniform(0.99, 1.01),
                  load_s * rng.uniform(0.97, 1.03)) for _ in range(reps)]
        key = (TRACE, alloc, 1, "", "")
        phases[alloc] = reps_
        cells[key] = {"wall_s": [load + 0.2 + r for r, _, load in reps_],
                      "maxrss_kb": [load_kb + h for _, h, _ in reps_]}
    rows = fixture.fixture_write(directory, cells)

    def phases_of(row):
        replay, _, load = phases[row["allocator"]][row["rep"] - 1]
        return [("load", load, 0, 0, load_kb), ("self", 0.2, 0, 0, load_kb + 10),
                ("replay", replay + 0.2, 1000000, 0, load_kb + 100), ("ideal", 0.1, 0, 5 << 20, load_kb + 100)]
    fixture.fixture_phases(directory, rows, phases_of)
    return rows


def verdict_rows(directory):
    """{(allocator, metric): (verdict, base_median)} of DIR/compare.csv."""
    with open(os.path.join(directory, "compare.csv"), newline="") as fh:
        return {(r["allocator"], r["metric"]): (r["verdict"], float(r["base_median"])) for r in csv.DictReader(fh)}


class ReplayCompareTest(unittest.TestCase):
    """compare and compare --fidelity on replay cells."""

    def setUp(self):
        """A fresh temporary directory per test (removed afterwards)."""
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = lambda name: os.path.join(self.tmp.name, name)

    def tearDown(self):
        """Removes the temporary directory."""
        self.tmp.cleanup()

    def run_compare(self, *args):
        """compare with args; the CompletedProcess (text)."""
        return subprocess.run(COMPARE + list(args), capture_output=True, text=True)

    def test_replay_slowdown_seen_through_the_load(self):
        """jemalloc's replay 30% slower and its heap 40% larger, hidden in the process's wall time and peak RSS
        by the trace's loading and the replayer's baseline: REGRESSION on replay_s and heap_kb, judged on the
        replay's own figures; the other allocators SAME."""
        fast = {"glibc": 0.10, "jemalloc": 0.10, "mimalloc": 0.12}
        heap = {"glibc": 20000, "jemalloc": 20000, "mimalloc": 24000}
        replay_dir(self.dir("base"), fast, heap, seed=1)
        replay_dir(self.dir("new"), dict(fast, jemalloc=0.13), dict(heap, jemalloc=28000), seed=2)
        proc = self.run_compare(self.dir("base"), self.dir("new"), "--metrics", "wall_s,maxrss_kb")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        got = verdict_rows(self.dir("new"))
        self.assertEqual(got[("jemalloc", "replay_s")][0], "REGRESSION", got)
        self.assertEqual(got[("jemalloc", "heap_kb")][0], "REGRESSION", got)
        self.assertEqual({got[(a, m)][0] for a in ("glibc", "mimalloc") for m in ("replay_s", "heap_kb")}, {"SAME"})
        self.assertAlmostEqual(got[("glibc", "replay_s")][1], 0.10, delta=0.002)
        self.assertAlmostEqual(got[("glibc", "heap_kb")][1], 20000, delta=250)

    def test_fidelity_orders_match(self):
        """A program (exec -w prog:sq) and its replay ordering the allocators alike on memory and time: exit 0,
        every resolved pair ordered the same; a replay that swaps glibc and mimalloc's heaps: exit 1."""
        prog = {(w, a, 1, "", ""): {"wall_s": [t * (1 + 0.005 * i) for i in range(5)],
                                    "maxrss_kb": [m + 50 * i for i in range(5)]}
                for w in ("prog:sq",)
                for a, t, m in (("glibc", 1.0, 40000), ("jemalloc", 0.8, 45000), ("mimalloc", 0.9, 50000))}
        fixture.fixture_write(self.dir("prog"), prog)
        replay_dir(self.dir("replay"), {"glibc": 0.3, "jemalloc": 0.1, "mimalloc": 0.2},
                   {"glibc": 30000, "jemalloc": 35000, "mimalloc": 40000}, seed=3)
        proc = self.run_compare("--fidelity", self.dir("prog"), self.dir("replay"))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("sq: the program against its replay", proc.stdout)
        self.assertIn("replay peak RSS (MiB) against program peak RSS (MiB): same rank 3 of 3; pairs ordered the same "
                      "3 of 3; of the 3 pairs resolved in the program, 3 ordered the same", proc.stdout)
        self.assertIn("replay time less self (s) against program wall (s): same rank 3 of 3", proc.stdout)
        replay_dir(self.dir("swapped"), {"glibc": 0.3, "jemalloc": 0.1, "mimalloc": 0.2},
                   {"glibc": 40000, "jemalloc": 35000, "mimalloc": 30000}, seed=4)
        proc = self.run_compare("--fidelity", self.dir("prog"), self.dir("swapped"))
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("of the 3 pairs resolved in the program, 0 ordered the same", proc.stdout)

    def test_fidelity_compares_peak_with_peak(self):
        """The allocators' start-up memory (here tcmalloc's 6.7 MB) is in the program's peak RSS and in the
        replay's `load` RSS, so the replay's heap (peak - load) orders tcmalloc first where the program's peak
        puts it last; compared peak (the `peak` phase) against peak, every resolved pair agrees: exit 0, and the
        output says which figures it compared. With the replay's peaks swapped: exit 1."""
        start = {"glibc": 2000, "jemalloc": 2500, "tcmalloc": 8700}
        heap = {"glibc": 7000, "jemalloc": 8400, "tcmalloc": 5200}
        prog = {("prog:sq", a, 1, "", ""): {"wall_s": [1.0 + 0.01 * i for i in range(5)],
                                            "maxrss_kb": [start[a] + heap[a] + 1000 + 40 * i for i in range(5)]}
                for a in start}
        fixture.fixture_write(self.dir("prog"), prog)

        def replay(name, peak_of):
            cells = {(TRACE, a, 1, "", ""): {"wall_s": [2.0] * 5, "maxrss_kb": [999999] * 5} for a in start}
            rows = fixture.fixture_write(self.dir(name), cells)
            load = {a: 400000 + start[a] for a in start}
            fixture.fixture_phases(self.dir(name), rows, lambda row: [
                ("load", 1.0, 0, 0, load[row["allocator"]]), ("self", 0.2, 0, 0, load[row["allocator"]] + 4),
                ("replay", 0.5, 1000, 0, 0), ("peak", 0.5, 0, 0, load[row["allocator"]] + peak_of(row)),
                ("ideal", 0.1, 0, 5 << 20, 0)])

        replay("replay", lambda row: heap[row["allocator"]] + 10 * row["rep"])
        proc = self.run_compare("--fidelity", self.dir("prog"), self.dir("replay"))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("memory: peak against peak", proc.stdout)
        self.assertIn("only pairs the program resolves are judged", proc.stdout)
        self.assertIn("replay peak RSS (MiB) against program peak RSS (MiB): same rank 3 of 3; pairs ordered the same "
                      "3 of 3; of the 3 pairs resolved in the program, 3 ordered the same", proc.stdout)
        replay("swapped", lambda row: {"glibc": 9000, "jemalloc": 8400, "tcmalloc": 0}[row["allocator"]])
        proc = self.run_compare("--fidelity", self.dir("prog"), self.dir("swapped"))
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)

    def test_fidelity_without_a_match_exits_2(self):
        """A program whose name no trace has: one line naming both sides, exit 2."""
        fixture.fixture_write(self.dir("prog"), {("prog:other", "glibc", 1, "", ""): {"wall_s": [1, 1],
                                                                                     "maxrss_kb": [9, 9]}})
        replay_dir(self.dir("replay"), {a: 0.1 for a in ALLOCATORS}, {a: 100 for a in ALLOCATORS}, seed=5)
        proc = self.run_compare("--fidelity", self.dir("prog"), self.dir("replay"))
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("other", proc.stderr)
        self.assertIn("sq", proc.stderr)


if __name__ == "__main__":
    unittest.main()
