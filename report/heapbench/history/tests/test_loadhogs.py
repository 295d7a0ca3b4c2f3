"""test_loadhogs.py - the pure-noise bench's moving load: schedules, hogs started and ended point by point, none left behind.

Always holds: a hog is found by what runs, not by what the code believes: a process whose command
line is loadhogs.HOG with the given parent's pid (read from /proc; a zombie counts as gone; a hog
just started counts once its command line reads so: Popen returns when the exec has begun, before
the kernel has set the new command line, so a count of started hogs is polled, not read once); every
hog the tests start is ended by the test's own cleanup too; waits are polled up to generous
deadlines (the machine may be at load 30).
"""
import os
import signal
import subprocess
import sys
import time
import unittest

from heapbench.history import loadhogs

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
BENCH = os.path.join(ROOT, "report", "heapbench", "history", "bench", "pure-noise")


def live_hogs(parent):
    """The pids of running (not zombie) hog processes started for parent."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
            with open(f"/proc/{name}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if argv[1:4] == [b"-c", loadhogs.HOG.encode(), str(parent).encode()] and state != "Z":
            out.append(int(name))
    return sorted(out)


def wait_for(predicate, seconds=60):
    """Polls predicate until true or the deadline; its last value."""
    deadline = time.time() + seconds
    while not predicate() and time.time() < deadline:
        time.sleep(0.1)
    return predicate()


class ScheduleTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(loadhogs.parse("0:10,16:10,0:10"), [(0, 10), (16, 10), (0, 10)])
        self.assertEqual(loadhogs.parse(" 4:2 "), [(4, 2)])
        for bad in ("", "16", "16:", ":3", "a:3", "-1:3", "2:0", "2:1.5", "0:10,,0:1"):
            with self.subTest(schedule=bad), self.assertRaises(ValueError):
                loadhogs.parse(bad)

    def test_hogs_by_point(self):
        s = loadhogs.parse("0:2,3:1,1:2")
        self.assertEqual(loadhogs.points(s), 5)
        self.assertEqual([loadhogs.hogs_at(s, k) for k in range(1, 6)], [0, 0, 3, 1, 1])


class HogsTest(unittest.TestCase):
    def setUp(self):
        self.hogs = loadhogs.Hogs()
        self.addCleanup(self.hogs.stop)

    def test_started_and_ended_point_by_point(self):
        """The processes that run follow the schedule, point by point, and none is left at the end."""
        s = loadhogs.parse("0:1,3:2,1:1,0:1")
        with self.hogs:
            for k in range(1, loadhogs.points(s) + 1):
                self.hogs.set(loadhogs.hogs_at(s, k))
                want = loadhogs.hogs_at(s, k)
                self.assertTrue(wait_for(lambda: len(live_hogs(os.getpid())) == want), f"point {k}: "
                                f"{len(live_hogs(os.getpid()))} hogs run, not {want}")
                self.assertEqual(live_hogs(os.getpid()), sorted(self.hogs.pids()), f"point {k}")
        self.assertEqual(live_hogs(os.getpid()), [])

    def test_ended_when_the_block_raises(self):
        with self.assertRaises(KeyboardInterrupt):
            with self.hogs:
                self.hogs.set(2)
                self.assertTrue(wait_for(lambda: len(live_hogs(os.getpid())) == 2), live_hogs(os.getpid()))
                raise KeyboardInterrupt
        self.assertEqual(live_hogs(os.getpid()), [])

    def test_a_killed_parent_leaves_none(self):
        """SIGKILL of the process that started them (no cleanup can run): the hogs end themselves."""
        code = ("import sys, time\nfrom heapbench.history import loadhogs\nh = loadhogs.Hogs()\nh.set(2)\n"
                "print(' '.join(map(str, h.pids())), flush=True)\ntime.sleep(600)\n")
        parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        self.addCleanup(parent.kill)
        pids = [int(p) for p in parent.stdout.readline().split()]
        self.addCleanup(lambda: [os.kill(p, signal.SIGKILL) for p in live_hogs(parent.pid)])
        self.assertTrue(wait_for(lambda: live_hogs(parent.pid) == sorted(pids)), (live_hogs(parent.pid), pids))
        parent.kill()
        parent.wait()
        self.assertTrue(wait_for(lambda: not live_hogs(parent.pid)), f"hogs left running: {live_hogs(parent.pid)}")


class BenchHogsTest(unittest.TestCase):
    """pure-noise with a schedule: hogs run while it measures and none is left, whether it ends or is stopped."""

    def start(self, *words):
        # started with SIGINT ignored, as make test and CI start it (a non-interactive shell's background job)
        proc = subprocess.Popen([os.path.join(ROOT, "report", "py"), BENCH, "-w", "sizes", "-n", "1", *words],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        self.addCleanup(lambda: [os.kill(p, signal.SIGKILL) for p in live_hogs(proc.pid)])
        self.addCleanup(proc.kill)
        return proc

    def test_stopped_by_a_signal(self):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with self.subTest(signal=sig.name):
                proc = self.start("--load-schedule", "2:3")
                self.assertTrue(wait_for(lambda: len(live_hogs(proc.pid)) == 2 or proc.poll() is not None, 120),
                                "the bench's 2 hogs never ran")
                self.assertEqual(len(live_hogs(proc.pid)), 2)
                proc.send_signal(sig)
                _, err = proc.communicate(timeout=120)
                self.assertEqual(proc.returncode, 128 + sig, err)
                self.assertEqual(live_hogs(proc.pid), [], "hogs left running after the bench stopped")

    def test_ends_with_none_running(self):
        proc = self.start("--load-schedule", "0:1,1:1,0:1")
        out, err = proc.communicate(timeout=600)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual([ln.split(" before")[0] for ln in out.splitlines() if " before:" in ln],
                         ["point 1 hogs 0", "point 2 hogs 1", "point 3 hogs 0"])
        self.assertIn("change points at a move of the hogs", out)
        self.assertEqual(live_hogs(proc.pid), [])

    def test_bad_schedules_are_usage_errors(self):
        for words in (["--load-schedule", "16"], ["--load-schedule", "0:2", "--points", "3"], ["--points", "1"]):
            with self.subTest(words=words):
                proc = self.start(*words)
                _, err = proc.communicate(timeout=120)
                self.assertEqual(proc.returncode, 2, err)
                self.assertIn("pure-noise: error:", err.strip().splitlines()[-1])
                self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
