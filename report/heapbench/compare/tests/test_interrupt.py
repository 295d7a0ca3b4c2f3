"""test_interrupt.py - Ctrl-C (SIGINT to the process group, as a terminal sends it) during ci
(--baseline, --ab, --history), compare, report and merge: one line on stderr, exit 130, no traceback
(ci's progress lines, the 'ci: CMD' of each run it starts, come before it).

Always holds: each command is caught while it waits for the heapbench CLI it runs (a stand-in
that marks its start and sleeps), so the signal lands inside the Python program, not before it;
everything is under a temporary directory removed at the end.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import fixture

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


class InterruptTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hb-interrupt-")
        cls.fake = os.path.join(cls.tmp, "fakehb")
        with open(cls.fake, "w") as fh:  # every call: mark the start, then wait to be interrupted
            fh.write('#!/bin/sh\n: > "$MARK"\nexec sleep 300\n')
        os.chmod(cls.fake, 0o755)
        cls.dir = os.path.join(cls.tmp, "d")
        fixture.fixture_write(cls.dir, {("churn", "glibc", 1, "", ""): {"wall_s": [1.0, 1.1]}})

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def interrupt(self, name, module, *args, loading=False):
        """Runs python3 -m MODULE ARGS in its own process group, sends SIGINT to the group once the
        stand-in CLI has started (loading: once numpy's C extension is mapped, while the command's
        modules load); returns (exit status, stderr)."""
        mark = os.path.join(self.tmp, f"mark-{name}")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "report"), HEAPBENCH_BIN=self.fake, MARK=mark,
                   HEAPBENCH_ROOT=ROOT, HEAPBENCH_RESULTS=os.path.join(self.tmp, "results"))
        proc = subprocess.Popen([sys.executable, "-m", module] + list(args), env=env, cwd=self.tmp,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 120
        while not os.path.exists(mark) and proc.poll() is None and time.monotonic() < deadline:
            if loading and self.numpy_mapped(proc.pid):
                break
            time.sleep(0.01 if loading else 0.05)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        if not loading:
            self.assertTrue(os.path.exists(mark), f"{name} ended before it ran the CLI: {err}")
        return proc.returncode, err

    @staticmethod
    def numpy_mapped(pid):
        """True once numpy's C extension is mapped into process pid (its modules are loading)."""
        try:
            with open(f"/proc/{pid}/maps") as fh:
                return "_multiarray_umath" in fh.read()
        except OSError:
            return False

    def check_one_line(self, name, module, *args, loading=False):
        rc, err = self.interrupt(name, module, *args, loading=loading)
        self.assertEqual(rc, 130, err)
        self.assertNotIn("Traceback", err)
        self.assertNotIn("KeyboardInterrupt", err)
        lines = [line for line in err.strip().splitlines() if not line.startswith("ci: ")]
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("heapbench ") and ": interrupted; " in lines[0], err)

    def test_compare(self):
        self.check_one_line("compare", "heapbench.compare", self.dir, self.dir, "--out", os.path.join(self.tmp, "c"))

    def test_report(self):
        self.check_one_line("report", "heapbench.report", self.dir, "-o", os.path.join(self.tmp, "r"))

    def test_while_the_modules_load(self):
        """SIGINT while numpy (and matplotlib) load, before main runs: the same one line (the
        handler is in place from the entry's first statements)."""
        self.check_one_line("report-loading", "heapbench.report", self.dir, "-o", os.path.join(self.tmp, "rl"),
                            loading=True)
        self.check_one_line("compare-loading", "heapbench.compare", self.dir, self.dir, "--out",
                            os.path.join(self.tmp, "cl"), loading=True)
        self.check_one_line("ci-loading", "heapbench.compare.ci", "--baseline", self.dir, "-o",
                            os.path.join(self.tmp, "cil"), loading=True)

    def test_merge(self):
        self.check_one_line("merge", "heapbench.compare.merge", "-o", os.path.join(self.tmp, "m"), self.dir)

    def test_ci_baseline(self):
        self.check_one_line("ci-baseline", "heapbench.compare.ci", "--baseline", self.dir, "-o",
                            os.path.join(self.tmp, "cib"))

    def test_ci_ab(self):
        self.check_one_line("ci-ab", "heapbench.compare.ci", "--ab", "--base", "true", "-o",
                            os.path.join(self.tmp, "ciab"), "--", "true")

    def test_ci_history(self):
        self.check_one_line("ci-history", "heapbench.compare.ci", "--history", os.path.join(self.tmp, "h.sqlite"),
                            "--allow-unknown", "--add", "-o", os.path.join(self.tmp, "cih"))


if __name__ == "__main__":
    unittest.main()
