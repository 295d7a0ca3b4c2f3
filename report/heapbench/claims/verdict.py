"""verdict.py - a claim decided from an interval: holds, does not hold, undecided at this noise, or cannot be tested here.

An Interval is a figure's median over the ok runs (point) with its 95% bootstrap interval
(lo, hi) from heapbench.stats, the statistics of heapbench compare (one implementation), and
the reps it rests on; a figure of one run (a count, an RSS: load-independent) is the
degenerate interval [point, point]. A claim is a region of the figure's axis (lo and/or hi
bound): the claim holds when the whole interval lies in the region, does not hold when the
whole interval lies outside it, and is undecided when the interval straddles a bound; then the
reps that would decide are estimated from the interval's half-width shrinking as 1/sqrt(reps).
Always holds: a missing figure is never a verdict on the claim ("cannot be tested here" with
the reason); every verdict prints as one of the four phrases of VERDICTS, with its reason (an
undecided verdict with the reps that would decide, or, when more reps would not help, why).
"""
import collections
import math

from heapbench import stats

HOLDS = "holds"
NOT_HOLD = "does not hold"
UNDECIDED = "undecided at this noise"
UNTESTABLE = "cannot be tested here"
VERDICTS = (HOLDS, NOT_HOLD, UNDECIDED, UNTESTABLE)

Interval = collections.namedtuple("Interval", "point lo hi reps")
Verdict = collections.namedtuple("Verdict", "kind note needed", defaults=("", 0))

NO_FIGURE = "no figure: the cell did not run or failed (see stderr)"


def _clean(values):
    """The values that are figures (None and NaN dropped), as floats."""
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]


def of_values(values, seed=0):
    """The Interval of the median of values (None when there is none)."""
    vals = _clean(values)
    if not vals:
        return None
    point = stats.stats_median(vals)
    lo, hi = stats.stats_median_ci(vals, seed) if len(vals) > 1 else (point, point)
    return Interval(point, min(lo, point), max(hi, point), len(vals))


def of_ratio(num, den, seed=0):
    """The Interval of median(num) / median(den), both samples resampled (None when a side has
    no figure or den has a value <= 0, where a ratio is not a figure)."""
    num, den = _clean(num), _clean(den)
    if not num or not den or stats.stats_median(den) == 0:
        return None
    point = stats.stats_median(num) / stats.stats_median(den)
    lo, hi = stats.stats_ratio_ci(den, num, seed) if min(len(num), len(den)) > 1 else (point, point)
    if math.isnan(lo) and min(den) <= 0:
        return None
    if math.isnan(lo):  # a resample the bootstrap cannot take: the widest ratio the runs allow
        lo, hi = min(num) / max(den), max(num) / min(den)
    return Interval(point, min(lo, point), max(hi, point), min(len(num), len(den)))


def exact(x):
    """A figure of one run (deterministic): the interval [x, x] (None for a missing figure)."""
    return None if x is None else Interval(float(x), float(x), float(x), 1)


def half_effect(k):
    """The bound a claimed factor k (x8 faster, x1.5 slower) is judged at: half its effect,
    1 + (k - 1) / 2, so a figure nearer the claim than to no effect at all holds."""
    return 1 + (k - 1) / 2


def needed_reps(iv, bound):
    """Reps that would shrink iv away from bound (its half-width falls as 1/sqrt(reps));
    stats.MAX_NEEDED_REPS when the point sits on the bound."""
    half = (iv.hi - iv.point) if bound > iv.point else (iv.point - iv.lo)
    return stats.stats_reps_to_clear(iv.reps, half, abs(iv.point - bound))


def decide(iv, lo=None, hi=None, note=""):
    """The verdict on a claim that the figure lies in [lo, hi] (a missing bound is open)."""
    if iv is None:
        return Verdict(UNTESTABLE, NO_FIGURE)
    inside = (lo is None or iv.lo >= lo) and (hi is None or iv.hi <= hi)
    outside = (lo is not None and iv.hi < lo) or (hi is not None and iv.lo > hi)
    if inside:
        return Verdict(HOLDS, note)
    if outside:
        return Verdict(NOT_HOLD, note)
    crossed = [b for b in (lo, hi) if b is not None and iv.lo <= b <= iv.hi]
    return Verdict(UNDECIDED, note, max(needed_reps(iv, b) for b in crossed))


def banded(x, holds, fails, note=""):
    """The verdict on an exact figure x (a count of one run) against a claim region with a margin:
    holds=(lo, hi) is where the claim holds, fails=(lo, hi), which contains it, the limits beyond
    which it does not (None: an open side); in between it is undecided, and more runs would not
    decide (the figure is a count). note goes with does not hold."""
    if x is None:
        return Verdict(UNTESTABLE, NO_FIGURE)
    def inside(lo, hi):
        return (lo is None or x >= lo) and (hi is None or x <= hi)
    if inside(*holds):
        return Verdict(HOLDS)
    if not inside(*fails):
        return Verdict(NOT_HOLD, note)
    bounds = " and ".join(f"{b:g}" for b in (fails[0], holds[0], holds[1], fails[1]) if b is not None)
    return Verdict(UNDECIDED, f"between the bounds {bounds}: a count of one run, more runs would not decide")


def untestable(reason):
    """A claim this machine cannot test, with the reason."""
    return Verdict(UNTESTABLE, reason)


def both(*verdicts, note=""):
    """A claim of several parts: does not hold if one part does not, else undecided if one is,
    else cannot be tested if one cannot, else holds."""
    for kind in (NOT_HOLD, UNDECIDED, UNTESTABLE):
        hit = [v for v in verdicts if v.kind == kind]
        if hit:
            notes = "; ".join(v.note for v in hit if v.note)
            return Verdict(kind, note or notes, max(v.needed for v in hit))
    return Verdict(HOLDS, note)


def text(v):
    """The verdict as the table prints it."""
    if v.kind == UNDECIDED and v.needed:
        reps = (f"more than {stats.MAX_NEEDED_REPS - 1} reps: the figure sits on the bound"
                if v.needed >= stats.MAX_NEEDED_REPS else f"~{v.needed} reps would decide")
        return f"{UNDECIDED} ({reps}{'; ' + v.note if v.note else ''})"
    return f"{v.kind} ({v.note})" if v.note else v.kind


def show(iv, unit="", digits=2, scale=1.0):
    """An interval for the table: 'x [lo, hi]' (one figure for an exact one; 'n/a' when missing)."""
    if iv is None:
        return "n/a"
    f = f"{{:,.{digits}f}}"
    p = f.format(iv.point * scale) + unit
    if iv.lo == iv.hi:
        return p
    return f"{p} [{f.format(iv.lo * scale)}, {f.format(iv.hi * scale)}]"
