"""figures.py - what every judge shares: the claim record, number formatting, and the per-run figures judges decide from.

A claim is a dict made by claim(): id, article, text (the claim as published), setup (the
article's setup), how (what our experiment reads, after its commands), diff (every remaining
difference), specs (Spec list, see measure.py) and judge(rows) -> (measured, Verdict), rows
being one row set per spec (verdict.py decides from intervals).
Always holds: a per-run figure comes only from runs whose status is ok, one value per run, in
run order (the runner interleaves the reps, so per-run lists of two cells pair up in time);
a missing figure prints as 'n/a' and gives no verdict on the claim (never a crash); bounds
live in the judges, next to the claim they decide.
"""
from heapbench.claims.measure import pick, per_run


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


def rss(rows, phase, **where):
    """Median RSS (KiB) at the end of a phase."""
    return pick(rows, "phases", "rss_kb", phase=phase, **where)


def ops(rows, phase, **where):
    """Median ops of a phase."""
    return pick(rows, "phases", "ops", phase=phase, **where)


def secs_runs(rows, phases, **where):
    """Seconds of the phases summed, one value per ok run that has them all."""
    cols = [dict(per_run(rows, "phases", "seconds", phase=p, **where)) for p in phases]
    common = [r for r in cols[0] if all(r in c for c in cols)]
    return [sum(c[r] for c in cols) for r in common]


def per_op_runs(rows, phase, scale=1e6, **where):
    """seconds / ops of a phase times scale (1e6: microseconds per op), one value per ok run."""
    s = dict(per_run(rows, "phases", "seconds", phase=phase, **where))
    n = dict(per_run(rows, "phases", "ops", phase=phase, **where))
    return [s[r] / n[r] * scale for r in s if n.get(r)]


def run_values(rows, field, **where):
    """A runs.csv field, one value per ok run."""
    return [v for _, v in per_run(rows, "runs", field, **where)]


def phase_values(rows, phase, field, **where):
    """A phases.csv field of one phase, one value per ok run."""
    return [v for _, v in per_run(rows, "phases", field, phase=phase, **where)]
