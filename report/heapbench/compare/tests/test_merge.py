"""test_merge.py - `heapbench merge` on fixture shards (and on a real `run --shard` when the runner works).

Always holds: shards are written like the runner writes them (cells split by index % N, run
numbers of the full matrix, each shard on its own host); the merged directory must hold the
same cell set, reps, run numbers and values as the unsharded run, and bad inputs exit 2.
"""
import json
import os
import random
import subprocess
import tempfile
import unittest

import fixture
from heapbench import cli, results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = cli.ROOT
MERGE = ["-m", "heapbench.compare.merge"]  # run as build/heapbench runs it (PYTHONPATH from tests/run)
BIN = os.path.join(ROOT, "build", "heapbench")


def merge(*args):
    """Runs merge.py with args; returns the CompletedProcess."""
    return subprocess.run(["/usr/bin/python3"] + MERGE + list(args), capture_output=True, text=True)


def content(directory):
    """The runs of a results directory without run_id and host: a set of (run, cell, rep, wall_s)."""
    return {(r["run"], results.cell_key(r)[1:], r["rep"], r["wall_s"]) for r in results.load(directory)["runs"]}


class MergeTest(unittest.TestCase):
    """Merging shards into one results directory."""

    def setUp(self):
        """A fresh temporary directory, an unsharded run and its 3 shards on 3 hosts."""
        self.tmp = tempfile.TemporaryDirectory()
        rng = random.Random(9)
        self.cells = {(w, a, t, "", ""): {"wall_s": [rng.random() for _ in range(3)]}
                      for w in ("x", "y") for a in ("glibc", "jemalloc") for t in (1, 2, 4)}
        self.full = self.path("full")
        fixture.fixture_write(self.full, self.cells)
        self.shards = [self.path(f"s{i}") for i in (1, 2, 3)]
        for i, shard in enumerate(self.shards, start=1):
            fixture.fixture_write(shard, self.cells, host=f"node{i}", shard=(i, 3))

    def tearDown(self):
        """Removes the temporary directory."""
        self.tmp.cleanup()

    def path(self, name):
        """A path inside the test's temporary directory."""
        return os.path.join(self.tmp.name, name)

    def test_shards_merge_to_the_full_cell_set(self):
        """3 shards merge into the unsharded run's runs (numbers, cells, reps, values); hosts kept."""
        out = self.path("merged")
        proc = merge(*self.shards, "-o", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(content(out), content(self.full))
        data = results.load(out)
        self.assertEqual({r["host"] for r in data["runs"]}, {"node1", "node2", "node3"})
        self.assertEqual(data["meta"]["hosts"], ["node1", "node2", "node3"])
        self.assertEqual(len(data["meta"]["shards"]), 3)
        self.assertEqual({r["run_id"] for r in data["runs"]}, {"merged"})

    def test_duplicate_shard_refused(self):
        """The same shard twice (copied elsewhere) or a shard plus the full run: exit 2, nothing written."""
        copy, full2 = self.path("copy"), self.path("full2")
        fixture.fixture_write(copy, self.cells, host="node1", shard=(1, 3))
        fixture.fixture_write(full2, self.cells, host="node2")
        for dirs in ((self.shards[0], copy), (self.shards[1], full2)):
            out = self.path("dup")
            proc = merge(*dirs, "-o", out)
            self.assertEqual(proc.returncode, 2, proc.stdout)
            self.assertIn("give each shard once", proc.stderr)
            self.assertIn("duplicate (cell, rep)", proc.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "runs.csv")))

    def test_whole_runs_of_several_hosts(self):
        """The same matrix run whole on 3 hosts merges (run numbers repeat across hosts): every host
        keeps every cell and rep, run stays unique, meta.json says how runs were renumbered."""
        whole = []
        for i in (1, 2, 3):
            whole.append(self.path(f"h{i}"))
            fixture.fixture_write(whole[-1], self.cells, host=f"host{i}")
        out = self.path("hosts")
        proc = merge(*whole, "-o", out, "--expect", "1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        runs = results.load(out)["runs"]
        self.assertEqual(len({r["run"] for r in runs}), len(runs))
        full = {(results.cell_key(r)[1:], r["rep"]) for r in results.load(self.full)["runs"]}
        for host in ("host1", "host2", "host3"):
            self.assertEqual({(results.cell_key(r)[1:], r["rep"]) for r in runs if r["host"] == host}, full)
        with open(os.path.join(out, "meta.json")) as fh:
            self.assertEqual(sorted(json.load(fh)["run_offsets"]), ["host2", "host3"])

    def test_expect_missing_shard_exits_1(self):
        """--expect 3 with shard 2 absent: the merge is written, the shard named, exit 1; without
        --expect the same is a warning and exit 0."""
        dirs = [self.shards[0], self.shards[2]]
        proc = merge(*dirs, "-o", self.path("e1"), "--expect", "3")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("MISSING shard(s) 2", proc.stdout)
        proc = merge(*dirs, "-o", self.path("e2"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("warning", proc.stderr)
        self.assertEqual(merge(*self.shards, "-o", self.path("e3"), "--expect", "3").returncode, 0)

    def test_missing_cells_reported_per_host(self):
        """A shard that lost two rows (a task killed and not resumed): counted under its host, exit 1 with --expect."""
        path = os.path.join(self.shards[1], "runs.csv")
        with open(path) as fh:
            lines = fh.read().splitlines()
        with open(path, "w") as fh:
            fh.write("\n".join(lines[:-2]) + "\n")
        proc = merge(*self.shards, "-o", self.path("c1"), "--expect", "3")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("2 missing (cell, rep)", proc.stdout)
        self.assertRegex(proc.stdout, r"host node2 .*: \d+ runs, shard\(s\) 2, 2 missing")

    def test_two_cpu_models_under_one_host_refused(self):
        """Two directories of host 'node1' with different CPU models: exit 2, nothing written."""
        other = self.path("other")
        fixture.fixture_write(other, self.cells, host="node1", shard=(2, 3), cpu_model="cpu1")
        out = self.path("cpu")
        proc = merge(self.shards[0], other, "-o", out)
        self.assertEqual(proc.returncode, 2, proc.stdout)
        self.assertIn("two machines under one host name", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "runs.csv")))

    def test_mismatched_schema_refused(self):
        """A shard of another schema, or with other columns, is refused with exit 2."""
        other = self.path("other")
        fixture.fixture_write(other, self.cells, shard=(2, 3), schema=2)
        self.assertEqual(merge(self.shards[0], other, "-o", self.path("o1")).returncode, 2)
        with open(os.path.join(self.shards[1], "runs.csv")) as fh:
            lines = fh.read().splitlines()
        with open(os.path.join(self.shards[1], "runs.csv"), "w") as fh:
            fh.write("\n".join([lines[0] + ",metric_extra"] + [line + "," for line in lines[1:]]) + "\n")
        proc = merge(self.shards[0], self.shards[1], "-o", self.path("o2"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("other columns", proc.stderr)

    @unittest.skipUnless(os.access(BIN, os.X_OK), "build/heapbench is not built")
    def test_real_run_shards(self):
        """`heapbench run --shard 1/2` and `2/2` of a tiny matrix merge into the unsharded cell set."""
        base = [BIN, "run", "--quick", "-w", "thread-churn", "-a", "glibc,jemalloc", "-t", "1,2", "-n", "1",
                "--warmup", "0", "-p", "--mode=loop --ops=2000", "--interval", "0"]
        dirs = {}
        for name, extra in (("whole", []), ("r1", ["--shard", "1/2"]), ("r2", ["--shard", "2/2"])):
            dirs[name] = self.path(name)
            proc = subprocess.run(base + extra + ["-o", dirs[name]], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr[-500:])
        out = self.path("rmerged")
        self.assertEqual(merge(dirs["r1"], dirs["r2"], "-o", out).returncode, 0)

        def cells(d):
            """(run, cell key, rep) of every run of results directory d, sorted."""
            return sorted((r["run"], results.cell_key(r), r["rep"]) for r in results.load(d)["runs"])
        self.assertEqual(cells(out), cells(dirs["whole"]))
        with open(os.path.join(out, "meta.json")) as fh:
            self.assertEqual(len(json.load(fh)["shards"]), 2)

    def real_runs(self, *specs):
        """Quick runs of one host, one per (name, workload), through the CLI; their directories."""
        dirs = []
        for name, workload in specs:
            dirs.append(self.path(name))
            proc = subprocess.run([BIN, "run", "--quick", "-w", workload, "-a", "glibc", "-n", "1", "--warmup", "0",
                                   "--interval", "0", "-o", dirs[-1]], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr[-500:])
        return dirs

    @unittest.skipUnless(os.access(BIN, os.X_OK), "build/heapbench is not built")
    def test_runs_of_one_host_with_other_cells_are_renumbered(self):
        """Two whole runs of one host with other cells: their run numbers 1, 2... repeat, so the
        second input's are renumbered, and check finds the merged directory whole."""
        ra, rb = self.real_runs(("ra", "sizes"), ("rb", "calloc"))
        out = self.path("mg")
        proc = subprocess.run([BIN, "merge", "-o", out, ra, rb], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        check = subprocess.run([BIN, "check", out], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout)
        runs = [r["run"] for r in results.load(out)["runs"]]
        self.assertEqual(len(runs), len(set(runs)), runs)
        self.assertEqual(len(runs), sum(len(results.load(d)["runs"]) for d in (ra, rb)))

    @unittest.skipUnless(os.access(BIN, os.X_OK), "build/heapbench is not built")
    def test_input_with_a_cut_line_refused(self):
        """A shard whose runs.csv ends in a cut line is refused with check's word, exit 2, and
        nothing written."""
        ra, rb = self.real_runs(("sh1", "sizes"), ("shp", "calloc"))
        with open(os.path.join(rb, "runs.csv"), "rb+") as fh:
            fh.truncate(os.path.getsize(os.path.join(rb, "runs.csv")) - 40)
        out = self.path("m")
        proc = subprocess.run([BIN, "merge", "-o", out, ra, rb], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("the last line is partial", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "runs.csv")))


if __name__ == "__main__":
    unittest.main()
