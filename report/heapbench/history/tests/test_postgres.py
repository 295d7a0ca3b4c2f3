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

    def __init__(self, tmp):
        self.tmp, self.proc = tmp, None

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
        init = subprocess.run(self._as_user([os.path.join(bindir, "initdb"), "-D", self.data, "-U", "hb",
                                             "--auth=trust", "--no-sync"]),
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
                psycopg2.connect(self.url, connect_timeout=2).close()
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


class PostgresTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-history-pg-")
        os.chmod(self.tmp, 0o711)  # the server's user must reach its directory inside
        self.server = Server(os.path.join(self.tmp, "pg"))
        os.makedirs(self.server.tmp)
        try:
            self.server.start()
        except unittest.SkipTest:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise

    def tearDown(self):
        self.server.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

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


if __name__ == "__main__":
    unittest.main()
