"""test_postgres.py - the history in a real PostgreSQL server that this test starts and stops itself.

Always holds: the server is Debian's postgresql, initdb'd in a temporary directory owned by an
unprivileged user (nobody when the test runs as root, else the test's own user), listening only
on a Unix socket in that directory (no TCP port), and stopped by its pid at the end; when it
cannot be started the test prints SKIP with the reason, never passes silently. Two concurrent
streams of `history add` into it must give the same history as SQLite, with no duplicate run.
"""
import glob
import os
import pwd
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest

import histfix
from histfix import cell, write_run

KEY = ("churn", "glibc", 1, "", "")
QUERY = ("SELECT r.run_id, r.host, r.testbed, r.label, r.ord, p.cell, p.metric, p.reps, p.median, p.spread "
         "FROM runs r JOIN points p ON p.run = r.id ORDER BY r.run_id, p.cell, p.metric")


def _server_binaries():
    """The directory of the newest installed PostgreSQL server's initdb and postgres, or None."""
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    return next((d for d in reversed(dirs) if os.access(os.path.join(d, "postgres"), os.X_OK)), None)


class Server:
    """A PostgreSQL server in a temporary directory (start() raises unittest.SkipTest with the reason)."""

    def __init__(self, tmp, password=None):
        self.tmp, self.proc, self.password = tmp, None, password

    def _as_user(self, argv):
        """argv run as the unprivileged user (setpriv to nobody when root)."""
        if os.geteuid() != 0:
            return argv
        nobody = pwd.getpwnam("nobody")
        return ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"] + argv

    def start(self):
        bindir = _server_binaries()
        if bindir is None:
            raise unittest.SkipTest("PostgreSQL server not installed (Debian's postgresql; make deps installs it)")
        try:
            import psycopg2  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("python3-psycopg2 not installed (make deps installs it)") from None
        self.data, self.sock = os.path.join(self.tmp, "data"), os.path.join(self.tmp, "sock")
        os.makedirs(self.sock)
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chmod(self.tmp, 0o755)
            for path in (self.tmp, self.sock):
                os.chown(path, nobody.pw_uid, nobody.pw_gid)
        auth = ["--auth=trust"]
        if self.password:  # password authentication: a client must give it (URL, PGPASSWORD, .pgpass)
            pwfile = os.path.join(self.tmp, "pwfile")
            with open(pwfile, "w") as fh:
                fh.write(self.password + "\n")
            if os.geteuid() == 0:
                os.chown(pwfile, pwd.getpwnam("nobody").pw_uid, -1)
            auth = ["--auth=scram-sha-256", f"--pwfile={pwfile}"]
        init = subprocess.run(self._as_user([os.path.join(bindir, "initdb"), "-D", self.data, "-U", "hb",
                                             "--no-sync"] + auth),
                              capture_output=True, text=True, timeout=300)
        if init.returncode != 0:
            raise unittest.SkipTest(f"initdb failed: {(init.stderr or init.stdout).strip().splitlines()[-1:]}")
        self.log = open(os.path.join(self.tmp, "server.log"), "w")
        self.proc = subprocess.Popen(self._as_user([os.path.join(bindir, "postgres"), "-D", self.data, "-k", self.sock,
                                                    "-c", "listen_addresses=", "-c", "fsync=off"]),
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"postgresql://hb@/postgres?host={self.sock}"
        self._wait_ready()

    def _wait_ready(self):
        import psycopg2
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                with open(os.path.join(self.tmp, "server.log")) as fh:
                    tail = fh.read().strip().splitlines()[-1:]
                raise unittest.SkipTest(f"postgres exited {self.proc.returncode} at start: {tail}")
            try:
                psycopg2.connect(self.url, connect_timeout=2, password=self.password).close()
                return
            except psycopg2.OperationalError:
                time.sleep(0.2)
        self.stop()
        raise unittest.SkipTest("postgres did not accept connections within 60 s")

    def stop(self):
        """Fast shutdown by pid (SIGINT), then SIGKILL if it lingers."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()


class ServerCase(unittest.TestCase):
    """A test with its own server (PASSWORD: None trusts every local user, else the server asks for it)."""
    PASSWORD = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-history-pg-")
        os.chmod(self.tmp, 0o711)  # the server's user must reach its directory inside
        self.server = Server(os.path.join(self.tmp, "pg"), self.PASSWORD)
        os.makedirs(self.server.tmp)
        try:
            self.server.start()
        except unittest.SkipTest:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise

    def tearDown(self):
        self.server.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


class PostgresTest(ServerCase):
    def _dirs(self):
        return [write_run(os.path.join(self.tmp, f"r{i}"), {KEY: cell(1.0 + (i >= 6) * 0.1),
                                                            ("list", "glibc", 1, "", ""): cell(2.0)}, run_id=f"r{i}")
                for i in range(12)]

    def _stream(self, db, dirs, order):
        """A shell loop adding dirs one by one with label v<i> and order i, in the given order."""
        env = dict(os.environ, HEAPBENCH_RESULTS=os.path.join(self.tmp, "results"))
        script = "; ".join(f"{histfix.BIN} history add --db '{db}' --label v{i} --order {i} {dirs[i]} || exit 1"
                           for i in order)
        return subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def test_two_concurrent_adds_give_the_sqlite_history(self):
        dirs = self._dirs()
        procs = [self._stream(self.server.url, dirs, range(12)), self._stream(self.server.url, dirs, range(11, -1, -1))]
        outs = [p.communicate(timeout=900) for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0], [e for _, e in outs])
        self.assertEqual(sum(o.count("added: run") for o, _ in outs), 12)
        self.assertEqual(sum(o.count("already in the history") for o, _ in outs), 12)
        lite = os.path.join(self.tmp, "h.sqlite")
        serial = self._stream(lite, dirs, range(12))
        self.assertEqual(serial.wait(timeout=900), 0, serial.stderr.read())
        import psycopg2
        conn = psycopg2.connect(self.server.url)
        cur = conn.cursor()
        cur.execute(QUERY)
        pg_rows = [tuple(r) for r in cur.fetchall()]
        conn.close()
        lconn = sqlite3.connect(lite)
        lite_rows = [tuple(r) for r in lconn.execute(QUERY).fetchall()]
        lconn.close()
        self.assertEqual(len(pg_rows), 12 * 2 * 2)
        self.assertEqual(pg_rows, lite_rows)
        changes = histfix.run_cli(["changes", "--db", self.server.url, "--metric", "wall_s"], self.tmp)
        self.assertEqual(changes.returncode, 0, changes.stderr)
        self.assertEqual(changes.stdout.count("\n"), 1, changes.stdout)
        self.assertIn("churn/glibc/t1  wall_s  at v6:", changes.stdout)

    def test_a_schema_1_history_is_migrated_and_a_reused_run_id_added(self):
        """A schema 1 history (runs keyed by run id and host) is migrated on open; a new run written into
        a reused directory name is then a run of its own, and adding it again changes nothing."""
        import psycopg2
        from heapbench.history import schema
        conn = psycopg2.connect(self.server.url)
        with conn, conn.cursor() as cur:
            for statement in schema.ddl(0, "postgresql"):
                cur.execute(statement)
        conn.close()
        nightly = os.path.join(self.tmp, "nightly")
        outputs = []
        for wall in (1.0, None, 1.5, None):  # None: add the same directory again
            if wall is not None:
                shutil.rmtree(nightly, ignore_errors=True)
                write_run(nightly, {KEY: cell(wall)}, run_id="nightly")
            done = histfix.run_cli(["add", "--db", self.server.url, nightly], self.tmp)
            self.assertEqual(done.returncode, 0, done.stderr)
            outputs.append(done.stdout.split(":")[0])
        self.assertEqual(outputs, ["added", "already in the history", "added", "already in the history"])
        conn = psycopg2.connect(self.server.url)
        with conn, conn.cursor() as cur:
            cur.execute("SELECT max(version) FROM hb_schema")
            self.assertEqual(cur.fetchone()[0], schema.VERSION)
            cur.execute("SELECT count(*), count(DISTINCT content) FROM runs WHERE run_id = 'nightly'")
            self.assertEqual(cur.fetchone(), (2, 2))
        conn.close()


    def test_the_commit_under_test_is_kept_per_point(self):
        histfix.check_commits(self, self.server.url, self.tmp)

    def test_a_schema_2_history_is_migrated_to_keep_commits(self):
        """A schema 2 history gains the commit column on open: its run stays with none, a new run keeps its --commit."""
        import psycopg2
        from heapbench.history import schema
        from heapbench.history.store import open_store
        conn = psycopg2.connect(self.server.url)
        with conn, conn.cursor() as cur:
            for step in (0, 1):
                for statement in schema.ddl(step, "postgresql"):
                    cur.execute(statement)
            cur.execute("UPDATE hb_schema SET version = 2")
            cur.execute("INSERT INTO testbeds VALUES ('tb', '{}')")
            cur.execute("INSERT INTO runs (run_id, host, testbed, label, ord, added, content) "
                        "VALUES ('old', 'hostA', 'tb', 'deadbeef', 1, 'x', 'c0')")
        conn.close()
        new = write_run(os.path.join(self.tmp, "new"), {KEY: cell(1.0)}, run_id="new")
        done = histfix.run_cli(["add", "--db", self.server.url, "--label", "v2", "--commit", "0123abcd", new], self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        conn = psycopg2.connect(self.server.url)
        with conn, conn.cursor() as cur:
            cur.execute("SELECT max(version) FROM hb_schema")
            self.assertEqual(cur.fetchone()[0], schema.VERSION)
            cur.execute("SELECT label, tested_commit FROM runs ORDER BY id")
            self.assertEqual(cur.fetchall(), [("deadbeef", None), ("v2", "0123abcd")])
        conn.close()
        store = open_store(self.server.url, readonly=True)
        try:
            self.assertEqual([r.tested_commit for r in store.runs("tb")], [None])
        finally:
            store.close()


class PasswordTest(ServerCase):
    """A server that asks for a password: libpq's own sources of it work (heapbench passes none of its
    own), and no message of history or ci shows it, whatever form the URL gives it in."""
    PASSWORD = "Right0Pw5"

    def history(self, url, env=None):
        """`history testbeds --db url` with HOME a directory without .pgpass and no PG* variables but env's."""
        home = os.path.join(self.tmp, "home")
        os.makedirs(home, exist_ok=True)
        full = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        full.update(HOME=home, HEAPBENCH_RESULTS=os.path.join(self.tmp, "results"), **(env or {}))
        full.pop("HEAPBENCH_HISTORY", None)
        return subprocess.run([histfix.BIN, "history", "testbeds", "--db", url], capture_output=True, text=True,
                              env=full, timeout=600)

    def connected(self, done):
        """Did `history testbeds` reach the database? It reads an empty one without creating a schema,
        so an empty database is 'holds no heapbench history' (exit 2), a seeded one exit 0."""
        return done.returncode == 0 or "holds no heapbench history" in done.stderr

    def pgpass(self, path):
        """Writes a .pgpass at path (mode 0600, as libpq requires) holding the password for user hb."""
        with open(path, "w") as fh:
            fh.write(f"*:*:*:hb:{self.PASSWORD}\n")
        os.chmod(path, 0o600)
        return path

    def test_libpq_reads_pgpassword_and_pgpass(self):
        url = self.server.url
        done = self.history(url)
        self.assertEqual(done.returncode, 2, done.stdout)  # no password anywhere: refused by the server
        self.assertIn("password", done.stderr)
        for env in ({"PGPASSWORD": self.PASSWORD}, {"PGPASSFILE": self.pgpass(os.path.join(self.tmp, "pgpass"))}):
            done = self.history(url, env)
            self.assertTrue(self.connected(done), (env, done.stderr))
            self.assertNotIn("password", done.stderr.lower())
        self.pgpass(os.path.join(self.tmp, "home", ".pgpass"))
        done = self.history(url)
        self.assertTrue(self.connected(done), done.stderr)
        self.assertFalse(any(self.PASSWORD in d for d in (done.stdout, done.stderr)))

    def test_no_message_shows_the_password(self):
        sock = self.server.sock
        wrong = [f"postgresql://hb:Wrong1Pw7@/postgres?host={sock}", f"postgresql://hb@/postgres?host={sock}&password=Wrong1Pw7"]
        for url in wrong:
            done = self.history(url)
            self.assertEqual(done.returncode, 2, done.stdout)
            self.assertNotIn("Wrong1Pw7", done.stdout + done.stderr)
            self.assertIn("***", done.stderr)
        right = [f"postgresql://hb:{self.PASSWORD}@/postgres?host={sock}",
                 f"postgresql://hb@/postgres?host={sock}&password={self.PASSWORD}"]
        for url in right:
            self.assertTrue(self.connected(self.history(url)))
        out = os.path.join(self.tmp, "ci")
        matrix = ["-w", "thread-churn", "-a", "glibc", "-t", "1", "-p=--mode=loop --ops=2000", "-n", "2"]
        env = dict(os.environ, HEAPBENCH_RESULTS=os.path.join(self.tmp, "results"))
        gate = subprocess.run([histfix.BIN, "ci", "--history", right[1], "-o", out] + matrix, capture_output=True,
                              text=True, env=env, timeout=900)
        self.assertEqual(gate.returncode, 2, gate.stderr[-2000:])
        self.assertRegex(gate.stderr, "has no run of this machine's testbed|holds no heapbench history")
        seed = subprocess.run([histfix.BIN, "ci", "--history", right[0], "--update-baseline", "-o", out] + matrix,
                              capture_output=True, text=True, env=env, timeout=900)
        self.assertEqual(seed.returncode, 0, seed.stderr[-2000:])
        self.assertIn("ci: added", seed.stderr)
        gate = subprocess.run([histfix.BIN, "ci", "--history", right[1], "-o", out, "--allow-unknown",
                               "--markdown", os.path.join(out, "summary.md"), "--junit", os.path.join(out, "j.xml")]
                              + matrix, capture_output=True, text=True, env=env, timeout=900)
        self.assertIn("gating against", gate.stderr)
        written = []
        for base, _, files in os.walk(out):
            for name in files:
                with open(os.path.join(base, name), errors="replace") as fh:
                    written.append(fh.read())
        for text in [gate.stdout, gate.stderr, seed.stdout, seed.stderr] + written:
            self.assertNotIn(self.PASSWORD, text)

    def test_bisect_from_history_shows_no_password(self):
        """bisect --from-history with the password in the user part, in password=, or in PGPASSWORD: no
        line it prints and no file it writes (bisect.json, answer.json, the runs' files) holds it; a wrong
        one is refused with *** in its place."""
        sock, tmp = self.server.sock, self.tmp
        mkrepo = os.path.join(histfix.ROOT, "report", "heapbench", "bisect", "tests", "mkrepo.py")
        repo = os.path.join(tmp, "repo")
        subprocess.run(["/usr/bin/python3", mkrepo, repo, "12", "7", "faults"], check=True, capture_output=True)
        commits = subprocess.run(["git", "-C", repo, "rev-list", "--reverse", "main"], check=True, capture_output=True,
                                 text=True).stdout.split()
        right = f"postgresql://hb:{self.PASSWORD}@/postgres?host={sock}"
        for i, commit in enumerate(commits):  # a step in peak RSS from commit 7 on: the ends are commits 6 and 7
            run = write_run(os.path.join(tmp, f"n{i}"), {KEY: cell(1.0, rss=1000 + (i >= 6) * 500)}, run_id=f"n{i}")
            done = histfix.run_cli(["add", "--db", right, "--label", commit, run], tmp)
            self.assertEqual(done.returncode, 0, done.stderr)
        base = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        base.update(HOME=tmp, HEAPBENCH_RESULTS=os.path.join(tmp, "results"))
        base.pop("HEAPBENCH_HISTORY", None)

        def bisect(url, out, env=None):
            return subprocess.run([histfix.BIN, "bisect", "--from-history", "--db", url, "--cell", "churn/glibc/t1",
                                   "--metric", "maxrss_kb", "--repo", repo, "--build", "make", "-o", out, "--", "./prog"],
                                  capture_output=True, text=True, env=dict(base, **(env or {})), timeout=900)
        forms = [(right, None), (f"postgresql://hb@/postgres?host={sock}&password={self.PASSWORD}", None),
                 (f"postgresql://hb@/postgres?host={sock}", {"PGPASSWORD": self.PASSWORD})]
        for n, (url, env) in enumerate(forms):
            out = os.path.join(tmp, f"b{n}")
            done = bisect(url, out, env)
            self.assertEqual(done.returncode, 0, done.stderr[-2000:])
            self.assertIn(f"first bad commit: {commits[6]}", done.stdout)
            written = [done.stdout, done.stderr]
            for top, _, files in os.walk(out):
                for name in files:
                    with open(os.path.join(top, name), errors="replace") as fh:
                        written.append(fh.read())
            self.assertTrue(os.path.exists(os.path.join(out, "bisect.json")) and os.path.exists(os.path.join(out, "answer.json")))
            for text in written:
                self.assertNotIn(self.PASSWORD, text)
        for url in (f"postgresql://hb:Wrong1Pw7@/postgres?host={sock}", f"postgresql://hb@/postgres?host={sock}&password=Wrong1Pw7"):
            done = bisect(url, os.path.join(tmp, "bw"))
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertNotIn("Wrong1Pw7", done.stdout + done.stderr)
            self.assertIn("***", done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)


if __name__ == "__main__":
    unittest.main()
