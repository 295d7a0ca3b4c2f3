"""test_fuzz.py - hypothesis fuzzing of the Python readers of runs.csv, phases.csv and meta.json, as
report, compare, merge and tune use them: every input ends in a result or a one-line error with exit 2.

Always holds: each example writes a results directory of fuzzed bytes (a real header with fuzzed
rows, a cut or non-UTF-8 tail, NaN/inf/negative/huge/text numbers, a meta.json of any JSON value)
into a temporary directory, then runs the subcommands' entry points in this process (report with
its drawing replaced by a no-op, so that an example takes milliseconds, not seconds; tune through
the reading half of its measure step: results.load() then measure_cells()). A subcommand may return 0 or 1 (a verdict, a
gap) or exit 2 with exactly one stderr line; any other exception, or a multi-line error, fails.
HB_FUZZ_EXAMPLES sets the examples per entry point (default 25: the short run of make test).
"""
import atexit
import collections
import contextlib
import csv
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

# hypothesis keeps a cache (.hypothesis/) in the current directory: keep it in a temporary one.
_STORAGE = tempfile.mkdtemp(prefix="hb-hypothesis-")
atexit.register(shutil.rmtree, _STORAGE, True)
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _STORAGE

from hypothesis import HealthCheck, given, settings, strategies as st

import datamd  # noqa: E402 (this folder's reader of the headers docs/DATA.md defines)
from heapbench import results  # noqa: E402 (after the storage directory is set)
from heapbench.compare import compare, merge
from heapbench.report import report
from heapbench.tune import measure

EXAMPLES = int(os.environ.get("HB_FUZZ_EXAMPLES", "25"))
RUNS = datamd.columns("runs.csv")  # the real headers, as docs/DATA.md defines them
PHASES = datamd.columns("phases.csv")
SPECIAL = ["", "1", "2", "0", "-1", "nan", "NaN", "inf", "-inf", "1e308", "1e-320", "0.5", "ok", "failed",
           "glibc", "jemalloc", "w", "h", "a,b", '"', "x\ny", "\x00", "é", "9" * 30, "free", "alloc"]
FIELD = st.one_of(st.sampled_from(SPECIAL), st.text(max_size=12))
META_OK = {"schema": 1, "run_id": "r", "host": "h", "cpu_model": "c", "reps": 2, "cells": 2, "shard": "1/1",
           "complete": True, "allocators": {"glibc": {"status": "found"}}, "workloads": ["w"], "envs": [""]}
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8)


@st.composite
def csv_bytes(draw, header):
    """A CSV: the real header, rows that start like real ones (schema 1, ok rows) with fuzzed fields,
    then maybe a cut tail or bytes that are not UTF-8."""
    rows = []
    for run in range(draw(st.integers(0, 5))):
        row = ["1", "r", "h", str(run + 1), "w", draw(st.sampled_from(["glibc", "jemalloc"])), "1", "", "", "1", "ok"]
        row += [draw(FIELD) for _ in range(len(header) - len(row) + draw(st.sampled_from([0, 0, 0, -1, 1])))]
        rows.append(row)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header] + rows)
    data = buf.getvalue().encode("utf-8", "surrogatepass")
    cut = draw(st.integers(0, 30))
    tail = draw(st.sampled_from([b"", b"", b"\xff\xfe", b"1,r,h,9," + b"x" * 200000 + b"\n"]))
    return data[:len(data) - cut] if cut < len(data) else data + tail


@st.composite
def meta_bytes(draw):
    """meta.json: heapbench's with fuzzed fields, any JSON value, or bytes."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        meta = dict(META_OK)
        for key in draw(st.lists(st.sampled_from(sorted(META_OK)), max_size=3)):
            meta[key] = draw(JSON)
        return json.dumps(meta).encode()
    if kind == 1:
        return json.dumps(draw(JSON)).encode()
    if kind == 2:
        return draw(st.sampled_from([b"[1, 2]", b"{", b"NaN", b'{"schema": NaN}', b"\xff", b""]))
    return json.dumps(META_OK).encode()


def write_dir(path, meta, runs, phases):
    """A results directory of the given bytes."""
    os.makedirs(path)
    for name, data in (("meta.json", meta), ("runs.csv", runs), ("phases.csv", phases)):
        with open(os.path.join(path, name), "wb") as fh:
            fh.write(data)


def outcome(func, *args):
    """Runs func(*args) with captured output: (status, stderr). SystemExit gives its code; any other
    exception propagates (a failure)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = func(*args)
        except SystemExit as done:
            status = done.code
    return status, err.getvalue()


class FuzzTest(unittest.TestCase):
    """Fuzzed results directories through every Python subcommand's reader."""

    def check(self, status, stderr):
        """A result (0 or 1) or a one-line error with exit 2."""
        self.assertIn(status, (0, 1, 2, None), stderr)
        if status == 2:
            self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)

    def fuzz(self, body):
        """Runs body(tmp, dir) over fuzzed directories."""
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(meta=meta_bytes(), runs=csv_bytes(RUNS), phases=csv_bytes(PHASES))
        def run(meta, runs, phases):
            with tempfile.TemporaryDirectory() as tmp:
                new = os.path.join(tmp, "new")
                write_dir(new, meta, runs, phases)
                body(tmp, new)
        run()

    def test_compare(self):
        """compare BASE NEW with NEW fuzzed (and NEW against itself)."""
        def body(tmp, new):
            base = os.path.join(tmp, "base")
            write_dir(base, json.dumps(META_OK).encode(),
                      (",".join(RUNS) + "\n" + ",".join(["1", "r", "h", "1", "w", "glibc", "1", "", "", "1", "ok", ""]
                                                        + ["1"] * (len(RUNS) - 12)) + "\n").encode(), b"")
            self.check(*outcome(compare.main, [base, new, "-o", tmp]))
            self.check(*outcome(compare.main, [new, new, "-o", tmp]))
        self.fuzz(body)

    def test_merge(self):
        """merge of a fuzzed directory, alone and with itself copied under another name."""
        def body(tmp, new):
            self.check(*outcome(merge.main, [new, "-o", os.path.join(tmp, "m1")]))
            self.check(*outcome(merge.main, [new, "--expect", "2", "-o", os.path.join(tmp, "m2")]))
        self.fuzz(body)

    def test_report(self):
        """report of a fuzzed directory (drawing replaced by a no-op)."""
        saved = report.draw_all
        report.draw_all = lambda *args: collections.defaultdict(lambda: None)
        try:
            self.fuzz(lambda tmp, new: self.check(*outcome(report.main, [new, "-o", os.path.join(tmp, "r")])))
        finally:
            report.draw_all = saved

    def test_tune(self):
        """tune's measure step reading a fuzzed directory: its points, or a ResultsError (one line)."""
        def body(tmp, new):
            try:  # measure_points() is the runner then results.load(); its reading part, here
                measure.measure_cells(results.load(new), "t")
            except results.ResultsError as err:
                self.assertEqual(len(str(err).splitlines()), 1, str(err))
        self.fuzz(body)


if __name__ == "__main__":
    sys.exit(unittest.main())
