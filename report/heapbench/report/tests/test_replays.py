"""test_replays.py - unit tests of how the report judges replays (trace:FILE cells): by the replay
phase less the replayer's own for time, by the heap (peak RSS less the load phase's RSS) for memory,
in the leaderboard, the every-cell table and the Replays section, and its warning when a replay held
far more memory than the program did.

Always holds: every expectation is computed here from the few numbers written in the test; prints
one PASS/FAIL line per test and exits 1 if any failed.
"""
import sys

from heapbench import testrun
from heapbench.report import replays, tables
from heapbench.report.cells import Summary

TRACE = "trace:/t/p.hbt"
LOAD_KB = 500000  # the replayer's baseline: dominates every peak RSS


def trace_run(run, alloc, rep, wall, peak):
    """One ok runs.csv row of the trace workload."""
    return {"host": "h", "run": run, "workload": TRACE, "allocator": alloc, "threads": 1, "params": "", "env": "",
            "rep": rep, "status": "ok", "reason": "", "wall_s": wall, "maxrss_kb": peak, "minflt": None}


def phase(run, alloc, name, seconds, rss, live=0):
    """One phases.csv row of the trace workload."""
    return {"run": run, "workload": TRACE, "allocator": alloc, "phase": name, "seconds": seconds, "ops": 1000 if
            name == "replay" else 0, "live_bytes": live, "rss_kb": rss}


def sample(figures, original_kb=None, drop=()):
    """Three reps per allocator; figures: {alloc: (replay less self s, heap KiB)}; the process's wall time is
    2 s of loading plus the replay, its peak RSS LOAD_KB plus the heap; ideal 10 MiB; original_kb: the
    program's own peak RSS (an `original` phase); drop: phase names left out of every run."""
    runs, phases, run = [], [], 0
    for alloc, (replay_s, heap_kb) in figures.items():
        for rep in (1, 2, 3):
            run += 1
            r, h = replay_s * (1 + 0.01 * rep), heap_kb + rep
            runs.append(trace_run(run, alloc, rep, 2.0 + 0.3 + r, LOAD_KB + h))
            rows = [phase(run, alloc, "load", 2.0, LOAD_KB), phase(run, alloc, "self", 0.3, LOAD_KB + 5),
                    phase(run, alloc, "replay", 0.3 + r, LOAD_KB + h), phase(run, alloc, "ideal", 0.5, 0, 10 << 20)]
            if original_kb:
                rows.append(phase(run, alloc, "original", 1.0, original_kb))
            phases += [p for p in rows if p["phase"] not in drop]
    return {"dir": "x", "meta": {"allocators": {a: {} for a in figures}, "reps": 3, "workloads": [TRACE]},
            "runs": runs, "phases": phases, "rss": [], "sizes": []}


def test_leaderboard_judges_the_replay():
    """jemalloc's replay takes half glibc's time and three times its heap: the leaderboard says 0.50x and 3.00x,
    although the process's wall time and peak RSS (loading, baseline) differ by a few percent."""
    board = {b["allocator"]: b for b in Summary(sample({"glibc": (0.4, 10000), "jemalloc": (0.2, 30000)})).leaderboard()}
    time = (0.2 * 1.02) / (0.4 * 1.02)
    assert abs(board["jemalloc"]["time"] - time) < 1e-9, board["jemalloc"]
    assert abs(board["jemalloc"]["rss"] - 30002 / 10002) < 1e-9, board["jemalloc"]


def test_missing_phase_is_no_figure():
    """A replay run without its self phase has no time (never the process's wall time): no time ratio."""
    board = {b["allocator"]: b for b in Summary(sample({"glibc": (0.4, 10000), "jemalloc": (0.2, 30000)},
                                                       drop=("self",))).leaderboard()}
    assert board["jemalloc"]["time"] is None and abs(board["jemalloc"]["rss"] - 30002 / 10002) < 1e-9, board


def test_workload_table_names_the_replay_figures():
    """The every-cell table of a trace workload shows replay - self and the heap, and says so."""
    table = tables.workload_table(Summary(sample({"glibc": (0.4, 10240), "jemalloc": (0.2, 20480)})), TRACE)
    assert table.columns[3] == "median replay - self (s)" and table.columns[5] == "median heap (MiB)", table.columns
    row = {r[1]: r for r in table.rows}
    assert row["glibc"][3] == tables.fmt(0.4 * 1.02) and row["glibc"][5] == tables.fmt(10242 / 1024.0), row
    assert "heap (peak RSS less the load phase's RSS)" in table.note, table.note


def test_replays_section_keeps_the_process_peak():
    """The Replays table's peak RSS is the process's, its heap the judged one."""
    section = replays.section(Summary(sample({"glibc": (0.4, 10240)})))
    row = section.tables[0].rows[0]
    cols = section.tables[0].columns
    assert row[cols.index("peak RSS (MiB)")] == tables.fmt((LOAD_KB + 10242) / 1024.0), row
    assert row[cols.index("heap = peak - baseline (MiB)")] == tables.fmt(10242 / 1024.0), row


def test_warns_when_heap_far_above_the_program():
    """The program's peak RSS was 20 MiB for an ideal of 10 MiB (its heap / ideal at most 2): glibc's replay
    heap of 12 MiB passes, jemalloc's 80 MiB (heap / ideal 8) is named in a warning and its row flagged."""
    section = replays.section(Summary(sample({"glibc": (0.4, 12 << 10), "jemalloc": (0.2, 80 << 10)},
                                             original_kb=20 << 10)))
    warnings = [t for t in section.text if t.startswith("Warning")]
    assert len(warnings) == 1 and "under jemalloc" in warnings[0] and "heap / ideal is 8" in warnings[0], warnings
    assert section.tables[0].flagged == {1}, section.tables[0].flagged


def test_no_warning_without_the_program():
    """Without the program's own figures (no original phase) nothing is claimed about it."""
    section = replays.section(Summary(sample({"glibc": (0.4, 12 << 10), "jemalloc": (0.2, 80 << 10)})))
    assert not [t for t in section.text if t.startswith("Warning")] and not section.tables[0].flagged


if __name__ == "__main__":
    sys.exit(testrun.run_functions(globals(), "replays"))
