"""test_cells.py - unit tests of heapbench.report.cells on hand-made runs: ratios, leaderboard, throughput, missing cells.

Always holds: every expectation is computed here from the few numbers written in the test
(medians of three values), so the arithmetic of the report is checked, not its output
copied; prints one PASS/FAIL line per test and exits 1 if any failed.
"""
import sys

from heapbench.report.cells import Summary, geomean
from heapbench import testrun


def run_row(run, workload, allocator, threads, rep, status="ok", wall=None, rss=None, reason=""):
    """One runs.csv row as heapbench.results returns it (numbers converted)."""
    return {"host": "h", "run": run, "workload": workload, "allocator": allocator, "threads": threads,
            "params": "", "env": "", "rep": rep, "status": status, "reason": reason, "wall_s": wall,
            "maxrss_kb": rss, "minflt": None, "cycles": None}


def sample(meta=None):
    """Two workloads, glibc and jemalloc, three reps; jemalloc's w2 rep 3 timed out."""
    walls = {("w1", "glibc"): [1.0, 1.2, 1.1], ("w1", "jemalloc"): [0.5, 0.6, 0.55],
             ("w2", "glibc"): [2.0, 2.0, 2.2], ("w2", "jemalloc"): [4.0, 4.4, None]}
    rows, run = [], 0
    for (workload, alloc), values in walls.items():
        for rep, wall in enumerate(values, 1):
            run += 1
            status = "ok" if wall is not None else "timeout"
            rows.append(run_row(run, workload, alloc, 1, rep, status, wall, 1000 if alloc == "glibc" else 1500,
                                "" if wall else "killed after 1 s"))
    phases = [{"run": 1, "ops": 100}, {"run": 1, "ops": 50}]
    return {"dir": "x", "meta": meta or {"allocators": {"glibc": {}, "jemalloc": {}}, "reps": 3},
            "runs": rows, "phases": phases, "rss": [], "sizes": []}


def test_ratio():
    """A cell's ratio is its median over the baseline median, whiskers min/max over that median."""
    s = Summary(sample())
    cell = s.cells[("h", "w1", "jemalloc", 1, "", "")]
    med, lo, hi = s.ratio(cell, "wall_s")
    assert s.baseline == "glibc"
    assert abs(med - 0.55 / 1.1) < 1e-9 and abs(lo - 0.5 / 1.1) < 1e-9 and abs(hi - 0.6 / 1.1) < 1e-9, (med, lo, hi)


def test_leaderboard():
    """Geomean over cells of the median ratios; the timed-out cell counts as failed but its ok reps compare."""
    board = {b["allocator"]: b for b in Summary(sample()).leaderboard()}
    expect = geomean([0.55 / 1.1, 4.2 / 2.0])
    assert abs(board["jemalloc"]["time"] - expect) < 1e-9, board["jemalloc"]
    assert board["jemalloc"]["failed"] == 1 and board["glibc"]["failed"] == 0, board
    assert abs(board["jemalloc"]["rss"] - 1.5) < 1e-9 and board["glibc"]["time"] == 1.0


def test_spread_and_median_agree():
    """A cell's spread is (median, min, max) of its ok runs; the timed-out rep is left out."""
    s = Summary(sample())
    cell = s.cells[("h", "w2", "jemalloc", 1, "", "")]
    assert cell.spread("wall_s") == (4.2, 4.0, 4.4) and cell.median("wall_s") == 4.2, cell.spread("wall_s")
    assert cell.spread("cycles") is None and cell.median("cycles") is None


def test_baseline_without_glibc():
    """Without glibc the first allocator with an ok run is the baseline."""
    data = sample()
    data["runs"] = [r for r in data["runs"] if r["allocator"] != "glibc"]
    assert Summary(data).baseline == "jemalloc"


def test_throughput():
    """Throughput is phase ops over wall time of each run, median over ok runs; 1/wall without ops."""
    s = Summary(sample())
    glibc = s.cells[("h", "w1", "glibc", 1, "", "")]
    values = sorted([150 / 1.0, 1 / 1.2, 1 / 1.1])
    assert abs(s.throughput(glibc) - values[1]) < 1e-9, s.throughput(glibc)


def test_missing():
    """A partial directory says it was interrupted, how many cells are absent and which are short."""
    meta = {"allocators": {"glibc": {}, "jemalloc": {}, "mimalloc": {}}, "reps": 4, "cells": 6,
            "interrupted": True, "complete": False, "workloads": ["w1", "w2", "w3"]}
    lines = " / ".join(Summary(sample(meta)).missing())
    for piece in ("interrupted", "not complete", "2 of 6 cells", "fewer than 4", "workloads: w3", "allocators: mimalloc"):
        assert piece in lines, (piece, lines)
    assert Summary(sample()).missing() == []


def test_bad_rows():
    """Non-ok runs are grouped by allocator, status and reason, with their cells and reps."""
    groups = Summary(sample()).bad_rows()
    assert list(groups) == [("jemalloc", "timeout", "killed after 1 s")], groups
    (cell, reps), = groups[("jemalloc", "timeout", "killed after 1 s")]
    assert (cell.workload, reps) == ("w2", [3]), (cell, reps)


def test_columns():
    """Counter columns are those with a value in an ok run; metric_ columns are listed apart."""
    data = sample()
    data["runs"][0]["minflt"] = 7
    data["runs"][0]["metric_score"] = 3.5
    data["runs"][-1]["cycles"] = 9  # the timed-out run: not a reason to show the counter
    s = Summary(data)
    assert s.counter_columns() == ["minflt"] and s.metric_columns() == ["metric_score"], s.counter_columns()



if __name__ == "__main__":
    sys.exit(testrun.run_functions(globals(), "cells"))
