"""registry.py - the Python side's one reader of allocators/registry.txt (format: docs/DATA.md).

Always holds: entries come back in file order; `library` is the first candidate path that exists
(root-relative candidates such as build/lib/... resolved against the project root), "" for the
system allocator (libraries `-`), None when no candidate exists (not installed or not built);
a candidate with glob characters stands for its matches, the highest version first (version_key,
the order of the runner's strverscmp). The runner (C) has its own reader with the same rules (test_twins.py compares the two on a corpus).
"""
import glob
import os
import re
from dataclasses import dataclass

from heapbench import layout
from heapbench.table import read_table, refuse

FIELDS = 6
MATRIX = ("default", "opt-in")
# the registry file, as docs/DATA.md names it
NAMES = ("registry.txt",)


@dataclass
class Allocator:
    """One registry line."""
    name: str
    libraries: str  # the candidates as written (':'-separated, or '-')
    package: str
    version: str
    tunables: str
    matrix: str  # default or opt-in
    library: object  # resolved path, "" (system allocator) or None (missing)


def registry_path(root=None):
    """Path of the registry file under root (default: where heapbench's layout puts it)."""
    candidates = [os.path.join(root, "allocators", n) if root else layout.path("allocators/" + n) for n in NAMES]
    found = [c for c in candidates if os.path.exists(c)]
    return found[0] if found else candidates[0]


def version_key(path):
    """Sort key ordering paths as versions (llvm-9 < llvm-14): digit runs compared as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", path)]


def resolve(libraries, root=None):
    """The first existing candidate of a libraries field; "" for '-'; None when none exists."""
    if libraries == "-":
        return ""
    for lib in libraries.split(":"):
        path = os.path.join(root, lib) if root else layout.path(lib)
        matches = sorted(glob.glob(path), key=version_key, reverse=True) if glob.has_magic(path) else [path]
        for match in matches:
            if os.path.exists(match):
                return match
    return None


def read_registry(root=None):
    """{name: Allocator} of every registry line, in file order."""
    out, path = {}, registry_path(root)
    for number, f in read_table(path, FIELDS):
        if not f[0] or not f[1] or f[5] not in MATRIX:
            refuse(path, number, "want 'name | libraries | package | version | tunables | default|opt-in' "
                   "with a name and libraries")
        out[f[0]] = Allocator(*f, library=resolve(f[1], root))
    return out
