"""test_memory_plots.py - the memory figures' placement of phase ends and their walk over cells, on hand-made rows.

Always holds: every expectation follows from the few rows written in the test (times, phase
names, allocator order); prints one PASS/FAIL line per test and exits 1 if any failed.
"""
import sys

from heapbench import testrun
from heapbench.report import plots_memory
from heapbench.report.cells import Summary


def phase(run, name, seconds, live=1024, rss_kb=4):
    """One phases.csv row as results.load() returns it."""
    return {"run": run, "phase": name, "seconds": seconds, "ops": 0, "live_bytes": live, "rss_kb": rss_kb}


def test_phase_ends_at_their_tagged_samples():
    """Each phase end sits at its tagged sample's t; a repeated name takes the tags in order."""
    rows = [phase(1, "load", 0.5), phase(1, "idle", 0.125), phase(1, "idle", 0.875)]
    timed = plots_memory.phase_times(rows, [("load", 0.5625), ("idle", 0.6875), ("idle", 1.5625)])
    assert [t for t, _ in timed] == [0.5625, 0.6875, 1.5625], timed


def test_a_late_tag_gives_way_to_the_chained_durations():
    """A tag the runner took late (descheduled, 62.5 ms) gives way to the previous end plus the duration."""
    rows = [phase(1, "load", 0.5), phase(1, "idle", 0.125), phase(1, "idle", 0.875)]
    timed = plots_memory.phase_times(rows, [("load", 0.5625), ("idle", 0.75), ("idle", 1.5625)])
    assert [t for t, _ in timed] == [0.5625, 0.6875, 1.5625], timed


def test_a_tag_within_the_slack_is_kept():
    """The durations leave out the writing of each record: a tag 1 ms past the chain is kept, so
    that gap never accumulates."""
    rows = [phase(1, "load", 0.5), phase(1, "idle", 0.125)]
    timed = plots_memory.phase_times(rows, [("load", 0.5), ("idle", 0.626)])
    assert [t for t, _ in timed] == [0.5, 0.626], timed


def test_phase_end_without_a_tag_follows_the_previous_end():
    """A phase whose record came after the process ended has no tag: previous end + its duration."""
    rows = [phase(1, "load", 0.5), phase(1, "idle", 0.25), phase(1, "free-all", 0.125)]
    timed = plots_memory.phase_times(rows, [("load", 0.75)])
    assert [t for t, _ in timed] == [0.75, 1.0, 1.125], timed


def test_sums_before_the_first_tag_do_not_pull_it_early():
    """Before any tag the sum of durations starts late in the process: the first tag is taken as it is."""
    rows = [phase(1, "load", 0.5), phase(1, "idle", 0.125)]
    timed = plots_memory.phase_times(rows, [("idle", 0.6875)])
    assert [t for t, _ in timed] == [0.5, 0.6875], timed


def test_results_without_tags_get_the_sum_of_durations():
    """Older results (rss.csv without `phase`): the running sum of the durations."""
    rows = [phase(1, "load", 0.5), phase(1, "idle", 0.25)]
    assert [t for t, _ in plots_memory.phase_times(rows)] == [0.5, 0.75]


def summary():
    """Server runs of three allocators, listed in meta.json as mimalloc, glibc, jemalloc but run
    (and their cells first met) as glibc, jemalloc, mimalloc; jemalloc has no phase rows."""
    order = ["glibc", "jemalloc", "mimalloc"]
    runs = [{"host": "h", "run": i + 1, "workload": "server", "allocator": a, "threads": 1, "params": "",
             "env": "", "rep": 1, "status": "ok", "reason": "", "wall_s": 1.0, "maxrss_kb": 10}
            for i, a in enumerate(order)]
    phases = [phase(r, "c1-load", 0.5) for r in (1, 3)]
    stats = [{"run": r, "phase": "c1-load", "layer": "allocated", "value": 2048} for r in (1, 3)]
    meta = {"allocators": {"mimalloc": {}, "glibc": {}, "jemalloc": {}}, "workloads": ["server"]}
    return Summary({"dir": "x", "meta": meta, "runs": runs, "phases": phases, "rss": [], "sizes": [],
                    "allocstats": stats})


def test_timeline_and_breakdown_walk_cells_in_one_order():
    """Both figures list their panels in the report's allocator order, skipping cells without data."""
    s = summary()
    timeline = [alloc for _, alloc, _ in plots_memory.timeline_runs(s)]
    breakdown = [alloc for _, alloc, _ in plots_memory.breakdown_panels(s)]
    assert s.allocators == ["mimalloc", "glibc", "jemalloc"], s.allocators
    assert timeline == ["mimalloc", "glibc"], timeline
    assert breakdown == timeline, breakdown


if __name__ == "__main__":
    sys.exit(testrun.run_functions(globals(), "memory_plots"))
