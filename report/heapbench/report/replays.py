"""replays.py - the report's view of trace:FILE cells: fragmentation against the ideal,
throughput, the replayer's own cost, and the original program next to its replay.

Reads only phases.csv and runs.csv rows (docs/DATA.md, "The replayer's records"): per run, the
`load` phase's rss_kb is the replayer's own baseline, `peak` the replay's peak RSS (judged.replay_peak_kb), `ideal` carries the trace's peak live
requested bytes (with the program's own mapped bytes, trace format 2), `self` the replay without allocator calls, `replay` the replay itself and its
events, `original` the recorded program's own wall time and peak RSS.
A replay whose heap / ideal is more than FAR times the program's own peak RSS / ideal (an upper
bound of the program's heap / ideal: its peak RSS holds its heap and more) is named in a warning
above the table and its row flagged: the replay held far more memory than the program ever had.
Always holds: every figure is a median over the cell's ok runs that have the phases it needs;
a cell lacking them shows '-', never 0.
"""
import numpy as np

from heapbench import judged
from heapbench.judged import TRACE_PREFIX
from heapbench.report.cells import variant_label
from heapbench.report.document import Section, Table
from heapbench.report.tables import fmt

NEEDED = ("load", "self", "replay", "ideal")
FAR = 1.5  # heap / ideal this many times the program's peak RSS / ideal gets a warning


def phases_by_run(summary):
    """run number -> {phase name: phase row} for the runs of trace workloads."""
    return judged.trace_phases(summary.data["phases"])


def run_figures(run, phases):
    """The figures of one ok run, or None when its phases are incomplete."""
    peak_kb = judged.replay_peak_kb(run, phases)
    if any(name not in phases for name in NEEDED) or not isinstance(peak_kb, (int, float)):
        return None
    load, self_, replay, ideal = (phases[name] for name in NEEDED)
    ops = replay["ops"] or 0
    heap_kb = peak_kb - load["rss_kb"]
    ideal_kb = (ideal["live_bytes"] or 0) / 1024.0
    figures = {
        "peak_mib": peak_kb / 1024.0, "base_mib": load["rss_kb"] / 1024.0, "heap_mib": heap_kb / 1024.0,
        "ideal_mib": ideal_kb / 1024.0, "frag": heap_kb / ideal_kb if ideal_kb > 0 else None,
        "mops": ops / replay["seconds"] / 1e6 if replay["seconds"] > 0 else None,
        "self_ns": 1e9 * self_["seconds"] / ops if ops else None,
        "alloc_ns": 1e9 * (replay["seconds"] - self_["seconds"]) / ops if ops else None,
        "replay_s": replay["seconds"],
    }
    original = phases.get("original")
    if original:
        figures["orig_s"] = original["seconds"]
        figures["orig_mib"] = original["rss_kb"] / 1024.0
    return figures


def cell_medians(cell, by_run):
    """Median of every figure over the cell's ok runs that have it."""
    per_run = [f for f in (run_figures(r, by_run.get(r["run"], {})) for r in cell.ok_rows()) if f]
    keys = {k for f in per_run for k in f}
    return {k: float(np.median([f[k] for f in per_run if f.get(k) is not None]))
            for k in keys if any(f.get(k) is not None for f in per_run)}


COLUMNS = [("allocator", None), ("peak RSS (MiB)", "peak_mib"), ("replayer baseline (MiB)", "base_mib"),
           ("heap = peak - baseline (MiB)", "heap_mib"), ("ideal (MiB)", "ideal_mib"),
           ("heap / ideal (fragmentation)", "frag"), ("M events/s", "mops"),
           ("replayer's own ns/event", "self_ns"), ("allocator ns/event", "alloc_ns"),
           ("replay (s)", "replay_s"), ("original program (s)", "orig_s"), ("original peak RSS (MiB)", "orig_mib")]


def far_above(med):
    """The program's own peak RSS / ideal when the replay's heap / ideal is more than FAR times it, else None."""
    if med.get("frag") is None or not med.get("orig_mib") or not med.get("ideal_mib"):
        return None
    own = med["orig_mib"] / med["ideal_mib"]
    return own if med["frag"] > FAR * own else None


def replay_table(summary, variant, by_run):
    """One trace variant: (its table, a row per allocator, and the warnings of its flagged rows)."""
    rows, flagged, warnings = [], set(), []
    title = f"{variant[1]} {variant_label(variant, len(summary.hosts) > 1)}".strip()
    for alloc in summary.allocators:
        cell = summary.by_variant[variant].get(alloc)
        if cell is None:
            continue
        med = cell_medians(cell, by_run)
        own = far_above(med)
        if own is not None:
            flagged.add(len(rows))
            warnings.append(f"Warning: {title} under {alloc}: heap / ideal is {med['frag']:.3g}, more than {FAR:g} "
                            f"times the program's own peak RSS / ideal ({own:.3g}; its peak RSS was "
                            f"{med['orig_mib']:.3g} MiB, so its heap / ideal was at most that): the replay held far "
                            "more memory than the program did, so its memory figures do not stand for the "
                            "program's. A multithreaded program whose threads are replayed without the order "
                            "between them does this: compare its allocators' order with the program's "
                            "(heapbench compare --fidelity) before trusting it.")
        rows.append([alloc] + [fmt(med.get(key)) for _, key in COLUMNS[1:]])
    return Table(title, [name for name, _ in COLUMNS], rows, flagged=flagged), warnings


def section(summary):
    """The 'Replays' section, or None when the results hold no trace cell."""
    by_run = phases_by_run(summary)
    variants = [v for w in summary.workloads if w.startswith(TRACE_PREFIX) for v in summary.variants(w)]
    if not variants:
        return None
    text = ["Each trace:FILE cell replays a recorded program's malloc calls under the allocator "
            "(build/replay/hbreplay). The replayer's baseline is its RSS before any replayed allocation (the trace "
            "and its tables, its threads' stacks and cursors: all made resident then, none added while replaying); "
            "heap = the replay's peak RSS minus that baseline, both read by the replayer from the kernel's one "
            "counter (its high-water mark reset when the baseline is read), resolution one page (4 KiB); ideal = the trace's peak live requested bytes "
            "(with the memory the program mapped itself, replayed as such), "
            "so heap / ideal is the allocator's fragmentation and overhead (1.00 = none; below 1.00 when the program left "
            "pages of its blocks unwritten, which a trace of format 4 records and the replay leaves unwritten too). "
            "The replayer's own cost is "
            "the same replay without allocator calls (phase self); allocator ns/event = (replay - self) / events. "
            "(Not a replay through bump, the trivial in-tree allocator: bump never reuses memory, so with the default "
            "--touch=first every page it hands out is a fresh page fault, and bump is slower than glibc there.) "
            "The original program's wall time and peak RSS were measured by heapbench record without the recorder, "
            "under the allocator it ran with then (its own process: interpreter, code and stack included). "
            "Everywhere else in this report (leaderboard, every-cell tables, charts) a trace cell is judged by its "
            "replay alone: its time is the replay less the replayer's own (self), its memory the heap."]
    made = [replay_table(summary, v, by_run) for v in variants]
    text += [w for _, warnings in made for w in warnings]
    return Section("Replays", text=text, tables=[table for table, _ in made])
