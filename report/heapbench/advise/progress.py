"""progress.py - advise's clock (what --budget counts) and its progress for a person at a terminal: the stage, a bar and the time left.

Always holds: the clock counts the budget's unit (CLOCKS: wall seconds, or CPU seconds of advise
and of every process it ran and waited for); on a terminal (stderr is a tty) one line is redrawn
in place and erased at the end; elsewhere nothing is shown (a log or a pipe gets only the answer
and the one-line errors); nothing is written to stdout, which carries the advice itself.
"""
import os
import sys
import time

from heapbench.advise import stop

STAGES = ("baseline", "profile", "screen", "confirm", "recommend")


def progress_cpu_seconds():
    """CPU seconds (user + system) of this process and of its waited-for children and their descendants."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def progress_live_cpu_seconds():
    """CPU seconds of advise's live descendants (each one's own and its reaped children's, from
    /proc/PID/stat): what the cpu clock will count once they are waited for."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for pid in stop.stop_descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15]) / tick  # utime stime cutime cstime
        except (OSError, IndexError, ValueError):
            continue
    return total


def progress_process_age():
    """Wall seconds since this process started (/proc/self/stat's start time against /proc/uptime): the
    command's own start and its imports, which come before advise's clock is made; 0 where unreadable."""
    try:
        with open("/proc/self/stat", encoding="ascii", errors="replace") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
    except (OSError, IndexError, ValueError):
        return 0.0
    return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))


def progress_wall_seconds():
    """Wall seconds on a clock whose zero is this process's start (CLOCK_MONOTONIC less the age at import)."""
    return time.monotonic() - PROCESS_START


PROCESS_START = time.monotonic() - progress_process_age()

# --budget-clock: its reading function and the unit the messages give. Both count from the process's
# start: the CPU clock through os.times(), the wall clock through PROCESS_START.
CLOCKS = {"wall": (progress_wall_seconds, "s"), "cpu": (progress_cpu_seconds, "CPU s")}


class Progress:
    """The run's clock and its one-line display: started, budget (in the clock's unit), spent before a resume."""

    def __init__(self, budget, spent=0.0, stream=None, clock="wall"):
        """A clock (a key of CLOCKS) that counts spent seconds (from an earlier, interrupted run) as already used."""
        self.read, self.unit = CLOCKS[clock]
        self.budget, self.spent0, self.start = budget, spent, 0.0  # both clocks read 0 at the process's start
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.stage, self.planned_end = "", budget

    def elapsed(self):
        """Seconds used so far, the interrupted runs' included."""
        return self.spent0 + self.read() - self.start

    def elapsed_live(self):
        """elapsed(), with the CPU of the processes still running counted too (cpu clock): the watchdog's reading."""
        return self.elapsed() + (progress_live_cpu_seconds() if self.read is progress_cpu_seconds else 0.0)

    def left(self):
        """Seconds of the budget left (may be negative)."""
        return self.budget - self.elapsed()

    def show(self, stage, note="", planned_end=None):
        """Shows the stage (1-based of STAGES), a bar of the budget and the ETA (the plan's end)."""
        if planned_end is not None:
            self.planned_end = planned_end
        number = STAGES.index(stage) + 1 if stage in STAGES else 0
        elapsed = self.elapsed()
        eta = max(0.0, self.planned_end - elapsed)
        if self.tty:
            done = min(1.0, elapsed / max(1e-9, self.planned_end))
            bar = "#" * int(done * 20) + "." * (20 - int(done * 20))
            self.stream.write(f"\r\033[K[{bar}] {number}/{len(STAGES)} {stage}: {note} "
                              f"({elapsed:.0f} {self.unit}, ETA {eta:.0f} {self.unit})")
            self.stream.flush()
        self.stage = stage

    def done(self):
        """Ends the progress line on a terminal."""
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()
