"""check.py - asks `heapbench check` (the one judge) whether a results directory is whole before anything of it is added.

Always holds: a directory is accepted only when `heapbench check DIR` exits 0; any other outcome
(a defect, a usage error, a missing or crashing binary) raises HistoryError naming the
directory, check's first line and what to do.
"""
import os
import subprocess

from heapbench import cli
from heapbench.history.db import HistoryError


def require_whole(directory):
    """Returns when `heapbench check directory` calls it whole; HistoryError otherwise."""
    binary = cli.binary()
    if not os.access(binary, os.X_OK):
        raise HistoryError(f"{binary} is missing; run make (history add asks 'heapbench check' first)")
    try:
        done = subprocess.run([binary, "check", directory], capture_output=True, text=True,
                              errors="replace", timeout=600, env=cli.run_env())
    except (OSError, subprocess.TimeoutExpired) as err:
        raise HistoryError(f"{directory}: heapbench check did not finish ({err}); nothing was added") from None
    if done.returncode == 0:
        return
    first = (done.stdout.strip() or done.stderr.strip() or f"exit {done.returncode}").splitlines()[0]
    if done.returncode != 1:  # not a directory check could judge (none, a file): check said why
        raise HistoryError(f"{first.removeprefix('heapbench: ')}; nothing was added")
    raise HistoryError(f"{directory}: not whole ({first}); nothing was added "
                       "(repair it with 'heapbench run --resume DIR' or leave it out)")
