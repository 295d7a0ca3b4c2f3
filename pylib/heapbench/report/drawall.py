"""drawall.py - draws every PNG of a report, spread over forked worker processes (one per core).

Always holds: a job is (key, draw function, extra args); the draw functions only read the
Summary and write their own PNG, so they can run in any order and in any process; the
result maps each key to what its function returned (a file name or None), the same as a
serial run. The Summary reaches the workers by fork (never pickled: it holds every row);
with one core, one job, or where fork is not available, everything runs in this process.
"""
import multiprocessing
import os

_STATE = {}  # summary, outdir and jobs of the current draw_all, inherited by the forked workers


def _run(index):
    """Runs job index of the current draw_all (in a worker or in this process)."""
    _, func, args = _STATE["jobs"][index]
    return func(_STATE["summary"], _STATE["outdir"], *args)


def draw_all(summary, outdir, jobs, workers=None):
    """Runs jobs [(key, func, args)] as func(summary, outdir, *args); returns {key: result}."""
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    _STATE.update(summary=summary, outdir=outdir, jobs=jobs)
    try:
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            results = [_run(i) for i in range(len(jobs))]
        else:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                results = pool.map(_run, range(len(jobs)), chunksize=1)
    finally:
        _STATE.clear()
    return {key: result for (key, _, _), result in zip(jobs, results)}
