"""store.py - the history store: adds whole results directories as points of (testbed, cell, metric) series, reads series back.

Always holds: one Store over one database (db.Connection: SQLite by default, PostgreSQL by
URL); add() checks and reads every directory before writing anything, then writes all of them
in one transaction, so a refused directory or an error leaves the history as it was; a run is
keyed by (run id, host, content: the sha256 of its runs.csv): adding it again is a no-op, and
another run written later into a reused directory name is a run of its own; within a testbed a label names one run (an
explicit --label already used by another run is refused; a defaulted label, the run's commit,
is made unique with @host); a point's order is --order when given, else one more than the
testbed's largest (points are then in the order they were added); series come back in
(order, insertion) order; a run's tested_commit is add()'s commit, else the commit an explicit
label names, else None (commit.py), and every Point of the run carries it.
"""
import argparse
import collections
import datetime
import hashlib
import json
import os

from heapbench import jsontext
from heapbench import results
from heapbench.history import check
from heapbench.history import commit as hcommit
from heapbench.history import db
from heapbench.history import points
from heapbench.history.db import HistoryError
from heapbench.testbed import Testbed, testbed_of

Point = collections.namedtuple("Point", "label order reps median spread library run_id host lo hi tested_commit",
                               defaults=(None,))
Run = collections.namedtuple("Run", "id label order run_id host added git_commit tested_commit libraries")


def _reps_json(entry, directory):
    """The JSON text of an entry's reps; HistoryError when a figure of it is not finite (JSON
    and the store's statistics cannot hold one)."""
    try:
        jsontext.dumps([entry.median, entry.spread, entry.lo, entry.hi], "the cell's statistics")
        return jsontext.dumps(entry.reps, "the cell's reps")
    except jsontext.NotFinite:
        raise HistoryError(f"{directory}: cell {entry.cell} {entry.metric} has a figure that is not a finite number "
                           "(its reps, median or spread); nothing was added: check the directory with "
                           "'heapbench check'") from None


def open_store(url=None, readonly=False):
    """The Store of url: None -> $HEAPBENCH_HISTORY, else history.sqlite in the results location;
    postgresql://... -> PostgreSQL; anything else an SQLite file. readonly: for reading only (an
    existing history, opened read-only, nothing created). HistoryError when it cannot be opened."""
    if not url:
        url = db.default_url()
        db.check_location(url)
        if not db.is_postgresql(url) and not readonly:
            os.makedirs(os.path.dirname(os.path.abspath(url)), exist_ok=True)
    return Store(db.Connection(url, readonly=readonly))


def label_arg(text):
    """--label's value (argparse type): refused when empty or blank (a label names a point in every
    report; the default is the run's commit)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty; give the version under test (e.g. --label v1.2), "
                                         "or leave --label out for the run's commit")
    return text


def default_label(meta):
    """A run's label when none is given: its heapbench commit (12 hex digits, -dirty kept), else its run id."""
    commit = str(meta.get("git_commit") or "")
    if commit and commit != "unknown":
        head, _, dirty = commit.partition("-")
        return head[:12] + ("-" + dirty if dirty else "")
    return str(meta.get("run_id") or "unlabelled")


def _content(directory):
    """The sha256 of a directory's runs.csv: what tells two runs with one run id apart."""
    digest = hashlib.sha256()
    try:
        with open(os.path.join(directory, "runs.csv"), "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as err:
        raise HistoryError(f"{directory}: runs.csv cannot be read ({err.strerror}); nothing was added") from None
    return digest.hexdigest()


def _hosts(meta, by_host):
    """The hosts of a directory to add: those with rows, else meta.json's host (a run with no rows)."""
    return sorted(by_host) or [str(meta.get("host") or "")]


class Store:
    """A history database (see the module's Always holds)."""

    def __init__(self, connection):
        self.db = connection
        self.where = connection.where

    def close(self):
        """Closes the database."""
        self.db.close()

    # ----- writing

    def add(self, run_dirs, label=None, order=None, commit=None):
        """Adds results directories (a path or a list); returns [(testbed name, run id, added)] per
        (directory, host) in the order given; added is False for a run the history already had.
        commit: the commit under test (a hash: commit.commit_arg checks the command line's)."""
        if isinstance(run_dirs, str):
            run_dirs = [run_dirs]
        read = []
        for directory in run_dirs:
            check.require_whole(directory)
            try:
                meta, by_host = points.read(directory)
            except results.ResultsError as err:
                raise HistoryError(f"{err}; nothing was added") from None
            if not any(by_host.values()):
                raise HistoryError(f"{directory}: no cell has an ok rep (every run failed, crashed or was skipped), "
                                   "so it holds no point; nothing was added: see the reasons in its runs.csv")
            read.append((directory, dict(meta, content=_content(directory),
                                         tested_commit=hcommit.point_commit(commit or meta.get("tested_commit"), label,
                                                                            label is not None)), by_host))
        out = []
        with self.db.write() as cur:
            for index, (directory, meta, by_host) in enumerate(read):
                for host in _hosts(meta, by_host):
                    tb = testbed_of(meta, host if "hosts" in meta else None)
                    where = None if order is None else order + index
                    out.append(self._add_run(cur, directory, meta, host, tb, by_host.get(host, []), label, where))
        return out

    def _add_run(self, cur, directory, meta, host, tb, entries, label, order):
        """Writes one host's run of a directory (inside add's transaction); (testbed, run id, added)."""
        run_id = str(meta.get("run_id") or "")
        for content, start in cur.execute("SELECT content, start FROM runs WHERE run_id = ? AND host = ?",
                                          (run_id, host)).fetchall():
            if content == meta["content"] or (not content and start == meta.get("start")):
                return (tb.name, run_id, False)  # this run (one added before contents were kept: its start)
        cur.execute("INSERT INTO testbeds (name, fields) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (tb.name, json.dumps(tb.fields, sort_keys=True)))
        name = self._label(cur, tb.name, label, meta, host, directory)
        if order is None:
            top = cur.execute("SELECT max(ord) FROM runs WHERE testbed = ?", (tb.name,)).fetchone()[0]
            order = 1 if top is None else top + 1
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        run = cur.execute("INSERT INTO runs (run_id, host, testbed, label, ord, added, git_commit, start, content, "
                          "tested_commit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                          (run_id, host, tb.name, name, float(order), now, meta.get("git_commit"),
                           meta.get("start"), meta["content"], meta["tested_commit"])).fetchone()[0]
        libs = [(run, a, info.get("path"), info.get("version"), info.get("sha256"))
                for a, info in sorted((meta.get("allocators") or {}).items()) if isinstance(info, dict)]
        if libs:
            cur.executemany("INSERT INTO libraries (run, allocator, path, version, sha256) VALUES (?, ?, ?, ?, ?)", libs)
        rows = [(run, e.cell, e.workload, e.allocator, e.metric, _reps_json(e, directory), e.median, e.spread, e.lo, e.hi)
                for e in entries]
        if rows:
            cur.executemany("INSERT INTO points (run, cell, workload, allocator, metric, reps, median, spread, lo, hi) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return (tb.name, run_id, True)

    def _label(self, cur, testbed, label, meta, host, directory):
        """The label of a new run: label when given (refused when another run of the testbed has it),
        else default_label made unique within the testbed."""
        def taken(text):
            return cur.execute("SELECT run_id FROM runs WHERE testbed = ? AND label = ?", (testbed, text)).fetchone()
        if label is not None:
            if not label.strip():  # the Python interface's check of what label_arg refuses on the command line
                raise HistoryError(f"{directory}: an empty label names no point; give one (nothing was added)")
            other = taken(label)
            if other:
                raise HistoryError(f"{directory}: label {label!r} already names run {other[0]} of testbed {testbed}; "
                                   "give each run its own --label (nothing was added)")
            return label
        base = default_label(meta)
        for candidate in (base, f"{base}@{host}", f"{base}@{host}/{meta.get('run_id')}",
                          f"{base}@{host}/{meta.get('run_id')}/{meta['content'][:12]}"):
            if not taken(candidate):
                return candidate
        raise HistoryError(f"{directory}: its default label {base!r} is taken; give --label (nothing was added)")

    # ----- reading

    def testbeds(self):
        """Every testbed of the history, by name."""
        return [Testbed(name, json.loads(fields))
                for name, fields in self.db.query("SELECT name, fields FROM testbeds ORDER BY name")]

    def testbed(self, name):
        """The Testbed called name, or None."""
        return next((t for t in self.testbeds() if t.name == name), None)

    def runs(self, testbed_name):
        """The testbed's runs in order, each with its {allocator: {path, version, sha256}}."""
        rows = self.db.query("SELECT id, label, ord, run_id, host, added, git_commit, tested_commit FROM runs "
                             "WHERE testbed = ? ORDER BY ord, id", (testbed_name,))
        libs = {}
        for run, allocator, path, version, sha in self.db.query(
                "SELECT l.run, l.allocator, l.path, l.version, l.sha256 FROM libraries l JOIN runs r ON l.run = r.id "
                "WHERE r.testbed = ?", (testbed_name,)):
            libs.setdefault(run, {})[allocator] = {"path": path, "version": version, "sha256": sha}
        return [Run(*row, libs.get(row[0], {})) for row in rows]

    def cells(self, testbed_name):
        """The cells (cells.label names) that have points in the testbed, sorted."""
        return [c for (c,) in self.db.query("SELECT DISTINCT p.cell FROM points p JOIN runs r ON p.run = r.id "
                                           "WHERE r.testbed = ? ORDER BY p.cell", (testbed_name,))]

    def metrics(self, testbed_name, cell=None):
        """The metrics that have points in the testbed (in one cell when given), sorted."""
        sql = "SELECT DISTINCT p.metric FROM points p JOIN runs r ON p.run = r.id WHERE r.testbed = ?"
        args = (testbed_name,)
        if cell is not None:
            sql, args = sql + " AND p.cell = ?", args + (cell,)
        return [m for (m,) in self.db.query(sql + " ORDER BY p.metric", args)]

    def series(self, testbed_name, cell, metric):
        """The points of one series (testbed, cell, metric), in order."""
        return self.all_series(testbed_name, [metric], cell=cell).get((cell, metric), [])

    def all_series(self, testbed_name, metrics=None, cell=None, reps=True):
        """{(cell, metric): [Point]} of a testbed, every series in order (metrics: a list, None for all;
        cell: only that cell; reps=False leaves Point.reps None, for a reader of medians and quartiles
        only). One query: the way to read many series."""
        if metrics is not None and not metrics:
            return {}
        runs = {r.id: r for r in self.runs(testbed_name)}
        sql = ("SELECT p.run, p.cell, p.allocator, p.metric, " + ("p.reps" if reps else "NULL") +
               ", p.median, p.spread, p.lo, p.hi FROM points p "
               "JOIN runs r ON p.run = r.id WHERE r.testbed = ?")
        args = [testbed_name]
        if metrics is not None:
            sql += " AND p.metric IN (" + ",".join("?" * len(metrics)) + ")"
            args += list(metrics)
        if cell is not None:
            sql += " AND p.cell = ?"
            args.append(cell)
        out = {}
        for run, cell_name, allocator, metric, values, median, spread, lo, hi in self.db.query(sql + " ORDER BY r.ord, r.id", args):
            r = runs[run]
            out.setdefault((cell_name, metric), []).append(
                Point(r.label, r.order, json.loads(values) if reps else None, median, spread,
                      r.libraries.get(allocator, {}), r.run_id, r.host, lo, hi, r.tested_commit))
        return out
