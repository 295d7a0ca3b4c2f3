"""figures.py - what every judge shares: the claim record, number formatting, and the per-run figures judges decide from.

A claim is a dict made by claim(): id, article, text (the claim as published), setup (the
article's setup), how (what our experiment reads, after its commands), diff (every remaining
difference), specs (Spec list, see measure.py) and judge(rows) -> (measured, Verdict), rows
being one row set per spec (verdict.py decides from intervals).
Always holds: a per-run figure comes only from runs whose status is ok, one value per run, in
run order (the runner interleaves the reps, so per-run lists of two cells pair up in time);
a missing figure prints as 'n/a' and gives no verdict on the claim (never a crash); bounds
live in the judges, next to the claim they decide; no verdict rests on a wall time whose phases
are mostly page faults (they cost ~15 us on this VM even when idle, 25-135 us loaded: 10-100x a
bare machine's): such a claim is judged on counts that do not depend on the load (user-space
instructions from callgrind, faults, RSS), or said "cannot be tested here" with the measured
reason (kernel_bound), and the wall time is shown as information.
"""
from heapbench import results
from heapbench.claims import profile
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


def fault_us(rows):
    """The interval of one page fault's cost (us) from the FAULTS cell's `touch` phase."""
    return V.of_values(per_op_runs(rows, "touch", allocator="glibc", params=FAULT_P))


def fault_text(rows):
    """What a page fault costs here now (the FAULTS cell's rows), for a row whose wall time is
    mostly faults: information, never a verdict (the cost is this VM's and its load's)."""
    return (f"a page fault costs {V.show(fault_us(rows), ' us', 1)} here now (a bare machine's: about 1 us or less), "
            f"so a wall-time ratio of fault-heavy phases measures this VM")


def instr_spec(workload, params, wrap=profile.PHASES):
    """One run of one glibc cell under callgrind (user-space instructions: they do not depend on the
    load); by default dumped per phase (profile.PHASES)."""
    return Spec(workload, ["glibc"], params=(params,), reps=1, warmup=0, wrap=wrap)


def instructions(rows, phases):
    """User-space instructions of the phases of an instr_spec cell (None when it did not run ok)."""
    ok = {r["run"] for r in results.ok_runs(rows["runs"])}
    order = [p["phase"] for p in rows.get("phases", []) if p["run"] in ok]
    return profile.phase_instructions(rows.get("files", {}), order, phases)


def per_step(values, steps):
    """values / steps per run, pairing runs in order (None dropped)."""
    return [v / s for v, s in zip(values, steps) if v is not None and s]


def kernel_bound(what, faults_per_op, op_us, fault_rows, calls=""):
    """The measured reason a time claim cannot be tested here: its time is the kernel's: page faults
    (faults_per_op, a count: load-independent) and the system calls counted in calls (text, may be
    empty), whose costs are this VM's (fault_rows: the FAULTS cell, timed at another moment than
    the claim's cell, so the two times are shown side by side, never multiplied); no instruction
    count sees kernel time. Returns the reason's text."""
    return (f"{what}'s time is kernel time: {calls + ', ' if calls else ''}"
            f"{V.show(V.of_values(faults_per_op), '', 2)} page faults per operation of "
            f"{V.show(V.of_values(op_us), ' us', 1)}, a fault costing {V.show(fault_us(fault_rows), ' us', 1)} "
            f"here now (~15 us even idle; a bare machine's about 1 us or less); user-space instruction counts do "
            f"not see kernel time, and wall time measures this VM")
