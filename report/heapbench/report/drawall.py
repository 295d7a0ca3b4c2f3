"""drawall.py - draws every PNG of a report, spread over forked worker processes (one per idle core).

Always holds: a job is (key, draw function, extra args); the draw functions only read the
Summary and write their own PNG, so they can run in any order and in any process; the
result maps each key to what its function returned (a file name or None), the same as a
serial run. The Summary reaches the workers by fork (never pickled: it holds every row),
with the objects made so far frozen out of the garbage collector (gc.freeze), which would
otherwise touch, and so copy, every page of them in each worker. Workers cost CPU time (the
copied pages, each worker's warm-up: ~2 s for a 10-host merge), so there is one per core
that is idle (cores minus the 1-minute load average, rounded); with one, one job, or where
fork is not available, everything runs in this process.
"""
import gc
import multiprocessing
import os

_STATE = {}  # summary, outdir and jobs of the current draw_all, inherited by the forked workers


def _run(index):
    """Runs job index of the current draw_all (in a worker or in this process)."""
    _, func, args = _STATE["jobs"][index]
    return func(_STATE["summary"], _STATE["outdir"], *args)


def idle_cores():
    """Cores not busy by the 1-minute load average, rounded, at least 1."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system: count every core as idle
        load = 0.0
    return max(1, min(cores, round(cores - load)))


def _forked(count, workers):
    """Results of jobs 0..count-1 run in a pool of workers forked from this process."""
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return pool.map(_run, range(count), chunksize=1)
    finally:
        gc.unfreeze()


def draw_all(summary, outdir, jobs, workers=None):
    """Runs jobs [(key, func, args)] as func(summary, outdir, *args); returns {key: result}.
    workers: how many processes (default: idle_cores())."""
    workers = min(workers or idle_cores(), len(jobs))
    _STATE.update(summary=summary, outdir=outdir, jobs=jobs)
    try:
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            results = [_run(i) for i in range(len(jobs))]
        else:
            results = _forked(len(jobs), workers)
    finally:
        _STATE.clear()
    return {key: result for (key, _, _), result in zip(jobs, results)}
