"""cells.py - groups the runs of a results directory into matrix cells and relates each to the baseline allocator.

Always holds: statistics are taken over `ok` runs only; a cell is compared only with the
baseline's cell of the same variant (host, workload, threads, params, env), so absolute
figures of different hosts are never mixed; non-ok runs are kept in Cell.rows and never
dropped from the counts. The baseline is glibc when it has ok runs, else the first
allocator (in meta order) that has.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from heapbench import judged, results
from heapbench.median import median

BAD_STATUSES = ("failed", "timeout", "crashed", "oom")
VARIANT_KEY = ("host", "workload", "threads", "params", "env")  # a cell without its allocator
# Counters of runs.csv shown in the counters section, in this order.
COUNTER_COLUMNS = ("minflt", "majflt", "page_faults", "task_clock_ms", "nvcsw", "nivcsw", "context_switches",
                   "cpu_migrations", "cycles", "instructions", "cache_misses", "branch_misses", "dtlb_load_misses",
                   "sys_mmap", "sys_munmap", "sys_mremap", "sys_madvise", "sys_brk", "sys_mprotect")


@dataclass
class Cell:
    """One matrix cell: every run row of one (host, workload, allocator, threads, params, env)."""
    host: str
    workload: str
    allocator: str
    threads: int
    params: str
    env: str
    rows: list = field(default_factory=list)
    cache: dict = field(default_factory=dict)  # ok rows and per-column figures; rows must not change after the first use

    @property
    def variant(self):
        """The cell key without the allocator: what the allocators are compared on."""
        return (self.host, self.workload, self.threads, self.params, self.env)

    def ok_rows(self):
        """Rows of the runs that succeeded (found once)."""
        if "ok" not in self.cache:
            self.cache["ok"] = results.ok_runs(self.rows)
        return self.cache["ok"]

    def spread(self, column):
        """(median, min, max) of a column over the ok runs, None when there is no value (computed once per column)."""
        key = ("spread", column)
        if key not in self.cache:
            vals = sorted(float(r[column]) for r in self.ok_rows() if isinstance(r.get(column), (int, float)))
            self.cache[key] = (median(vals), vals[0], vals[-1]) if vals else None
        return self.cache[key]

    def median(self, column):
        """Median of a column over the ok runs, None when there is no value."""
        figures = self.spread(column)
        return figures[0] if figures else None

    def statuses(self):
        """Set of the statuses of the cell's runs."""
        return {r["status"] for r in self.rows}


def _order(preferred, seen):
    """The names of preferred that were seen, then the other seen names sorted."""
    first = [name for name in preferred if name in seen]
    return first + sorted(set(seen) - set(first))


def variant_label(variant, multi_host=False):
    """Short text naming a variant inside one workload: threads ('4T'), params, env (and host when several)."""
    host, _, threads, params, env = variant
    parts = [f"{threads}T"] + ([params] if params else []) + ([env] if env else [])
    if multi_host:
        parts.insert(0, host)
    return " ".join(parts)


class Summary:
    """The cells of a loaded results dict (results.load) and the relations between them."""

    def __init__(self, data):
        """Builds the cells; data is the dict returned by results.load."""
        self.data = data
        self.meta = data["meta"]
        runs = judged.judged_runs(data["runs"], data["phases"])  # a replay is judged by its replay (judged.py)
        self.cells = {key: Cell(*key, rows=rows) for key, rows in results.group(runs).items()}
        meta_allocs = list(self.meta.get("allocators") or {})
        self.allocators = _order(meta_allocs, {c.allocator for c in self.cells.values()})
        self.workloads = _order(self.meta.get("workloads") or [], {c.workload for c in self.cells.values()})
        self.hosts = sorted({c.host for c in self.cells.values()})
        self.first_seen = {}  # params or env string -> position of its first run (keeps the matrix order)
        for row in sorted(data["runs"], key=lambda r: r["run"] if isinstance(r["run"], int) else 0):
            self.first_seen.setdefault(row["params"], len(self.first_seen))
            self.first_seen.setdefault(row["env"], len(self.first_seen))
        self.by_variant, self.by_allocator = {}, {}
        for cell in self.cells.values():
            self.by_variant.setdefault(cell.variant, {})[cell.allocator] = cell
            self.by_allocator.setdefault(cell.allocator, []).append(cell)
        with_ok = [a for a in self.allocators if any(c.ok_rows() for c in self.by_allocator[a])]
        self.baseline = "glibc" if "glibc" in with_ok else (with_ok[0] if with_ok else None)
        self.ops_by_run = self._phase_ops()
        self.present = None  # cache of _present()

    def _phase_ops(self):
        """run number -> total ops of its phases (the throughput numerator)."""
        ops = {}
        for row in self.data["phases"]:
            if isinstance(row.get("ops"), (int, float)):
                ops[row["run"]] = ops.get(row["run"], 0) + row["ops"]
        return ops

    def variants(self, workload):
        """The variants of a workload: by host, then env and params in order of first run, then threads."""
        found = [v for v in self.by_variant if v[1] == workload]
        return sorted(found, key=lambda v: (v[0], self.first_seen[v[4]], self.first_seen[v[3]], v[2]))

    def ratio(self, cell, column):
        """(median, min, max) of cell's column over the baseline cell's median; None if not comparable."""
        base = self.by_variant.get(cell.variant, {}).get(self.baseline)
        ref = base.median(column) if base else None
        figures = cell.spread(column)
        if not ref or not figures:
            return None
        return figures[0] / ref, figures[1] / ref, figures[2] / ref

    def workload_ratio(self, workload, allocator, column):
        """Geometric mean over the workload's variants of the allocator's median ratio; None if none compare."""
        ratios = []
        for variant in self.variants(workload):
            cell = self.by_variant[variant].get(allocator)
            ratio = self.ratio(cell, column) if cell else None
            if ratio and ratio[0] > 0:
                ratios.append(ratio[0])
        return geomean(ratios)

    def _present(self):
        """Columns with at least one value in an ok run (found once)."""
        if self.present is None:
            self.present = set()
            for cell in self.cells.values():
                for row in cell.ok_rows():
                    self.present.update(k for k, v in row.items() if v is not None and v != "")
        return self.present

    def counter_columns(self):
        """Counter columns with at least one value in an ok run, in COUNTER_COLUMNS order."""
        present = self._present()
        return [c for c in COUNTER_COLUMNS if c in present]

    def metric_columns(self):
        """metric_<NAME> columns (exec --metric) with a value in an ok run, sorted."""
        return sorted(k for k in self._present() if k.startswith("metric_"))

    def allocator_ratio(self, allocator, column):
        """(geomean over the allocator's cells of median / baseline median, number of cells compared)."""
        ratios = [r[0] for r in (self.ratio(c, column) for c in self.by_allocator.get(allocator, [])) if r and r[0] > 0]
        return geomean(ratios), len(ratios)

    def leaderboard(self):
        """Per allocator: dict with geomean time and peak-RSS ratios, compared/failed/skipped cell counts."""
        board = []
        for alloc in self.allocators:
            cells = self.by_allocator[alloc]
            time, compared = self.allocator_ratio(alloc, "wall_s")
            board.append({
                "allocator": alloc,
                "time": time, "rss": self.allocator_ratio(alloc, "maxrss_kb")[0], "compared": compared,
                "cells": len(cells),
                "failed": sum(1 for c in cells if c.statuses() & set(BAD_STATUSES)),
                "skipped": sum(1 for c in cells if "skipped" in c.statuses()),
            })
        return board

    def throughput(self, cell):
        """Median over ok runs of phase ops / wall (1 / wall when the workload reports no ops)."""
        vals = [(self.ops_by_run.get(r["run"]) or 1) / r["wall_s"]
                for r in cell.ok_rows() if isinstance(r.get("wall_s"), (int, float)) and r["wall_s"] > 0]
        return float(np.median(vals)) if vals else None

    def phase_medians(self):
        """variant -> (phase names in order, {(allocator, phase): (median rss_kb, median live_bytes)}) over ok runs."""
        ok_runs = {r["run"]: r for c in self.cells.values() for r in c.ok_rows()}
        samples = {}
        for row in self.data["phases"]:
            run = ok_runs.get(row["run"])
            if run is None or not isinstance(row.get("rss_kb"), (int, float)):
                continue
            variant = results.cell_key(run, VARIANT_KEY)
            names, values = samples.setdefault(variant, ([], {}))
            if row["phase"] not in names:
                names.append(row["phase"])
            values.setdefault((run["allocator"], row["phase"]), []).append((row["rss_kb"], row.get("live_bytes") or 0))
        return {v: (names, {k: tuple(float(x) for x in np.median(np.array(vals, dtype=float), axis=0))
                            for k, vals in values.items()})
                for v, (names, values) in samples.items()}

    def bad_rows(self):
        """Non-ok runs grouped by (allocator, status, reason) -> [(cell, [reps])], cells in execution order."""
        groups = {}
        for row in sorted(self.data["runs"], key=lambda r: r["run"] if isinstance(r["run"], int) else 0):
            if row["status"] != "ok":
                cell = self.cells[results.cell_key(row)]
                cells = groups.setdefault((row["allocator"], row["status"], row["reason"]), {})
                cells.setdefault(id(cell), (cell, []))[1].append(row["rep"])
        return {key: list(cells.values()) for key, cells in groups.items()}

    def missing(self):
        """Lines that say what a partial directory lacks; [] for a complete one."""
        lines = []
        meta = self.meta
        if meta.get("interrupted"):
            lines.append("the run was interrupted (meta.json interrupted=true)")
        if meta.get("complete") is False:
            lines.append("the run is not complete (meta.json complete=false): resume it with "
                         f"'heapbench run --resume {self.data['dir']}'")
        expected = meta.get("cells")
        if isinstance(expected, int) and len(self.cells) < expected:
            lines.append(f"{expected - len(self.cells)} of {expected} cells have no rows at all")
        reps = meta.get("reps")
        if isinstance(reps, int):
            short = [c for c in self.cells.values() if len(c.rows) < reps]
            if short:
                lines.append(f"{len(short)} cells have fewer than {reps} repetitions: "
                             + ", ".join(f"{c.workload}/{c.allocator}/{variant_label(c.variant)} ({len(c.rows)})"
                                         for c in short[:12]) + (" ..." if len(short) > 12 else ""))
        for kind, names, seen in (("workload", meta.get("workloads") or [], {c.workload for c in self.cells.values()}),
                                  ("allocator", list(meta.get("allocators") or {}), set(self.allocators))):
            absent = [n for n in names if n not in seen]
            if absent:
                lines.append(f"no rows for {kind}s: {', '.join(absent)}")
        return lines


def geomean(values):
    """Geometric mean of positive numbers, None for an empty list."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def series(rows, key, x, y):
    """Rows grouped by row[key] -> (x array, y array) sorted by x; rows with a non-numeric x or y are skipped."""
    groups = {}
    for row in rows:
        if isinstance(row.get(x), (int, float)) and isinstance(row.get(y), (int, float)):
            xs, ys = groups.setdefault(row[key], ([], []))
            xs.append(row[x])
            ys.append(row[y])
    out = {}
    for name, (xs, ys) in groups.items():
        order = np.argsort(xs, kind="stable")
        out[name] = (np.asarray(xs, dtype=float)[order], np.asarray(ys, dtype=float)[order])
    return out
