"""loadhogs.py - a load that a bench moves itself: N background hog processes, set point by point by a schedule.

Always holds: a schedule is written "HOGS:POINTS,HOGS:POINTS,..." (e.g. "0:10,16:10,0:10": 10 points
idle, 10 points beside 16 hogs, 10 points idle), HOGS >= 0 and POINTS >= 1 integers; parse() gives
[(hogs, points)] or raises ValueError saying what is wrong; hogs_at(schedule, k) is the hog count of
point k (1-based). Each hog is /usr/bin/python3 spinning the CPU and rewriting 32 MiB (a busy
machine's CPU and memory traffic), started in its own session (a terminal's Ctrl-C reaches only the
bench, which ends them); Hogs.set(n) starts or ends hogs until exactly n run; Hogs.stop() (also at
the end of its with block, whatever ends it) kills and reaps every one; a hog whose parent has gone
(the bench killed by SIGKILL) ends itself at its next pass of the loop (~10 ms of CPU), so none is left running.
"""
import os
import subprocess

HOG = ("import os, sys\n"
       "parent = int(sys.argv[1])\n"
       "b = bytearray(32 << 20)\n"
       "while os.getppid() == parent:\n"
       "    b[::4096] = b'x' * (len(b) // 4096)\n"
       "    sum(range(200000))\n")


def parse(text):
    """[(hogs, points)] of a schedule's text; ValueError with what is wrong."""
    out = []
    for part in text.split(","):
        hogs, sep, points = part.strip().partition(":")
        if not sep or not hogs.strip().isdigit() or not points.strip().isdigit():
            raise ValueError(f"'{part.strip()}' is not HOGS:POINTS (two whole numbers, e.g. 16:10)")
        if int(points) < 1:
            raise ValueError(f"'{part.strip()}' has no points (POINTS must be at least 1)")
        out.append((int(hogs), int(points)))
    return out


def points(schedule):
    """The number of points a schedule covers."""
    return sum(n for _, n in schedule)


def hogs_at(schedule, k):
    """The hog count of point k (1-based) of schedule; the last stretch's beyond its end."""
    for hogs, n in schedule:
        if k <= n:
            return hogs
        k -= n
    return schedule[-1][0]


class Hogs:
    """The running hogs; a context manager that ends them all on the way out."""

    def __init__(self):
        self.procs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def set(self, count):
        """Starts or ends hogs until count run."""
        while len(self.procs) > count:
            self._end(self.procs.pop())
        while len(self.procs) < count:
            self.procs.append(subprocess.Popen(["/usr/bin/python3", "-c", HOG, str(os.getpid())],
                                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL, start_new_session=True))

    def pids(self):
        """The pids of the running hogs."""
        return [p.pid for p in self.procs]

    def stop(self):
        """Kills and reaps every hog."""
        while self.procs:
            self._end(self.procs.pop())

    @staticmethod
    def _end(proc):
        proc.kill()
        proc.wait()
