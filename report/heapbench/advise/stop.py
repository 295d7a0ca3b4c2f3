"""stop.py - advise's stop on SIGINT or SIGTERM: the runner and every process under it end within STOP_GRACE_S, then advise raises KeyboardInterrupt.

Always holds: advise starts every runner in its own session (no terminal signal reaches it), so
a stop is always advise's: the handler sends SIGTERM to advise's children (a runner then kills
its current run's process group and writes what it has), waits at most STOP_GRACE_S for them,
kills with SIGKILL whatever of their descendants is still there, and raises KeyboardInterrupt
in advise, whose stage loop saves the state for --resume; a second signal during a stop is
ignored; only processes that descend from advise are ever signalled.
"""
import os
import signal
import time

STOP_GRACE_S = 1.5   # the runner's own stop takes ~0.1 s; the rest is the loaded machine's scheduling
POLL_S = 0.05


def stop_children(pid):
    """The pids of pid's direct children (from /proc/PID/task/*/children)."""
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                out += [int(w) for w in f.read().split()]
        except OSError:
            continue
    return out


def stop_descendants(pid):
    """Every descendant pid of pid, children first."""
    out, todo = [], stop_children(pid)
    while todo:
        child = todo.pop(0)
        out.append(child)
        todo += stop_children(child)
    return out


def stop_alive(pid):
    """Whether pid is a process that has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def stop_all(grace=STOP_GRACE_S):
    """SIGTERM to advise's children, at most grace seconds for them and theirs, SIGKILL to what is left."""
    family = stop_descendants(os.getpid())
    for pid in stop_children(os.getpid()):
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(stop_alive(p) for p in family):
        time.sleep(POLL_S)
    for pid in family + stop_descendants(os.getpid()):
        if stop_alive(pid):
            _signal(pid, signal.SIGKILL)


def _signal(pid, sig):
    """Sends sig to pid; a process that is gone already is no error."""
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def stop_handler(signum, frame):
    """The SIGINT/SIGTERM handler: stops the children (stop_all), then KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    stop_all()
    raise KeyboardInterrupt


def stop_install():
    """Installs stop_handler for SIGINT and SIGTERM."""
    signal.signal(signal.SIGINT, stop_handler)
    signal.signal(signal.SIGTERM, stop_handler)
