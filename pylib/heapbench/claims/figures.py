"""figures.py - what every judge shares: the claim record, number formatting, ratios, and the usual picks.

A claim is a dict made by claim(): id, article, text (the claim as published), setup (the
article's setup), how (what our experiment reads, after its commands), diff (every remaining
difference), specs (Spec list, see measure.py) and judge(rows) -> (measured, holds, detail),
rows being one row set per spec. holds is True/False, or None for a row another issue owns.
Always holds: a missing figure prints as 'n/a' and makes a claim not hold (never a crash);
thresholds live in the judges, next to the claim they decide.
"""
from heapbench.claims.measure import pick


def claim(cid, article, text, setup, how, diff, specs, judge):
    """One claim record (see the module doc)."""
    return dict(id=cid, article=article, text=text, setup=setup, how=how, diff=diff, specs=specs, judge=judge)


def ratio(a, b):
    """a / b, or None when either is missing or b is 0."""
    return a / b if a is not None and b else None


def fmt(x, unit="", digits=2):
    """A figure for the table ('n/a' when missing)."""
    return "n/a" if x is None else f"{x:,.{digits}f}{unit}"


def mib(kb):
    """KiB -> MiB (None stays None)."""
    return None if kb is None else kb / 1024


def at_least(x, threshold):
    """True when x is a figure and x >= threshold."""
    return x is not None and x >= threshold


def within(x, lo, hi):
    """True when x is a figure in [lo, hi]."""
    return x is not None and lo <= x <= hi


def secs(rows, phase, **where):
    """Median seconds of a phase."""
    return pick(rows, "phases", "seconds", phase=phase, **where)


def rss(rows, phase, **where):
    """Median RSS (KiB) at the end of a phase."""
    return pick(rows, "phases", "rss_kb", phase=phase, **where)


def ops(rows, phase, **where):
    """Median ops of a phase."""
    return pick(rows, "phases", "ops", phase=phase, **where)


def per_op_us(rows, phase, **where):
    """Microseconds per op of a phase (seconds / ops)."""
    s, n = secs(rows, phase, **where), ops(rows, phase, **where)
    return s / n * 1e6 if s is not None and n else None


def wall(rows, **where):
    """Median whole-process wall time (runs.csv wall_s)."""
    return pick(rows, "runs", "wall_s", **where)


def placeholder(cid, article, text):
    """A row whose experiment belongs to issue 13 (latency): kept in the table, not measured here."""
    return claim(cid, article, text, "see issue 13", "placeholder: issue 13 (latency sampling) owns this row",
                 "-", [], lambda rows: ("-", None, "issue 13"))
