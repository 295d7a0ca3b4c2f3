"""test_cilabel.py - `heapbench ci --history --add --label L` when L already names a run of the
testbed: refused (exit 2, one line naming the label) before any verdict, not a PASS and then exit 2.

Always holds: ci runs with HEAPBENCH_BIN pointing at tests/fakebench (synthetic, quick batches); the
history is an SQLite file in a fresh temporary directory.
"""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class CiLabelTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.tmp.name, "h.sqlite")
        self.n = 0

    def tearDown(self):
        self.tmp.cleanup()

    def ci(self, *args):
        self.n += 1
        env = dict(os.environ, HEAPBENCH_BIN=os.path.join(HERE, "fakebench"), FAKE_STATE=self.tmp.name)
        for name in [k for k in env if k.startswith("FAKE_") and k != "FAKE_STATE"]:
            del env[name]
        return subprocess.run(["/usr/bin/python3", "-m", "heapbench.compare.ci", "--history", self.db, "-o",
                               os.path.join(self.tmp.name, f"ci{self.n}")] + list(args),
                              capture_output=True, text=True, env=env, timeout=600)

    def test_a_label_already_taken_is_refused_before_the_verdict(self):
        for i in range(4):
            done = self.ci("--update-baseline", "--label", f"v{i}")
            self.assertEqual(done.returncode, 0, done.stderr[-1500:])
        done = self.ci("--add", "--label", "v3")
        self.assertEqual(done.returncode, 2, done.stdout[-1500:] + done.stderr[-1500:])
        self.assertNotIn("PASS", done.stdout + done.stderr)
        last = done.stderr.strip().splitlines()[-1]
        self.assertIn("--label 'v3' already names a run", last)
        done = self.ci("--add", "--label", "v4")  # a new label is gated and added as before
        self.assertNotEqual(done.returncode, 2, done.stdout[-1500:] + done.stderr[-1500:])


if __name__ == "__main__":
    unittest.main()
