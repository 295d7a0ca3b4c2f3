"""watchdog.py - advise's hard stop at the budget: a runner still running when the clock reaches the limit is told to stop.

Always holds: while a runner invocation runs, a thread reads the clock (its live reading: the
CPU of the running processes counted too) every POLL_S seconds; when it passes the limit
(the budget plus LIMIT_SHARE of it), the runner gets SIGINT,
as a Ctrl-C would give it: it kills its current run's process group and writes what it has,
which advise then reads (the cut is named in the dropped list); a child still there GRACE_S
later (SIGINT is ignored by a process started in the background, `advise ... &`) gets SIGTERM,
which the runner treats alike; fired() says whether it
stopped the runner, so that a Ctrl-C of the person is never mistaken for it.
"""
import os
import signal
import threading

from heapbench.advise import stop

POLL_S = 0.25
GRACE_S = 2.0           # after SIGINT, SIGTERM to what is left
LIMIT_SHARE = 0.0       # of the budget: the runners stop at the budget; the promised +10% is for the recommendation and the files


class Watchdog:
    """A context manager: while inside, the runner is stopped when clock.elapsed_live() passes limit."""

    def __init__(self, clock, limit):
        """clock: progress.Progress; limit: the clock reading at which the runner is stopped."""
        self.clock, self.limit = clock, limit
        self.stopped, self._done = False, threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
        return False

    def fired(self):
        """Whether the watchdog stopped the runner."""
        return self.stopped

    def _watch(self):
        """Polls the clock; at the limit, SIGINT to advise's children (the runner), once."""
        while not self._done.wait(POLL_S):
            if self.clock.elapsed_live() > self.limit:
                self.stopped = True
                for sig in (signal.SIGINT, signal.SIGTERM):
                    for pid in stop.stop_children(os.getpid()):
                        try:
                            os.kill(pid, sig)
                        except OSError:
                            pass
                    if self._done.wait(GRACE_S):
                        return
                return


def watchdog_limit(budget):
    """The clock reading at which a runner is stopped: the budget plus LIMIT_SHARE of it."""
    return budget * (1 + LIMIT_SHARE)
