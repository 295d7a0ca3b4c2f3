"""results.py - reads and writes heapbench results directories (docs/DATA.md, schema 1); the cell key and grouping.

The one place on the Python side that knows the file layout (runs, phases, rss, sizes CSVs, meta.json).
Always holds: load() checks that the
directory is a results directory of the schema this code reads, and raises ResultsError
with a message that says what is wrong and what to do; callers print it and exit 2.
Rows come back as dicts of strings, with numeric columns converted (empty -> None).
"""
import csv
import json
import os

SCHEMA = 1

# Columns that are not numbers; every other column of a results CSV is numeric or empty.
TEXT_COLUMNS = {"schema", "run_id", "host", "workload", "allocator", "params", "env",
                "status", "reason", "served_by", "phase"}

# A matrix cell; MATCH_KEY pairs cells of two runs (the host is kept as an axis beside it).
CELL_KEY = ("host", "workload", "allocator", "threads", "params", "env")
MATCH_KEY = CELL_KEY[1:]


class ResultsError(Exception):
    """A directory that cannot be read as heapbench results (message says why and what to do)."""


def _number(text):
    """A CSV field as int (no '.' or exponent) or float; None when empty; the text itself when not a number."""
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    if value.is_integer() and "." not in text and "e" not in text and "E" not in text:
        return int(text)
    return value


def read_csv(path, required=True):
    """Rows of one results CSV as dicts; [] when the file is absent and not required.

    Text columns (TEXT_COLUMNS) stay strings ("" when empty); every other column becomes a
    number, or None when empty. Every row must carry this code's schema.
    """
    if not os.path.exists(path):
        if required:
            raise ResultsError(f"{path}: missing; is this a heapbench results directory (results/<run-id>/)?")
        return []
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if not header or header[0] != "schema":
            raise ResultsError(f"{path}: no 'schema' header column; not a heapbench results file")
        convert = [None if name in TEXT_COLUMNS else _number for name in header]
        schema = str(SCHEMA)
        rows = []
        for fields in reader:
            if not fields:
                continue
            if fields[0] != schema:
                raise ResultsError(f"{path}: schema {fields[0]!r}, this heapbench reads schema {SCHEMA}; "
                                   "re-run the benchmark with this version or use the matching heapbench")
            rows.append({name: (conv(value) if conv else value)
                         for name, conv, value in zip(header, convert, fields)})
    return rows


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


def load(directory):
    """Loads meta.json and every CSV of a results directory into a dict.

    Keys: dir, meta, runs, phases, rss, sizes. Raises ResultsError on a directory that is
    not a results directory or has another schema version.
    """
    if not os.path.isdir(directory):
        raise ResultsError(f"{directory}: not a directory; give a results directory such as results/latest")
    meta_path = os.path.join(directory, "meta.json")
    if not os.path.exists(meta_path):
        raise ResultsError(f"{directory}: no meta.json; not a heapbench results directory "
                           "(run 'heapbench run' first, or give results/<run-id>)")
    try:
        with open(meta_path) as fh:
            meta = json.load(fh)
    except (OSError, ValueError) as err:
        raise ResultsError(f"{meta_path}: unreadable ({err}); the run may have been cut before it started")
    if meta.get("schema") != SCHEMA:
        raise ResultsError(f"{meta_path}: schema {meta.get('schema')!r}, this heapbench reads schema {SCHEMA}")
    return {
        "dir": directory,
        "meta": meta,
        "runs": read_csv(os.path.join(directory, "runs.csv")),
        "phases": read_csv(os.path.join(directory, "phases.csv"), required=False),
        "rss": read_csv(os.path.join(directory, "rss.csv"), required=False),
        "sizes": read_csv(os.path.join(directory, "sizes.csv"), required=False),
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
