"""test_testrun.py - heapbench.testrun prints a FAIL line for every failure it counts: a test's, a subTest's
and a class fixture's, so that a suite's "N failed" always names what failed.

Always holds: the test files are written to a temporary directory that is removed; testrun runs in a child
process on them.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SAMPLE = textwrap.dedent('''
    import unittest

    class Sample(unittest.TestCase):
        def test_ok(self):
            pass

        def test_sub(self):
            for k in (1, 2):
                with self.subTest(k=k):
                    self.assertEqual(k, 1)

    class Broken(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            raise RuntimeError("no fixture")

        def test_never(self):
            pass
''')


class TestrunTest(unittest.TestCase):
    def test_every_counted_failure_has_its_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "test_sample.py"), "w", encoding="utf-8") as f:
                f.write(SAMPLE)
            env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", ".."))
            proc = subprocess.run([sys.executable, "-m", "heapbench.testrun", tmp], capture_output=True, text=True,
                                  env=env, timeout=120)
        lines = proc.stdout.splitlines()
        fails = [line for line in lines if line.startswith("FAIL ")]
        self.assertEqual(lines[-1], "1 passed, 2 failed", proc.stdout + proc.stderr)
        self.assertEqual(len(fails), 2, lines)
        self.assertTrue(any("test_sub" in line and "k=2" in line for line in fails), fails)
        self.assertTrue(any("setUpClass" in line and "no fixture" in line for line in fails), fails)
        self.assertEqual(proc.returncode, 1)


if __name__ == "__main__":
    unittest.main()
