"""fidelity.py - `heapbench compare --fidelity PROGRAM REPLAY`: a program's own run beside its replay's run,
matched by name, to check that the replay orders the allocators as the program does.

PROGRAM is a results directory of the program itself (`heapbench exec -w NAME` or `run -w prog:NAME`),
REPLAY one of its trace replayed (`run -w trace:DIR/NAME.hbt`); a program cell and a replay cell
match when the program's workload name, less `prog:`, is the trace file's name less `.hbt`, and
the allocator is the same. Per matched program and allocator: the program's median peak RSS and
wall time (with their rep ranges) beside the replay's median peak RSS and time less self
(heapbench.judged), each ranked (1 = smallest); then per figure: how many allocators have the same rank, how many pairs the
replay orders as the program does, and of the pairs *resolved* in the program (its rep ranges do not
overlap: one is above the other in every rep), how many the replay orders the same.
Memory is compared peak against peak, like with like: the program's peak RSS holds the allocator's
start-up memory (tcmalloc's is ~6.7 MB on /bin/true) and so does the replay's peak RSS (the replay's
`peak` phase, judged.replay_peak_kb), which also holds the replayer's own memory, the same under every
allocator (made resident at load, none added while replaying), so the allocators' order is the
programs' own; the replay's heap (its peak less its `load` RSS, which holds the start-up) is not, and
is left to the report. The output says so in its first line.
Always holds: only ok runs count; an allocator without ok runs on both sides is left out (and named);
exit 0 when every resolved pair is ordered the same, 1 when one is not, 2 when nothing matches.
"""
import itertools
import os
import sys

from heapbench import judged
from heapbench.median import median

# (figure, program label, replay label, scale): the program's runs.csv column, and for the replay the same key
# of replay_rows() (maxrss_kb: its peak RSS; wall_s: its replay less self)
FIGURES = (("maxrss_kb", "peak RSS (MiB)", "peak RSS (MiB)", 1 / 1024.0), ("wall_s", "wall (s)", "time less self (s)", 1.0))
TIMING = ("only pairs the program resolves are judged: where its rep ranges overlap, the order depends on timing "
          "that one trace cannot hold (a multithreaded program's interleaving, what a fixed-time program gets done), "
          "and the replay, which replays one recorded run, may go either way")
MEMORY = ("memory: peak against peak (the program's peak RSS; the replay's peak RSS, which holds the allocator's "
          "start-up memory as the program's does, and the replayer's own, the same under every allocator)")


def program_name(workload):
    """The name a program's workload matches a trace by: NAME of prog:NAME or NAME."""
    return workload[len("prog:"):] if workload.startswith("prog:") else workload


def trace_name(workload):
    """The name of a trace:FILE workload: FILE's base name less .hbt."""
    base = os.path.basename(workload[len(judged.TRACE_PREFIX):])
    return base[:-len(".hbt")] if base.endswith(".hbt") else base


def samples(runs, name_of, keep):
    """{(name, allocator): {column: [ok values]}} of the runs whose workload keep() accepts."""
    out = {}
    for row in runs:
        if row.get("status") != "ok" or not keep(row["workload"]):
            continue
        figures = out.setdefault((name_of(row["workload"]), row["allocator"]), {})
        for column, *_ in FIGURES:
            if isinstance(row.get(column), (int, float)):
                figures.setdefault(column, []).append(float(row[column]))
    return out


def ranks(medians):
    """{allocator: rank} by median, 1 = smallest."""
    return {a: i + 1 for i, a in enumerate(sorted(medians, key=medians.get))}


def resolved(reps, a, b):
    """True when every rep of a is below every rep of b or above every one (the ranges do not overlap)."""
    return max(reps[a]) < min(reps[b]) or max(reps[b]) < min(reps[a])


def agree(ref, other, a, b):
    """True when other's medians order a and b as ref's do (a tie in either: False)."""
    return (ref[a] - ref[b]) * (other[a] - other[b]) > 0


def order_counts(ref, reps, other):
    """(same rank, allocators, pairs ordered the same, pairs, resolved pairs ordered the same, resolved pairs)
    of the medians `other` against the program's medians `ref` and rep values `reps`."""
    allocs = sorted(ref)
    pairs = list(itertools.combinations(allocs, 2))
    res = [p for p in pairs if resolved(reps, *p)]
    rank_ref, rank_other = ranks(ref), ranks(other)
    return (sum(rank_ref[a] == rank_other[a] for a in allocs), len(allocs), sum(agree(ref, other, *p) for p in pairs),
            len(pairs), sum(agree(ref, other, *p) for p in res), len(res))


def program_table(name, prog, replay):
    """(lines of text, number of resolved pairs ordered otherwise) of one program and its replay."""
    allocs = sorted(a for a in prog if a in replay and all(prog[a].get(c) and replay[a].get(c) for c, *_ in FIGURES))
    lines = [f"{name}: the program against its replay, medians of ok runs (rank 1 = smallest)"]
    left = sorted(set(prog) ^ set(replay) | {a for a in set(prog) & set(replay) if a not in allocs})
    if left:
        lines.append(f"  left out (no ok run with both figures on both sides): {', '.join(left)}")
    if len(allocs) < 2:
        return lines + ["  fewer than 2 allocators on both sides: no order to compare"], 0
    head = ["allocator"]
    for _, prog_label, replay_label, _ in FIGURES:
        head += [f"program {prog_label} (min-max)", "rank", f"replay {replay_label}", "rank"]
    table, reversed_ = [head], 0
    meds = {c: ({a: median(prog[a][c]) for a in allocs}, {a: median(replay[a][c]) for a in allocs})
            for c, *_ in FIGURES}
    rank = {c: (ranks(p), ranks(r)) for c, (p, r) in meds.items()}
    for a in allocs:
        row = [a]
        for column, _, _, scale in FIGURES:
            p, r = meds[column]
            row += [f"{p[a] * scale:.4g} ({min(prog[a][column]) * scale:.4g}-{max(prog[a][column]) * scale:.4g})",
                    str(rank[column][0][a]), f"{r[a] * scale:.4g}", str(rank[column][1][a])]
        table.append(row)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    for column, prog_label, replay_label, _ in FIGURES:
        prog_meds, replay_meds = meds[column]
        same, n, agreed, pairs, res_agreed, res = order_counts(prog_meds, {a: prog[a][column] for a in allocs},
                                                               replay_meds)
        reversed_ += res - res_agreed
        lines.append(f"  replay {replay_label} against program {prog_label}: same rank {same} of {n}; pairs ordered "
                     f"the same {agreed} of {pairs}; of the {res} pairs resolved in the program, {res_agreed} "
                     "ordered the same")
    return lines, reversed_


def replay_rows(replay_data):
    """The replay's runs judged (wall_s: replay less self), each with maxrss_kb set to the replay's peak RSS
    (judged.replay_peak_kb) rather than its heap."""
    by_run = judged.trace_phases(replay_data.get("phases") or [])
    return [dict(row, maxrss_kb=judged.replay_peak_kb(row, by_run.get(row.get("run"), {})))
            for row in judged.judged(replay_data)["runs"] if judged.is_trace(row.get("workload"))]


def fidelity_main(prog_data, replay_data, prog_dir, replay_dir):
    """Prints the tables of every program of prog_data matched by a trace of replay_data; returns the exit status."""
    prog = samples(prog_data["runs"], program_name, lambda w: not judged.is_trace(w))
    replay = samples(replay_rows(replay_data), trace_name, judged.is_trace)
    names = sorted({n for n, _ in prog} & {n for n, _ in replay})
    if not names:
        sys.stderr.write(f"heapbench compare: --fidelity: no program of {prog_dir} "
                         f"({', '.join(sorted({n for n, _ in prog})) or 'none with ok runs'}) has a replay in "
                         f"{replay_dir} (traces: {', '.join(sorted({n for n, _ in replay})) or 'none with ok runs'}); "
                         "a program NAME (or prog:NAME) matches trace:.../NAME.hbt\n")
        return 2
    reversed_ = 0
    print(MEMORY)
    print(TIMING)
    for name in names:
        lines, bad = program_table(name, {a: f for (n, a), f in prog.items() if n == name},
                                   {a: f for (n, a), f in replay.items() if n == name})
        reversed_ += bad
        print("\n".join(lines))
    print(f"fidelity: {reversed_} pair(s) resolved in the program ordered otherwise by the replay"
          + ("" if reversed_ else " (none)"))
    return 1 if reversed_ else 0


def fidelity_check(parser, base, new):
    """Refuses with one line (exit 2) a comparison across hosts: a program and its replay are compared on one."""
    hosts = sorted({r.get("host") for r in base["runs"]} | {r.get("host") for r in new["runs"]})
    if len(hosts) > 1:
        parser.exit(2, f"heapbench compare: --fidelity: the runs are of several hosts ({', '.join(map(str, hosts))}); "
                       "run the program and its replay on one machine\n")

