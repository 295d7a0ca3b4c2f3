"""histfix.py - helpers of the history tests: synthetic results directories, the CLI, a temporary directory.

Always holds: every file is written under the test's own temporary directory; directories are
written by compare's test fixture (docs/DATA.md schema 1) with the machine facts a testbed
reads; the CLI is run as the user runs it (build/heapbench history ...), with HEAPBENCH_RESULTS
pointed into the temporary directory so nothing touches results/.
"""
import json
import os
import subprocess

import fixture  # compare's fixture writer (compare/tests, on the path through tests/run, report/py)

from heapbench import cli

ROOT = cli.ROOT
BIN = os.path.join(ROOT, "build", "heapbench")
FACTS = {"cores": 2, "kernel": "6.1.0-test", "thp": "madvise", "glibc_version": "2.36",
         "mem_total_kb": 24598016, "containment": "none: test", "virtualization": "vm"}


def write_run(directory, cells, run_id=None, host="hostA", facts=None, libraries=None, commit="0" * 40):
    """A whole results directory: fixture.fixture_write's, with machine facts, a commit and allocator libraries."""
    fixture.fixture_write(directory, cells, host=host, run_id=run_id)
    path = os.path.join(directory, "meta.json")
    with open(path) as fh:
        meta = json.load(fh)
    meta.update(FACTS if facts is None else facts)
    meta["git_commit"] = commit
    for name, lib in (libraries or {}).items():
        meta["allocators"][name] = dict(status="found", **lib)
    with open(path, "w") as fh:
        json.dump(meta, fh)
    return directory


def cell(wall, rss=1000, reps=3, jitter=0.001):
    """The metrics of one cell: wall_s around wall (rep i: wall * (1 + i * jitter)), maxrss_kb rss."""
    return {"wall_s": [wall * (1 + i * jitter) for i in range(reps)], "maxrss_kb": [rss] * reps}


def run_cli(args, tmp, env=None):
    """Runs build/heapbench history ARGS; returns CompletedProcess (text)."""
    full = dict(os.environ, HEAPBENCH_RESULTS=os.path.join(tmp, "results"), **(env or {}))
    full.pop("HEAPBENCH_HISTORY", None) if "HEAPBENCH_HISTORY" not in (env or {}) else None
    return subprocess.run([BIN, "history"] + list(args), capture_output=True, text=True, env=full, timeout=600)
