"""test_purenoise.py - the pure-noise bench stopped while it runs (SIGTERM, SIGHUP, Ctrl-C's SIGINT): one line,
exit 128 + the signal, and its temporary directory removed with what the run in progress wrote there.

Always holds: the bench starts with SIGINT ignored (as a background job of make test or CI does); it runs with TMPDIR set to a directory of the test's own, which must be empty again once
it has exited; the signal is sent only once its temporary directory exists (the run has started)
and the bench has its handler for that signal (read from /proc, not guessed from a sleep).
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
BENCH = os.path.join(ROOT, "report", "heapbench", "history", "bench", "pure-noise")


def catches(pid, sig):
    """Whether process pid has a handler of its own for sig (SigCgt of /proc/PID/status): until then a
    SIGINT it inherited ignored is lost."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            mask = next(int(line.split()[1], 16) for line in fh if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return False
    return bool(mask >> (sig - 1) & 1)


class PureNoiseStopTest(unittest.TestCase):
    def setUp(self):
        if not os.access(os.path.join(ROOT, "build", "heapbench"), os.X_OK):
            self.fail("build/heapbench is missing: run make")

    def new_tmp(self):
        """A TMPDIR of the bench's own for one stop (one stop's leftover cannot fail the next)."""
        self.tmp = tempfile.mkdtemp(prefix="hb-purenoise-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def run_dirs(self):
        """The directories in the test's TMPDIR: the bench's temporary directory once its run has
        started (a file there may be another process's: Python's tempfile writes and removes a probe
        file in TMPDIR the first time it is used)."""
        return [d for d in os.listdir(self.tmp) if os.path.isdir(os.path.join(self.tmp, d))]

    def stopped(self, sig):
        """Starts the bench, sends sig once its temporary directory exists; (exit code, stderr, what is left)."""
        self.new_tmp()
        env = dict(os.environ, TMPDIR=self.tmp)
        # started with SIGINT ignored, as make test and CI start it (a non-interactive shell's background job)
        proc = subprocess.Popen([os.path.join(ROOT, "report", "py"), BENCH, "--points", "3", "-w", "thread-churn", "-n", "1"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        deadline = time.time() + 120
        while not (self.run_dirs() and catches(proc.pid, sig)) and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(self.run_dirs(), "the bench made no temporary directory (or ended first)")
        self.assertTrue(catches(proc.pid, sig), f"the bench never took {sig.name} (or ended first)")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        return proc.returncode, err.strip().splitlines(), os.listdir(self.tmp)

    def test_signals(self):
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            with self.subTest(signal=sig.name):
                rc, lines, left = self.stopped(sig)
                self.assertEqual(rc, 128 + sig, lines)
                self.assertEqual(len(lines), 1, lines)
                self.assertIn("temporary directory was removed", lines[0])
                self.assertEqual(left, [], f"left in TMPDIR: {left}")


if __name__ == "__main__":
    unittest.main()
