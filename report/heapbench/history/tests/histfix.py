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


def write_run(directory, cells, run_id=None, host="hostA", facts=None, libraries=None, commit="0" * 40, tested=None):
    """A whole results directory: fixture.fixture_write's, with machine facts, a commit and allocator libraries."""
    fixture.fixture_write(directory, cells, host=host, run_id=run_id)
    path = os.path.join(directory, "meta.json")
    with open(path) as fh:
        meta = json.load(fh)
    meta.update(FACTS if facts is None else facts)
    meta["git_commit"] = commit
    if tested:  # run --commit's field
        meta["tested_commit"] = tested
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


def check_commits(test, db, tmp):
    """The commit under test through `history add` into db (an SQLite file or a PostgreSQL URL), asserted
    on test: --commit is kept, an explicit label that is a hash or git describe's output gives it, any
    other label and the default label give none, every Point of a run carries it, and --commit that
    names no commit is one line, exit 2, nothing added."""
    from heapbench.history.store import open_store
    cases = [(["--label", "v1", "--commit", "ABC1234"], "abc1234"), (["--label", "deadbeef01"], "deadbeef01"),
             (["--label", "v1.2-3-g0123abc"], "0123abc"), (["--label", "v3"], None), ([], None),
             (["--label", "v4"], "feed123"), (["--label", "v5", "--commit", "beef456"], "beef456"),
             (["--label", "deadbeef02"], "feed123")]
    tested = {5: "feed123", 6: "feed123", 7: "feed123"}  # run --commit's meta.json field: taken unless --commit is given
    for i, (words, _) in enumerate(cases):
        directory = write_run(os.path.join(tmp, f"c{i}"), {("churn", "glibc", 1, "", ""): cell(1.0)}, run_id=f"c{i}",
                              tested=tested.get(i))
        done = run_cli(["add", "--db", db] + words + [directory], tmp)
        test.assertEqual(done.returncode, 0, done.stderr)
    refused = run_cli(["add", "--db", db, "--commit", "no-such-rev", directory], tmp)
    test.assertEqual(refused.returncode, 2, refused.stderr)
    test.assertEqual(len(refused.stderr.strip().splitlines()), 1, refused.stderr)
    test.assertIn("not a commit hash", refused.stderr)
    store = open_store(db, readonly=True)
    try:
        name = store.testbeds()[0].name
        test.assertEqual([r.tested_commit for r in store.runs(name)], [want for _, want in cases])
        series = store.series(name, "churn/glibc/t1", "wall_s")
    finally:
        store.close()
    test.assertEqual([p.tested_commit for p in series], [want for _, want in cases])
    import csv
    done = run_cli(["export", "--db", db, "--format", "csv", "--metric", "wall_s"], tmp)
    test.assertEqual(done.returncode, 0, done.stderr)
    rows = list(csv.DictReader(done.stdout.splitlines()))
    test.assertEqual([r["tested_commit"] for r in rows], [want or "" for _, want in cases])
