"""test_secret.py - a history URL's password never reaches a message: the masking and the CLI's errors without a server.

Always holds: every password form of a PostgreSQL URL (user:password@, ?password=, ?passfile=,
percent-encoded) is masked by secret.mask; `history` and `ci --history` errors on a URL whose
server cannot be reached print no secret; no test needs a server (test_postgres.py has those).
"""
import os
import shutil
import subprocess
import tempfile
import unittest

import histfix
from heapbench.history import secret

PW = "S3cretPw9"
URLS = [f"postgresql://postgres:{PW}@/db?host=/nonexistent-hb-sock",
        f"postgresql://postgres@/db?host=/nonexistent-hb-sock&password={PW}",
        f"postgres://postgres@localhost:1/db?password={PW}&connect_timeout=2",
        f"postgresql://postgres@/db?host=/nonexistent-hb-sock&passfile=/tmp/{PW}",
        "postgresql://postgres:S3cret%40Pw9@/db?host=/nonexistent-hb-sock",
        f"postgresql://postgres@/db?host=/nonexistent-hb-sock&port={PW}&password={PW}",
        f"host=/nonexistent-hb-sock dbname=db password={PW}"]


def leaks(text):
    """True when text holds a secret of URLS (as written or decoded)."""
    return PW in text or "S3cret@Pw9" in text or "S3cret%40Pw9" in text


class MaskTest(unittest.TestCase):
    def test_every_form_is_masked(self):
        for url in URLS:
            masked = secret.mask(url)
            self.assertFalse(leaks(masked), masked)
            self.assertIn(secret.HIDDEN, masked)
            self.assertTrue("postgres" in masked or "dbname=db" in masked, masked)
        self.assertEqual(secret.mask("postgresql://u@h:5432/db?host=/s&sslmode=require"),
                         "postgresql://u@h:5432/db?host=/s&sslmode=require")
        self.assertEqual(secret.mask("/tmp/x/history.sqlite"), "/tmp/x/history.sqlite")
        for other in (f"host=/tmp dbname=x password={PW}", f"dbname=x PASSWORD = '{PW} x' port=1",
                      f"postgresql://u@/db?Password={PW}"):  # libpq's key=value form; another case
            self.assertFalse(leaks(secret.mask(other)), secret.mask(other))

    def test_text_that_echoes_a_secret_is_masked(self):
        url = "postgresql://u:p%40ss@h/db"
        text = f'invalid port "p@ss" in {url}; p%40ss'
        out = secret.mask(url, text)
        self.assertNotIn("p@ss", out)
        self.assertNotIn("p%40ss", out)
        self.assertIn("postgresql://u:***@h/db", out)

    def test_pgpassword_is_masked_for_a_postgresql_url_only(self):
        os.environ["PGPASSWORD"], old = "EnvPw77", os.environ.get("PGPASSWORD")
        try:
            self.assertEqual(secret.mask("postgresql://u@h/db", "auth EnvPw77 failed"), "auth *** failed")
            self.assertEqual(secret.mask("/tmp/EnvPw77.sqlite"), "/tmp/EnvPw77.sqlite")
        finally:
            os.environ.pop("PGPASSWORD") if old is None else os.environ.__setitem__("PGPASSWORD", old)


@unittest.skipUnless(os.access(histfix.BIN, os.X_OK), "build/heapbench is not built")
class CliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-secret-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_history_errors_print_no_password(self):
        for url in URLS:
            for args in (["testbeds", "--db", url], ["changes", "--db", url]):
                done = histfix.run_cli(args, self.tmp)
                self.assertEqual(done.returncode, 2, (url, done.stderr))
                self.assertFalse(leaks(done.stdout + done.stderr), done.stderr)
                self.assertIn("***", done.stderr)
            done = histfix.run_cli(["testbeds"], self.tmp, env={"HEAPBENCH_HISTORY": url})
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertFalse(leaks(done.stdout + done.stderr), done.stderr)

    def test_ci_history_error_prints_no_password(self):
        for url in URLS[:2]:
            out = os.path.join(self.tmp, "ci")
            done = subprocess.run([histfix.BIN, "ci", "--history", url, "-o", out, "-w", "thread-churn"],
                                  capture_output=True, text=True, timeout=600,
                                  env=dict(os.environ, HEAPBENCH_RESULTS=os.path.join(self.tmp, "results")))
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertFalse(leaks(done.stdout + done.stderr), done.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
