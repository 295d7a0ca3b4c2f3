"""test_store.py - the history store through the CLI: idempotent and atomic add, testbeds, order, labels, bad input.

Always holds: each test works in its own temporary directory; every refusal is checked to be one
line on stderr, exit 2, and to leave the database exactly as it was (all tables dumped before
and after).
"""
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

import histfix
from histfix import cell, run_cli, write_run

KEY = ("churn", "glibc", 1, "", "")


def dump(path):
    """Every row of every history table of an SQLite file, sorted (for 'nothing was written')."""
    if not os.path.exists(path):
        return None
    conn = sqlite3.connect(path)
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall())
                for t in ("hb_schema", "testbeds", "runs", "libraries", "points")}
    finally:
        conn.close()


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-history-")
        self.db = os.path.join(self.tmp, "h.sqlite")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def runs(self, n, **kw):
        """n whole results directories r0..r(n-1) of one cell."""
        return [write_run(os.path.join(self.tmp, f"r{i}"), {KEY: cell(1.0 + i / 100)}, run_id=f"r{i}", **kw)
                for i in range(n)]

    def cli(self, *args, env=None):
        return run_cli(list(args), self.tmp, env)

    def refused(self, done, word):
        """done exited 2 with one stderr line containing word."""
        self.assertEqual(done.returncode, 2, done.stderr)
        lines = done.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertIn(word, lines[0])
        self.assertNotIn("Traceback", done.stderr)

    def test_history_bisect_names_the_command_that_bisects(self):
        """`history bisect` (a change point to its commit) is `heapbench bisect --from-history`: one line saying
        so, exit 2, whatever follows it, and nothing written."""
        for args in (["bisect"], ["bisect", "--db", self.db, "--cell", "c", "--metric", "minflt", "--", "./prog"]):
            done = self.cli(*args)
            self.refused(done, "heapbench bisect --from-history")
        self.assertFalse(os.path.exists(self.db))

    def test_add_is_idempotent_by_run_and_host(self):
        dirs = self.runs(3)
        first = self.cli("add", "--db", self.db, *dirs)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(first.stdout.count("added: run"), 3, first.stdout)
        before = dump(self.db)
        again = self.cli("add", "--db", self.db, dirs[1])
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("already in the history: run r1", again.stdout)
        self.assertEqual(dump(self.db), before)
        self.assertEqual(len(before["runs"]), 3)

    def test_a_new_run_in_a_reused_directory_name_is_added(self):
        """run -o nightly, add; the directory removed and run again into the same path, add: a second run
        (same run id, other figures); adding either again changes nothing."""
        nightly = os.path.join(self.tmp, "nightly")
        write_run(nightly, {KEY: cell(1.0)}, run_id="nightly")
        self.assertIn("added: run nightly", self.cli("add", "--db", self.db, nightly).stdout)
        shutil.rmtree(nightly)
        write_run(nightly, {KEY: cell(1.5)}, run_id="nightly")
        done = self.cli("add", "--db", self.db, nightly)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("added: run nightly", done.stdout)
        before = dump(self.db)
        self.assertEqual(len(before["runs"]), 2)
        medians = sorted(p[6] for p in before["points"] if p[4] == "wall_s")  # median of 1.0 * (1, 1.001, 1.002)
        self.assertEqual([round(m, 6) for m in medians], [1.001, 1.5015])
        done = self.cli("add", "--db", self.db, nightly)
        self.assertIn("already in the history: run nightly", done.stdout)
        self.assertEqual(dump(self.db), before)

    def test_a_schema_1_history_is_migrated(self):
        """A history written by schema 1 (runs keyed by run id and host) is migrated on open: its runs and
        points stay, its run is still known (by its start time), and a new run of the same id is added."""
        from heapbench.history import schema
        nightly = os.path.join(self.tmp, "nightly")
        write_run(nightly, {KEY: cell(1.0)}, run_id="nightly", facts=dict(histfix.FACTS, start="2026-01-01T00:00:00Z"))
        conn = sqlite3.connect(self.db)
        for statement in schema.ddl(0, "sqlite"):
            conn.execute(statement)
        conn.execute("INSERT INTO testbeds VALUES ('tb', '{}')")
        conn.execute("INSERT INTO runs VALUES (1, 'nightly', 'hostA', 'tb', 'old', 1, 'x', NULL, '2026-01-01T00:00:00Z')")
        conn.execute("INSERT INTO libraries VALUES (1, 'glibc', '/lib/x', '2.36', NULL)")
        conn.execute("INSERT INTO points VALUES (1, 'c', 'w', 'glibc', 'wall_s', '[1]', 1, 0, 1, 1)")
        conn.commit()
        conn.close()
        done = self.cli("add", "--db", self.db, nightly)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("already in the history: run nightly", done.stdout)
        after = dump(self.db)
        self.assertEqual(after["hb_schema"], [(schema.VERSION,)])
        self.assertEqual(after["runs"][0][:9], (1, 'nightly', 'hostA', 'tb', 'old', 1.0, 'x', None, '2026-01-01T00:00:00Z'))
        self.assertEqual(len(after["points"]), 1)
        shutil.rmtree(nightly)
        write_run(nightly, {KEY: cell(2.0)}, run_id="nightly")
        done = self.cli("add", "--db", self.db, nightly)
        self.assertIn("added: run nightly", done.stdout)
        conn = sqlite3.connect(self.db)
        try:
            self.assertEqual(conn.execute("PRAGMA foreign_key_check").fetchall(), [])
            self.assertEqual(conn.execute("SELECT count(*) FROM runs").fetchone()[0], 2)
        finally:
            conn.close()

    def test_the_commit_under_test_is_kept_per_point(self):
        histfix.check_commits(self, self.db, self.tmp)

    def test_a_schema_2_history_is_migrated_to_keep_commits(self):
        """A schema 2 history gains the commit column on open: its run stays, with no commit (NULL: bisect
        then reads its label), and a run added with --commit keeps it."""
        from heapbench.history import schema
        from heapbench.history.store import open_store
        conn = sqlite3.connect(self.db)
        for step in (0, 1):
            for statement in schema.ddl(step, "sqlite"):
                conn.execute(statement)
        conn.execute("UPDATE hb_schema SET version = 2")
        conn.execute("INSERT INTO testbeds VALUES ('tb', '{}')")
        conn.execute("INSERT INTO runs VALUES (1, 'old', 'hostA', 'tb', 'deadbeef', 1, 'x', NULL, 's', 'c0')")
        conn.execute("INSERT INTO points VALUES (1, 'churn/glibc/t1', 'churn', 'glibc', 'wall_s', '[1]', 1, 0, 1, 1)")
        conn.commit()
        conn.close()
        new = write_run(os.path.join(self.tmp, "new"), {KEY: cell(1.0)}, run_id="new", facts=dict(histfix.FACTS))
        done = self.cli("add", "--db", self.db, "--label", "v2", "--commit", "0123abcd", new)
        self.assertEqual(done.returncode, 0, done.stderr)
        after = dump(self.db)
        self.assertEqual(after["hb_schema"], [(schema.VERSION,)])
        self.assertEqual(after["runs"][0][:10], (1, 'old', 'hostA', 'tb', 'deadbeef', 1.0, 'x', None, 's', 'c0'))
        store = open_store(self.db, readonly=True)
        try:
            self.assertEqual([(r.label, r.tested_commit) for r in store.runs("tb")], [("deadbeef", None)])
            testbed = [t.name for t in store.testbeds() if t.name != "tb"][0]
            self.assertEqual([(r.label, r.tested_commit) for r in store.runs(testbed)], [("v2", "0123abcd")])
        finally:
            store.close()

    def test_points_are_ordered_as_added_or_by_order(self):
        dirs = self.runs(3)
        self.cli("add", "--db", self.db, "--label", "v2", "--order", "20", dirs[2])
        self.cli("add", "--db", self.db, "--label", "v0", "--order", "5", dirs[0])
        self.cli("add", "--db", self.db, "--label", "v1", dirs[1])  # after the last: 21
        from heapbench.history.store import open_store
        store = open_store(self.db)
        try:
            (tb,) = store.testbeds()
            series = store.series(tb.name, "churn/glibc/t1", "wall_s")
        finally:
            store.close()
        self.assertEqual([p.label for p in series], ["v0", "v2", "v1"])
        self.assertEqual([p.order for p in series], [5, 20, 21])
        self.assertAlmostEqual(series[0].median, 1.0 * (1 + 0.001))
        self.assertEqual(len(series[0].reps), 3)

    def test_label_given_twice_is_refused_and_nothing_written(self):
        dirs = self.runs(2)
        self.assertEqual(self.cli("add", "--db", self.db, "--label", "v1", dirs[0]).returncode, 0)
        before = dump(self.db)
        self.refused(self.cli("add", "--db", self.db, "--label", "v1", dirs[1]), "label 'v1'")
        self.assertEqual(dump(self.db), before)

    def test_default_label_is_the_commit_made_unique(self):
        dirs = self.runs(2)
        done = self.cli("add", "--db", self.db, *dirs)
        self.assertEqual(done.returncode, 0, done.stderr)
        labels = sorted(r[4] for r in dump(self.db)["runs"])
        self.assertEqual(labels, ["000000000000", "000000000000@hostA"])

    def test_cut_results_directory_is_refused_and_nothing_written(self):
        good, cut = self.runs(2)
        self.assertEqual(self.cli("add", "--db", self.db, good).returncode, 0)
        before = dump(self.db)
        path = os.path.join(cut, "runs.csv")
        with open(path, "rb") as fh:
            data = fh.read()
        with open(path, "wb") as fh:
            fh.write(data[:-25])  # the last row cut mid-line
        self.refused(self.cli("add", "--db", self.db, good, cut), "not whole")
        self.assertEqual(dump(self.db), before)

    def test_newer_schema_is_refused(self):
        (d,) = self.runs(1)
        self.assertEqual(self.cli("add", "--db", self.db, d).returncode, 0)
        conn = sqlite3.connect(self.db)
        conn.execute("UPDATE hb_schema SET version = 99")
        conn.commit()
        conn.close()
        before = dump(self.db)
        self.refused(self.cli("add", "--db", self.db, d), "newer heapbench")
        self.assertEqual(dump(self.db), before)

    def test_corrupt_sqlite_file_is_refused_untouched(self):
        (d,) = self.runs(1)
        with open(self.db, "wb") as fh:
            fh.write(b"this is not an SQLite database\n" * 200)
        with open(self.db, "rb") as fh:
            before = fh.read()
        self.refused(self.cli("add", "--db", self.db, d), "h.sqlite")
        with open(self.db, "rb") as fh:
            self.assertEqual(fh.read(), before)

    def test_unreachable_postgresql_is_one_line(self):
        (d,) = self.runs(1)
        url = f"postgresql://nobody@/history?host={self.tmp}/no-such-socket-dir"
        self.refused(self.cli("add", "--db", url, d), "postgresql://")

    def test_unwritable_outputs_are_one_line(self):
        dirs = self.runs(1)
        self.assertEqual(self.cli("add", "--db", self.db, *dirs).returncode, 0)
        self.refused(self.cli("report", "--db", self.db, "-o", "/proc/no-such-dir"), "/proc/no-such-dir")
        self.refused(self.cli("export", "--db", self.db, "--format", "csv", "-o", "/proc/no/file.csv"), "cannot write")
        self.refused(self.cli("changes", "--db", self.db, "--testbed", "nope"), "no testbed 'nope'")
        self.refused(self.cli("changes", "--db", self.db, "--since", "v9"), "--since 'v9'")

    def test_history_variable_and_default_location(self):
        (d,) = self.runs(1)
        env_db = os.path.join(self.tmp, "env.sqlite")
        self.assertEqual(self.cli("add", d, env={"HEAPBENCH_HISTORY": env_db}).returncode, 0)
        self.assertEqual(len(dump(env_db)["runs"]), 1)
        done = self.cli("add", d)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(dump(os.path.join(self.tmp, "results", "history.sqlite"))["runs"]), 1)

    def test_testbeds_split_machines_not_hosts(self):
        a = write_run(os.path.join(self.tmp, "a"), {KEY: cell(1)}, run_id="a", host="ci-1")
        b = write_run(os.path.join(self.tmp, "b"), {KEY: cell(1)}, run_id="b", host="ci-2")
        c = write_run(os.path.join(self.tmp, "c"), {KEY: cell(1)}, run_id="c", host="ci-3",
                      facts=dict(histfix.FACTS, kernel="6.2.0-other"))
        self.assertEqual(self.cli("add", "--db", self.db, a, b, c).returncode, 0)
        done = self.cli("testbeds", "--db", self.db, "--json")
        beds = json.loads(done.stdout)
        self.assertEqual(sorted(b["runs"] for b in beds), [1, 2])
        self.assertEqual({b["fields"]["kernel"] for b in beds}, {"6.1.0-test", "6.2.0-other"})

    def test_priority_splits_testbeds_and_keeps_old_names(self):
        """A run at --priority rt is another testbed; one at normal shares the testbed of a run written
        before meta.json had priority, under the name that testbed had then (the 8 machine facts' hash)."""
        old = write_run(os.path.join(self.tmp, "old"), {KEY: cell(1)}, run_id="old", host="h")
        normal = write_run(os.path.join(self.tmp, "normal"), {KEY: cell(1)}, run_id="normal", host="h",
                           facts=dict(histfix.FACTS, priority="normal"))
        rt = write_run(os.path.join(self.tmp, "rt"), {KEY: cell(0.2)}, run_id="rt", host="h",
                       facts=dict(histfix.FACTS, priority="rt"))
        self.assertEqual(self.cli("add", "--db", self.db, old, normal, rt).returncode, 0)
        beds = json.loads(self.cli("testbeds", "--db", self.db, "--json").stdout)
        self.assertEqual(sorted((b["runs"], b["fields"].get("priority", "normal")) for b in beds), [(1, "rt"), (2, "normal")])
        with open(os.path.join(old, "meta.json")) as fh:
            meta = json.load(fh)
        before = {field: meta.get(key) for key, field in (
            ("cpu_model", "cpu_model"), ("cores", "cores"), ("mem_total_kb", "mem_total_kb"), ("kernel", "kernel"),
            ("glibc_version", "glibc"), ("thp", "thp"), ("containment", "containment"), ("virtualization", "virtualization"))}
        digest = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:8]
        self.assertIn(digest, [b["name"][-8:] for b in beds if b["runs"] == 2])

    def test_merged_multi_host_directory_adds_each_host_to_its_testbed(self):
        a = write_run(os.path.join(self.tmp, "a"), {KEY: cell(1)}, run_id="a", host="h1")
        b = write_run(os.path.join(self.tmp, "b"), {KEY: cell(2)}, run_id="b", host="h2",
                      facts=dict(histfix.FACTS, cores=8))
        merged = os.path.join(self.tmp, "merged")
        done = subprocess.run([histfix.BIN, "merge", a, b, "-o", merged], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        done = self.cli("add", "--db", self.db, merged)
        self.assertEqual(done.returncode, 0, done.stderr)
        runs = dump(self.db)["runs"]
        self.assertEqual(sorted(r[2] for r in runs), ["h1", "h2"])
        self.assertEqual(len({r[3] for r in runs}), 2, runs)

    def test_concurrent_sqlite_writers_give_one_history(self):
        dirs = self.runs(12)
        env = dict(os.environ, HEAPBENCH_RESULTS=os.path.join(self.tmp, "results"))
        procs = [subprocess.Popen([histfix.BIN, "history", "add", "--db", self.db] + (dirs if k == 0 else dirs[::-1]),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for k in range(2)]
        outs = [p.communicate(timeout=600) for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0], outs)
        runs = dump(self.db)["runs"]
        self.assertEqual(sorted(r[1] for r in runs), sorted(f"r{i}" for i in range(12)))
        self.assertEqual(sum(o.count("added: run") for o, _ in outs), 12)


if __name__ == "__main__":
    unittest.main()
