"""worklist.py - the Python side's one reader of workloads/LIST, the default matrix (format: docs/DATA.md).

Always holds: entries come back in LIST order; `threads` is None for a workload without a thread
sweep (`-`); param sets are split on ';' and stripped. cells() spells each cell's command line as
the runner does (params + --threads=N for a thread sweep, + --quick for quick sets). The runner (C) has its own reader; both
follow docs/DATA.md.
"""
import os
from dataclasses import dataclass

from heapbench import layout
from heapbench.table import read_table

FIELDS = 5


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
    rows = []
    for _, f in read_table(list_path(root), FIELDS):
        threads = None if f[1] == "-" else [int(t) for t in f[1].split(",")]
        rows.append(Workload(f[0], threads, [p.strip() for p in f[2].split(";")],
                             [p.strip() for p in f[3].split(";")], f[4]))
    return rows


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
