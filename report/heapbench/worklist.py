"""worklist.py - the Python side's one reader of workloads/LIST, the default matrix (format: docs/DATA.md).

Always holds: entries come back in LIST order; `threads` is None for a workload without a thread
sweep (`-`); param sets are split on ';' and stripped, empty ones left out (one empty set when none). cells() spells each cell's command line as
the runner does (params + --threads=N for a thread sweep, + --quick for quick sets). The runner (C) has its own reader with the
same rules (test_twins.py compares the two on a corpus).
"""
import os
import re
from dataclasses import dataclass

from heapbench import layout
from heapbench.table import read_table, refuse, split

FIELDS = 5
MAX_THREADS = 64  # the runner's HB_MAX_THREADS: thread counts per workload
INT_MAX = 2 ** 31 - 1


@dataclass
class Workload:
    """One LIST line."""
    name: str
    threads: object  # list of ints, or None
    params: list
    quick: list
    description: str


def list_path(root=None):
    """Path of workloads/LIST under root (default: where heapbench's layout puts it)."""
    return os.path.join(root, "workloads", "LIST") if root else layout.path("workloads/LIST")


def read_list(root=None):
    """[Workload] of every LIST line."""
    rows, path, seen = [], list_path(root), set()
    for number, f in read_table(path, FIELDS):
        if not f[0] or f[0] in seen:
            refuse(path, number, "want 'name | threads | param sets | quick param sets | description' with a new name")
        seen.add(f[0])
        rows.append(Workload(f[0], _threads(path, number, f[1]), split(f[2], ";") or [""], split(f[3], ";") or [""], f[4]))
    return rows


def _threads(path, number, field):
    """A LIST line's thread sweep: None for '-', else 1 to MAX_THREADS counts "1,2,4" (the runner's
    hb_parse_int: an optional sign and digits, 0 to INT_MAX; empty pieces left out)."""
    if field == "-":
        return None
    pieces = split(field, ",")
    if not 0 < len(pieces) <= MAX_THREADS or not all(re.fullmatch(r"[+-]?[0-9]+", p) and 0 <= int(p) <= INT_MAX
                                                     for p in pieces):
        refuse(path, number, f"threads '{field}' is not '-' or a list like 1,2,4")
    return [int(p) for p in pieces]


def cells(rows, quick, root=None):
    """Every (name, argv) of one pass over rows (read_list()'s), in LIST order: the workload binary
    under root's build/workloads (default: where heapbench's layout puts it) with its params."""
    for w in rows:
        binary = os.path.join(root, "build", "workloads", w.name) if root else layout.path(f"build/workloads/{w.name}")
        for p in (w.quick if quick else w.params):
            for t in (w.threads or [None]):
                argv = [binary] + p.split()
                argv += [f"--threads={t}"] if t else []
                argv += ["--quick"] if quick else []
                yield w.name, argv
