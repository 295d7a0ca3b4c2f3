"""results.py - reads and writes heapbench results directories (docs/DATA.md, schema 1); the cell key and grouping.

The one place on the Python side that knows the file layout (runs, phases, rss, sizes, allocstats,
latency CSVs, meta.json); the latency histograms' arithmetic is heapbench.latency.
Always holds: load() checks that the
directory is a results directory of the schema this code reads, and raises ResultsError
with a message that says what is wrong and what to do; callers print it and exit 2.
Rows come back as dicts of strings, with numeric columns converted (empty -> None).
Whatever the bytes of the files (not UTF-8, a meta.json that is not an object, a field beyond
the csv module's limit, a row cut short, NaN, inf, a negative count or text in a numeric
column), the reader raises ResultsError naming the file and line, never another exception.
LazyRows.column/where, which read a big file for a few runs, check every row's schema and length
and the column they filter on, and the other fields of the rows they return only.
"""
import csv
import json
import math
import os
import re
import subprocess

from heapbench import latency

SCHEMA = 1

# Columns that are not numbers; every other column of a results CSV is numeric or empty.
TEXT_COLUMNS = {"schema", "run_id", "host", "workload", "allocator", "params", "env",
                "status", "reason", "served_by", "phase", "thp", "own_allocator", "api", "stat", "layer", "op",
                "buckets", "records"}

# A matrix cell; MATCH_KEY pairs cells of two runs (the host is kept as an axis beside it).
CELL_KEY = ("host", "workload", "allocator", "threads", "params", "env")
MATCH_KEY = CELL_KEY[1:]


# The physical range of each numeric column of COUNT_FILES, both ends included (docs/DATA.md
# "Physical ranges"): times end at 2^64 ns, sizes at 2^64 bytes, counts at 2^64. "metric_*" is
# every user metric (far enough from a double's limit that sums, squares and ratios stay
# finite); "*" every other numeric column (a count). heapbench check's table is the same
# (runner/cli/content.c hb_content_ranges; runner/tests/judge.sh compares them).
RANGES = {
    "exit_code": (0, 255),
    "signal": (1, 64),
    "value": (-9223372036854775808.0, 18446744073709551616.0),
    "wall_s": (0, 18446744073.709552),
    "user_s": (0, 18446744073.709552),
    "sys_s": (0, 18446744073.709552),
    "seconds": (0, 18446744073.709552),
    "t": (0, 18446744073.709552),
    "task_clock_ms": (0, 18446744073709.552),
    "maxrss_kb": (0, 18014398509481984.0),
    "rss_kb": (0, 18014398509481984.0),
    "anon_huge_kb": (0, 18014398509481984.0),
    "metric_*": (-1e100, 1e100),
    "*": (0, 18446744073709551616.0),
}


def range_of(name):
    """(low, high) of numeric column name: its own, metric_*'s, or the counts'."""
    if name in RANGES:
        return RANGES[name]
    return RANGES["metric_*" if name.startswith("metric_") else "*"]


# A number field, as check reads it: [-]digits[.digits][e[+-]digits] (or [-].digits...).
NUMBER = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")


class ResultsError(Exception):
    """A directory that cannot be read as heapbench results (message says why and what to do)."""


def _number(text):
    """A CSV field as int (no '.' or exponent) or float; None when empty. Raises ValueError when
    the text is not a finite number."""
    if not text:
        return None
    if not NUMBER.fullmatch(text):
        raise ValueError("not a number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    if value.is_integer() and "." not in text and "e" not in text and "E" not in text:
        return int(text)
    return value


# The files whose numeric columns are counts, times or sizes (other CSVs, e.g. hyperfine.csv's
# diff_pct, may hold negative numbers).
COUNT_FILES = {"runs.csv", "phases.csv", "rss.csv", "sizes.csv", "allocstats.csv", "latency.csv"}


def _lenient(text):
    """A field of a CSV outside COUNT_FILES: a finite number when it reads as one, else the text."""
    try:
        return _number(text)
    except ValueError:
        return text


def _converter(name, counts=True):
    """The conversion of column name: None for text, else a function of (text) -> number or None
    (counts: a file of COUNT_FILES, whose numbers must be finite and within the column's physical
    range, range_of; else numbers where the text reads as one)."""
    if name in TEXT_COLUMNS:
        return None
    if not counts:
        return _lenient
    low, high = range_of(name)

    def within(text):
        """A number within the column's physical range."""
        value = _number(text)
        if value is not None and not low <= float(value) <= high:
            raise ValueError(f"outside the column's physical range [{low:.9g}, {high:.9g}] (docs/DATA.md)")
        return value
    return within


def _fail(path, line, what):
    """The ResultsError of a malformed results file (what to do: the file is damaged)."""
    return ResultsError(f"{path}:{line}: {what}; the file is damaged or not written by heapbench "
                        "(re-run, or 'heapbench run --resume DIR' for a run that was cut)")


def iter_csv(path):
    """Yields (line number, list of fields) for every row of a CSV, the header first (line 1).

    Raises ResultsError (never UnicodeDecodeError or csv.Error) on bytes that are not UTF-8, a
    field beyond the csv module's limit, or a NUL byte.
    """
    line = 1
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            for fields in reader:
                line = reader.line_num
                yield line, fields
        if not _ends_in_newline(path):
            raise _fail(path, line, "the last line is partial (a write cut short)")
    except UnicodeDecodeError as err:
        raise _fail(path, line + 1, f"bytes that are not UTF-8 text ({err.reason})") from None
    except csv.Error as err:
        raise _fail(path, line + 1, f"not CSV ({err})") from None
    except OSError as err:
        raise ResultsError(f"{path}: cannot read ({err.strerror})") from None


def _ends_in_newline(path):
    """True when the file is empty or its last byte is a newline (else its last line was cut)."""
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        return size == 0 or (fh.seek(size - 1) is not None and fh.read(1) == b"\n")


def read_header(path):
    """The header of a results CSV (its first column "schema"), or None when the file is absent."""
    if not os.path.exists(path):
        return None
    for _, header in iter_csv(path):
        if not header or header[0] != "schema":
            break
        twice = sorted({name for name in header if header.count(name) > 1})
        if twice:
            raise _fail(path, 1, f"column {twice[0]} appears twice in the header")
        return header
    raise ResultsError(f"{path}: no 'schema' header column; not a heapbench results file")


def read_csv(path, required=True):
    """Rows of one results CSV as dicts; [] when the file is absent and not required.

    Text columns (TEXT_COLUMNS) stay strings ("" when empty); every other column becomes a
    number, or None when empty. Every row must carry this code's schema.
    """
    header = read_header(path)
    if header is None:
        if required:
            raise ResultsError(f"{path}: missing; is this a heapbench results directory (results/<run-id>/)?")
        return []
    convert = _converters(path, header)
    schema = str(SCHEMA)
    rows = []
    for line, fields in iter_csv(path):
        if line == 1 or not fields:
            continue
        if fields[0] != schema:
            raise ResultsError(f"{path}:{line}: schema {fields[0]!r}, this heapbench reads schema {SCHEMA}; "
                               "re-run the benchmark with this version or use the matching heapbench")
        if len(fields) != len(header):
            raise _fail(path, line, f"{len(fields)} fields where the header has {len(header)} (a row cut short?)")
        rows.append(_convert_row(path, line, header, convert, fields))
    return rows


def _check_buckets(path, line, row):
    """A latency.csv row's buckets: check's rule (latency.parse_buckets with its samples)."""
    if "buckets" in row:
        try:
            latency.parse_buckets(row["buckets"], row.get("samples"))
        except ValueError as err:
            raise _bad_field(path, line, "buckets", row["buckets"], err) from None


def _convert_row(path, line, header, convert, fields):
    """One row as a dict with its numeric columns converted; ResultsError naming the bad column."""
    row = {}
    for name, conv, value in zip(header, convert, fields):
        try:
            row[name] = conv(value) if conv else value
        except ValueError as err:
            raise _bad_field(path, line, name, value, err) from None
        if name == "schema" and value != str(SCHEMA):
            raise ResultsError(f"{path}:{line}: schema {value[:40]!r}, this heapbench reads schema {SCHEMA}; "
                               "re-run the benchmark with this version or use the matching heapbench")
    _check_buckets(path, line, row)
    return row


def _bad_field(path, line, name, value, err):
    """The ResultsError of a field whose text is not a valid value of its column."""
    return _fail(path, line, f"column {name} is {value[:40]!r}: {err}")


def write_csv(path, header, rows):
    """Writes a results CSV whole: header (its first column "schema") and rows, under a temporary
    name then renamed into place, so a reader never sees half a file. None is written as ""."""
    if not header or header[0] != "schema":
        raise ValueError(f"{path}: a heapbench CSV starts with the 'schema' column")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
    os.replace(tmp, path)


def read_meta(directory):
    """meta.json of a results directory as a dict; ResultsError when it is absent, not a JSON
    object, of another schema, or its fields used here (host, cpu_model, shard, reps, cells)
    have the wrong type."""
    meta_path = os.path.join(directory, "meta.json")
    if not os.path.exists(meta_path):
        raise ResultsError(f"{directory}: no meta.json; not a heapbench results directory "
                           "(run 'heapbench run' first, or give results/<run-id>)")
    try:
        with open(meta_path, "rb") as fh:
            data = fh.read()
        text = data.decode("utf-8")
        if "\0" in text:
            raise UnicodeError("a NUL byte")
    except UnicodeError as err:
        raise ResultsError(f"{meta_path}: bytes that are not UTF-8 text ({err}); not written by heapbench: "
                           "measure again into a new directory") from None
    except OSError as err:
        raise ResultsError(f"{meta_path}: cannot read ({err.strerror})") from None
    try:
        meta = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except (ValueError, RecursionError) as err:
        raise ResultsError(f"{meta_path}: not JSON ({str(err)[:200]}): cut short or altered; "
                           "measure again into a new directory") from None
    if not isinstance(meta, dict):
        kind = "list" if isinstance(meta, list) else "value"
        raise ResultsError(f"{meta_path}: a JSON {kind}, not an object; not written by heapbench")
    if not _is_int(meta.get("schema")) or meta.get("schema") != SCHEMA:
        raise ResultsError(f"{meta_path}: schema {str(meta.get('schema'))[:40]!r}, this heapbench reads schema {SCHEMA}")
    for key, kinds in META_TYPES.items():
        value = meta.get(key)
        if value is None:
            continue
        if kinds is int and _is_int(value):
            meta[key] = int(value)
        elif kinds is int or isinstance(value, bool) != (kinds is bool) or not isinstance(value, kinds):
            raise ResultsError(f"{meta_path}: '{key}' is a {type(value).__name__}; not written by heapbench")
    if meta.get("tested_commit") is not None and not TESTED_COMMIT.fullmatch(meta["tested_commit"]):
        raise ResultsError(f"{meta_path}: 'tested_commit' is not a lower-case commit hash of 7 to 40 hex digits; "
                           "not written by heapbench")
    return meta


def _is_int(value):
    """A whole JSON number (5 or 5.0), not a boolean: check's rule for meta.json's counts."""
    return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))


def _finite_float(text):
    """json's hook for numbers with a fraction or exponent: refused when not finite (1e999)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


# Types of the meta.json fields the Python side reads (None is accepted for every one).
META_TYPES = {"host": str, "cpu_model": str, "run_id": str, "shard": str, "shard_cells": int,
              "reps": int, "cells": int, "complete": bool, "interrupted": bool, "quick": bool,
              "start": str, "end": str, "command_line": str, "workloads": list, "envs": list,
              "allocators": dict, "counters": dict, "metrics": dict, "argv": list,
              "machine": dict, "instrumented": str, "own_allocator": dict, "tested_commit": str}
TESTED_COMMIT = re.compile(r"[0-9a-f]{7,40}")  # meta.json's tested_commit (run --commit): content.c's rule


def _no_constant(name):
    """json's hook for NaN and Infinity: refused."""
    raise ValueError(f"{name} is not a JSON value")


class LazyRows:
    """The rows of a results CSV, read again on each iteration (read_csv's checks, one row at a
    time), so that a big file (rss.csv: ~100 rows per run) is never held whole. column() and
    where() check every row's schema, length and the column they read, and convert only what
    they return (a reader of one run's samples does not pay for the whole file's numbers)."""

    def __init__(self, path):
        self.path = path
        read_header(path)  # a wrong header is found now, not during the first iteration

    def _rows(self, header):
        """(line, fields) of every data row, each one checked to be of this schema and header."""
        schema = str(SCHEMA)
        for line, fields in iter_csv(self.path):
            if line == 1 or not fields:
                continue
            if fields[0] != schema or len(fields) != len(header):
                raise _fail(self.path, line, "not a row of this schema and header (a row cut short?)")
            yield line, fields

    def __iter__(self):
        header = read_header(self.path)
        if header is None:
            return
        convert = _converters(self.path, header)
        for line, fields in self._rows(header):
            yield _convert_row(self.path, line, header, convert, fields)

    def _keyed(self, name):
        """(header, converters, iterator of (line, fields, converted value of column name)) over the rows;
        an empty iterator when the file has no such column. A value repeated on consecutive rows (the
        run of rss.csv's ~100 samples) is converted once."""
        header = read_header(self.path) or []
        convert = _converters(self.path, header)
        if name not in header:
            return header, convert, iter(())
        index = header.index(name)

        def rows():
            text, value = None, None
            for line, fields in self._rows(header):
                if fields[index] != text:
                    try:
                        value = convert[index](fields[index]) if convert[index] else fields[index]
                    except ValueError as err:
                        raise _bad_field(self.path, line, name, fields[index], err) from None
                    text = fields[index]
                yield line, fields, value
        return header, convert, rows()

    def column(self, name):
        """Yields the value of column name (converted) of every row; nothing when the file has no such column."""
        return (value for _, _, value in self._keyed(name)[2])

    def where(self, name, keep):
        """Yields the rows (as __iter__ does) whose value of column name is in the set keep."""
        header, convert, rows = self._keyed(name)
        return (_convert_row(self.path, line, header, convert, fields) for line, fields, value in rows if value in keep)


def _converters(path, header):
    """The converters of a results CSV's columns (_converter; the file decides whether they are counts)."""
    counts = os.path.basename(path) in COUNT_FILES
    return [_converter(name, counts) for name in header]


def column_values(rows, name):
    """The values of column name in rows: a LazyRows (read with LazyRows.column) or a list of dicts."""
    if isinstance(rows, LazyRows):
        return rows.column(name)
    return (row.get(name) for row in rows)


def rows_where(rows, name, keep):
    """The rows (a LazyRows, read with LazyRows.where, or a list of dicts) whose column name is in the set keep."""
    if isinstance(rows, LazyRows):
        return rows.where(name, keep)
    return (row for row in rows if row.get(name) in keep)


def judge(directory):
    """Refuses (ResultsError, check's first line) a directory that `heapbench check` finds damaged:
    check is the one judge of a results directory, so every reader asks it first. Runs
    `$HEAPBENCH_BIN check --readable DIR` (every defect, a run's incompleteness aside) when the
    heapbench CLI started this process (it sets HEAPBENCH_BIN); without it (the package imported on
    its own) the readers' own checks, which are check's rules (runner/tests/judge.sh), still hold."""
    exe = os.environ.get("HEAPBENCH_BIN")
    if not exe:
        return
    try:
        proc = subprocess.run([exe, "check", "--readable", "--", directory], capture_output=True, check=False)
    except OSError as err:
        raise ResultsError(f"cannot run {exe} check: {err.strerror}; run make (or reinstall heapbench)") from None
    if proc.returncode == 0:
        return
    lines = proc.stdout.decode("utf-8", "replace").splitlines() or proc.stderr.decode("utf-8", "replace").splitlines()
    first = lines[0] if lines else f"heapbench check exited {proc.returncode}"
    raise ResultsError(f"{first} ('heapbench check {directory}' lists every defect)")


def load(directory, lazy=()):
    """Loads meta.json and every CSV of a results directory into a dict.

    Keys: dir, meta, runs, phases, rss, sizes, allocstats, latency ([] for a directory without
    latency.csv). A key named in lazy ("rss") is a LazyRows instead of a list: iterate it, do not
    index it. Raises ResultsError on a directory that is not a results directory or has another
    schema version.
    """
    if not os.path.isdir(directory):
        raise ResultsError(f"{directory}: not a directory; give a results directory such as results/latest")
    judge(directory)
    meta = read_meta(directory)
    return {
        "dir": directory,
        "meta": meta,
        "runs": read_csv(os.path.join(directory, "runs.csv")),
        "phases": read_csv(os.path.join(directory, "phases.csv"), required=False),
        "rss": (LazyRows if "rss" in lazy else lambda p: read_csv(p, required=False))(os.path.join(directory, "rss.csv")),
        "sizes": read_csv(os.path.join(directory, "sizes.csv"), required=False),
        "allocstats": read_csv(os.path.join(directory, "allocstats.csv"), required=False),
        "latency": read_csv(os.path.join(directory, "latency.csv"), required=False),
    }


def cell_key(row, fields=CELL_KEY):
    """The key that identifies a matrix cell across runs and directories (fields: a sub-tuple of
    CELL_KEY, e.g. MATCH_KEY). threads is an int (1 when empty), every other field a string."""
    return tuple(int(row.get(k) or 1) if k == "threads" else str(row.get(k) or "") for k in fields)


def group(rows, fields=CELL_KEY):
    """{cell_key(row, fields): [rows]} in first-seen order; every row kept, whatever its status."""
    cells = {}
    for row in rows:
        cells.setdefault(cell_key(row, fields), []).append(row)
    return cells


def ok_runs(runs):
    """The rows of runs.csv whose status is ok (the only ones any statistic is taken over)."""
    return [r for r in runs if r.get("status") == "ok"]
