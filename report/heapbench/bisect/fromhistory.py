"""fromhistory.py - the ends of a bisect taken from a change point of a history: the commits of the last point before the change and of the first point after it.

A point's commit is its commit field (the commit under test, `history add --commit REV`, or the
commit its explicit label named when it was added), else its label, resolved in the bisect's
repository (points added before the history kept the field, labelled `"$(git describe)"` or with
a hash). The series is (testbed, cell, metric); its change point is the one `history changes`
finds (the newest, or the one at --change LABEL).
Always holds: the history is only read (opened read-only); every failure (no history, no such
testbed, cell or metric, no change point, a first point with nothing before it, a label that is
no commit of the repository) raises EndsError with one line saying what to give instead.
"""
import collections

from heapbench.history import changes, scan, store as hstore
from heapbench.history.db import HistoryError

Ends = collections.namedtuple("Ends", "testbed good_label bad_label good_index bad_index points found "
                                       "good_commit bad_commit")


class EndsError(Exception):
    """A change point that cannot give a bisect its ends (the message says what to do); exit 2."""


def _testbed(store, name, cell):
    """The testbed to read: name (which must exist and hold cell), else the one testbed holding cell."""
    names = [t.name for t in store.testbeds()]
    if name is not None:
        if name not in names:
            raise EndsError(f"--testbed {name!r} is not in {store.where}; it has: {', '.join(names) or 'none'}")
        if cell not in store.cells(name):
            raise EndsError(f"--cell {cell!r} has no point in testbed {name}; its cells: "
                            + ", ".join(store.cells(name)[:10]))
        return name
    holding = [n for n in names if cell in store.cells(n)]
    if not holding:
        raise EndsError(f"--cell {cell!r} has no point in {store.where}; 'heapbench history report' lists the cells "
                        "(a cell is workload/allocator/tN [params])")
    if len(holding) > 1:
        raise EndsError(f"--cell {cell!r} has points in {len(holding)} testbeds ({', '.join(holding)}); give --testbed")
    return holding[0]


def find(url, cell, metric, testbed=None, change=None):
    """The Ends of the series (testbed, cell, metric) of the history at url (None: the default
    history): around the point labelled change, else around the series' newest change point."""
    try:
        store = hstore.open_store(url, readonly=True)
    except HistoryError as err:
        raise EndsError(str(err)) from None
    try:
        name = _testbed(store, testbed, cell)
        series = store.series(name, cell, metric)
        if not series:
            raise EndsError(f"--metric {metric}: the series of {cell} in {name} has no such metric; it has: "
                            + ", ".join(store.metrics(name, cell)))
    except HistoryError as err:
        raise EndsError(str(err)) from None
    finally:
        store.close()
    labels = [p.label for p in series]
    if change is not None:
        if change not in labels:
            raise EndsError(f"--change {change!r}: no point of {cell} {metric} has this label ('heapbench history "
                            "changes' prints the label after 'at')")
        index, found = labels.index(change), None
    else:
        every = scan.series_changes(name, cell, metric, series, changes.ALPHA, changes.MIN_MAGNITUDE)
        if not every:
            raise EndsError(f"no change point in {name} {cell} {metric} ({len(series)} points); give --change LABEL, "
                            "the first point after the change")
        found = every[-1]
        index = found.index
    if index == 0:
        raise EndsError(f"--change {change!r} is the series' first point: no point before it gives the good end")
    return Ends(name, labels[index - 1], labels[index], index - 1, index, len(series), found,
                series[index - 1].tested_commit, series[index].tested_commit)


def revisions(ends):
    """(good, bad): each end's commit field, else its label (the revisions to resolve in the repository)."""
    return ends.good_commit or ends.good_label, ends.bad_commit or ends.bad_label
