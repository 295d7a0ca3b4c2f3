"""replays.py - the report's view of trace:FILE cells (issue 12): fragmentation against the ideal,
throughput, the replayer's own cost, and the original program next to its replay.

Reads only phases.csv and runs.csv rows (docs/DATA.md, "The replayer's records"): per run, the
`load` phase's rss_kb is the replayer's own baseline, `ideal` carries the trace's peak live
requested bytes (with the program's own mapped bytes, trace format 2), `self` the replay without allocator calls, `replay` the replay itself and its
events, `original` the recorded program's own wall time and peak RSS.
Always holds: every figure is a median over the cell's ok runs that have the phases it needs;
a cell lacking them shows '-', never 0.
"""
import numpy as np

from heapbench.report.cells import variant_label
from heapbench.report.document import Section, Table
from heapbench.report.tables import fmt

TRACE_PREFIX = "trace:"
NEEDED = ("load", "self", "replay", "ideal")


def phases_by_run(summary):
    """run number -> {phase name: phase row} for the runs of trace workloads."""
    runs = {}
    for row in summary.data["phases"]:
        if str(row.get("workload", "")).startswith(TRACE_PREFIX):
            runs.setdefault(row["run"], {})[row["phase"]] = row
    return runs


def run_figures(run, phases):
    """The figures of one ok run, or None when its phases are incomplete."""
    if any(name not in phases for name in NEEDED) or not isinstance(run.get("maxrss_kb"), (int, float)):
        return None
    load, self_, replay, ideal = (phases[name] for name in NEEDED)
    ops = replay["ops"] or 0
    heap_kb = run["maxrss_kb"] - load["rss_kb"]
    ideal_kb = (ideal["live_bytes"] or 0) / 1024.0
    figures = {
        "peak_mib": run["maxrss_kb"] / 1024.0, "base_mib": load["rss_kb"] / 1024.0, "heap_mib": heap_kb / 1024.0,
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


def replay_table(summary, variant, by_run):
    """One trace variant: a row per allocator."""
    rows = []
    for alloc in summary.allocators:
        cell = summary.by_variant[variant].get(alloc)
        if cell is None:
            continue
        med = cell_medians(cell, by_run)
        rows.append([alloc] + [fmt(med.get(key)) for _, key in COLUMNS[1:]])
    return Table(f"{variant[1]} {variant_label(variant, len(summary.hosts) > 1)}".strip(),
                 [name for name, _ in COLUMNS], rows)


def section(summary):
    """The 'Replays' section, or None when the results hold no trace cell."""
    by_run = phases_by_run(summary)
    variants = [v for w in summary.workloads if w.startswith(TRACE_PREFIX) for v in summary.variants(w)]
    if not variants:
        return None
    text = ["Each trace:FILE cell replays a recorded program's malloc calls under the allocator "
            "(build/replay/hbreplay). The replayer's baseline is its RSS before any replayed allocation (the trace "
            "and its tables); heap = peak RSS minus that baseline; ideal = the trace's peak live requested bytes "
            "(with the memory the program mapped itself, replayed as such), "
            "so heap / ideal is the allocator's fragmentation and overhead (1.00 = none). The replayer's own cost is "
            "the same replay without allocator calls (phase self); allocator ns/event = (replay - self) / events. "
            "(Not a replay through bump, the trivial in-tree allocator: bump never reuses memory, so with the default "
            "--touch=first every page it hands out is a fresh page fault, and bump is slower than glibc there.) "
            "The original program's wall time and peak RSS were measured by heapbench record without the recorder, "
            "under the allocator it ran with then (its own process: interpreter, code and stack included)."]
    return Section("Replays", text=text, tables=[replay_table(summary, v, by_run) for v in variants])
