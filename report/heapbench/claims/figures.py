"""figures.py - what every judge shares: the claim record, number formatting, and the per-run figures judges decide from.

A claim is a dict made by claim(): id, article, text (the claim as published), setup (the
article's setup), how (what our experiment reads, after its commands), diff (every remaining
difference), specs (Spec list, see measure.py) and judge(rows) -> (measured, Verdict), rows
being one row set per spec (verdict.py decides from intervals).
Always holds: a per-run figure comes only from runs whose status is ok, one value per run, in
run order (the runner interleaves the reps, so per-run lists of two cells pair up in time);
a missing figure prints as 'n/a' and gives no verdict on the claim (never a crash); bounds
live in the judges, next to the claim they decide; a time ratio whose one side is mostly page
faults is judged only when a page fault costs what it does on a quiet machine (fault_guarded).
"""
from heapbench.claims import verdict as V
from heapbench.claims.measure import Spec, pick, per_run


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


FAULT_P = "--calls=1000 --touch-mib=64"
FAULTS = Spec("os-costs", ["glibc"], params=(FAULT_P,), warmup=0)
QUIET_FAULT_US = 2.0  # a quiet machine's page fault (the kernel zeroing a 4 KiB page) costs about 1 us


def fault_us(rows):
    """The interval of one page fault's cost (us) from the FAULTS cell's `touch` phase."""
    return V.of_values(per_op_runs(rows, "touch", allocator="glibc", params=FAULT_P))


def fault_guarded(verdict, rows):
    """A verdict on a time ratio whose one side is mostly page faults, given the FAULTS cell's rows:
    when a fault costs more than a quiet machine's (the load slows the kernel's page zeroing and the
    hypervisor far more than user code), the ratio measures the load, and the verdict is undecided
    at this noise; else the verdict stands. Returns (verdict, text of the fault cost)."""
    iv = fault_us(rows)
    shown = f"a page fault {V.show(iv, ' us', 1)}"
    if iv is None or verdict.kind not in (V.HOLDS, V.NOT_HOLD) or iv.lo <= QUIET_FAULT_US:
        return verdict, shown
    return (V.Verdict(V.UNDECIDED, f"a page fault costs {iv.point:.1f} us here now, over {QUIET_FAULT_US:.0f} us on a "
                      f"quiet machine: this ratio's time is mostly page faults, so it measures the load"), shown)


def guarded(judge):
    """A judge of a time ratio that is mostly page faults: the claim's specs end with FAULTS; the
    inner judge reads the others, its verdict goes through fault_guarded."""
    def judge_guarded(rows):
        measured, verdict = judge(rows[:-1])
        verdict, shown = fault_guarded(verdict, rows[-1])
        return f"{measured}; {shown}", verdict
    judge_guarded.__doc__ = judge.__doc__
    return judge_guarded
