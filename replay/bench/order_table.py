"""order_table.py - the table of replay/bench/order.sh: do the allocators rank the same on peak
RSS in a program's replay as in the program itself, and is the program's order above its noise?

usage: order_table.py PROG EXEC_DIR BASE_DIR BASE_HEAP_BYTES REPLAY_DIR [REPLAY_DIR...]
EXEC_DIR holds `heapbench exec` of the program, BASE_DIR of its baseline command (the same binary
doing no work), BASE_HEAP_BYTES that command's own heap (its trace's peak live + mapped bytes:
the start-up's allocations and mappings, which the program's trace holds too), each REPLAY_DIR
of `hbreplay --trace` under one --touch mode (its name ends in the mode). The program's
non-heap baseline under an allocator is the baseline command's median peak RSS less
BASE_HEAP_BYTES. Prints, per allocator, the median peak RSS (KiB) of the program with
the range of its reps, the program's heap (peak minus that non-heap baseline), each replay's
peak RSS (its `peak` record) and heap (that peak minus the run's own `load` phase RSS), with
ranks (1 = smallest); then the strict count (same rank) and the pair counts: a pair of
allocators is *resolved* when the program's rep ranges do not overlap (one is above the other
in every rep), and a replay *agrees* on a pair when its medians order the pair the same way;
last, each allocator's replay heap against the program's heap (median over median, in %: the
heap fidelity), with the lowest and highest rep of the replay and of the program against the
program's median heap (their spread).
Run with PYTHONPATH=report (order.sh sets it): the ranks and pair counts are heapbench compare
--fidelity's (heapbench.compare.fidelity). Always holds: reads only runs.csv and phases.csv with the csv module; a run whose status is not
`ok` is left out; nothing is written.
"""
import csv
import os
import statistics
import sys

from heapbench.compare.fidelity import order_counts, ranks


def ok_rows(d, name):
    """The rows of d/name whose status is ok (phases.csv has no status: all rows)."""
    with open(os.path.join(d, name), newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("status", "ok") == "ok"]


def peaks(d):
    """allocator -> list of the runs' peak RSS (KiB)."""
    by = {}
    for r in ok_rows(d, "runs.csv"):
        by.setdefault(r["allocator"], []).append(float(r["maxrss_kb"]))
    return by


def phase_rss(d, phase):
    """(allocator, run) -> rss_kb of each run's phase `phase`."""
    return {(r["allocator"], r["run"]): float(r["rss_kb"]) for r in ok_rows(d, "phases.csv") if r["phase"] == phase}


def replay_peaks(d):
    """allocator -> list of each replay run's peak RSS (KiB): its `peak` phase (the replay pass's, the
    counter its `load` RSS is read from), else the process's maxrss_kb (a replayer without that record)."""
    peak = phase_rss(d, "peak")
    by = {}
    for r in ok_rows(d, "runs.csv"):
        by.setdefault(r["allocator"], []).append(peak.get((r["allocator"], r["run"]), float(r["maxrss_kb"])))
    return by


def replay_heaps(d):
    """allocator -> list of each run's peak RSS (replay_peaks) minus its `load` phase RSS (KiB)."""
    load, peak = phase_rss(d, "load"), phase_rss(d, "peak")
    by = {}
    for r in ok_rows(d, "runs.csv"):
        key = (r["allocator"], r["run"])
        if key in load:
            by.setdefault(r["allocator"], []).append(peak.get(key, float(r["maxrss_kb"])) - load[key])
    return by


def medians(by):
    return {a: statistics.median(v) for a, v in by.items() if v}


def pair_line(label, ref, reps, other, allocs):
    """One line of pair counts of `other` against the program's medians `ref` (the counts of
    heapbench compare --fidelity, heapbench.compare.fidelity.order_counts)."""
    ref, reps, other = ({a: m[a] for a in allocs} for m in (ref, reps, other))
    strict, n, same_all, pairs, same_res, res = order_counts(ref, reps, other)
    return (f"{label}: same rank {strict} of {n}; pairs ordered the same {same_all} of {pairs}; "
            f"of the {res} pairs resolved in the program, {same_res} ordered the same")


def spread(values, ref):
    """The lowest and highest of values against ref, in % ("-" when ref is not positive)."""
    if ref <= 0 or not values:
        return "-"
    return f"{100.0 * (min(values) / ref - 1):+.1f}..{100.0 * (max(values) / ref - 1):+.1f}%"


def fidelity_line(label, prog_heap, replay_heap, allocs, replay_reps, prog_reps):
    """Each allocator's replay heap against the program's heap, in % (+ = the replay's is larger),
    with the spread of the replay's reps and of the program's own reps against the program's median heap."""
    cells = ", ".join(f"{a} {100.0 * (replay_heap[a] / prog_heap[a] - 1):+.1f}% (replay reps {spread(replay_reps[a], prog_heap[a])}, "
                      f"program reps {spread(prog_reps[a], prog_heap[a])})" if prog_heap[a] > 0 else f"{a} -"
                      for a in allocs)
    return f"{label} against program heap: {cells}"


def main(argv):
    if len(argv) < 6 or not argv[4].isdigit():
        sys.stderr.write("usage: order_table.py PROG EXEC_DIR BASE_DIR BASE_HEAP_BYTES REPLAY_DIR [REPLAY_DIR...]\n")
        return 2
    prog, ex, base, base_heap, replays = argv[1], argv[2], argv[3], int(argv[4]) / 1024.0, argv[5:]
    reps = peaks(ex)
    prog_med = medians(reps)
    base_med = {a: m - base_heap for a, m in medians(peaks(base)).items()}
    allocs = sorted(prog_med, key=prog_med.get)
    prog_heap = {a: prog_med[a] - base_med.get(a, 0.0) for a in allocs}
    cols = [("program", prog_med), ("program heap", prog_heap)]
    rep_lists = {}
    for d in replays:
        mode = d.rsplit("-", 1)[-1]
        rep_lists[f"replay heap {mode}"] = replay_heaps(d)
        cols += [(f"replay {mode}", medians(replay_peaks(d))), (f"replay heap {mode}", medians(rep_lists[f"replay heap {mode}"]))]
    cols = [(n, m) for n, m in cols if all(a in m for a in allocs)]
    print(f"\n{prog}: peak RSS in KiB, medians of {min(len(v) for v in reps.values())}+ ok runs "
          f"(rank 1 = smallest); program reps min-max; baseline = the non-heap baseline: the baseline command's median "
          f"peak less its own heap, {base_heap:.0f} KiB")
    print("| allocator | program reps | baseline | " + " | ".join(f"{n} | rank" for n, _ in cols) + " |")
    print("| --- " * (3 + 2 * len(cols)) + "|")
    rk = {n: ranks(m) for n, m in cols}
    for a in allocs:
        cells = " | ".join(f"{m[a]:.0f} | {rk[n][a]}" for n, m in cols)
        print(f"| {a} | {min(reps[a]):.0f}-{max(reps[a]):.0f} | {base_med.get(a, 0):.0f} | {cells} |")
    heap_reps = {a: [x - base_med.get(a, 0.0) for x in reps[a]] for a in allocs}
    for n, m in cols[2:]:
        heap = "heap" in n
        print(pair_line(f"{n} against program{' heap' if heap else ''}", prog_heap if heap else prog_med,
                        heap_reps if heap else reps, m, allocs))
    for n, m in cols[2:]:
        if "heap" in n:
            print(fidelity_line(n, prog_heap, m, allocs, rep_lists[n], heap_reps))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
