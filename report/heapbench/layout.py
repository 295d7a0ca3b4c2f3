"""layout.py - where heapbench's own files are: under the source tree, or where install/LAYOUT put them.

Always holds: the Python side's one reader of the installed LAYOUT file, mapping paths by the
same rules as the runner (runner/base/layout.c): a source-tree path such as build/lib/libx.so or
allocators/registry.txt resolves under cli.ROOT in a source tree and through the LAYOUT lines when
the CLI says heapbench is installed ($HEAPBENCH_LAYOUT, set by the C CLI); results go to
$HEAPBENCH_RESULTS (set by the C CLI), else cli.ROOT/results.
"""
import functools
import os

from heapbench import cli
from heapbench.table import read_table


@functools.lru_cache(maxsize=None)
def _rows(layout_file):
    """[(source, destination)] of an installed LAYOUT file."""
    return [tuple(fields) for _, fields in read_table(layout_file, 2)]


def path(rel):
    """Where the source-tree path rel is (absolute paths unchanged)."""
    if os.path.isabs(rel):
        return rel
    layout_file = os.environ.get("HEAPBENCH_LAYOUT")
    if not layout_file:
        return os.path.join(cli.ROOT, rel)
    for src, dest in _rows(layout_file):
        folder = src[:-3] if src.endswith("/**") else src[:-2] if src.endswith("/*") else None
        if folder is None and rel == src:
            return os.path.join(cli.ROOT, dest)
        if folder is not None and (rel == folder or rel.startswith(folder + "/")):
            return os.path.join(cli.ROOT, dest) + rel[len(folder):]
    return os.path.join(cli.ROOT, "share", "heapbench", rel)


def results_dir():
    """Where new results directories go: $HEAPBENCH_RESULTS, else cli.ROOT/results (a source tree)."""
    return os.environ.get("HEAPBENCH_RESULTS") or os.path.join(cli.ROOT, "results")
