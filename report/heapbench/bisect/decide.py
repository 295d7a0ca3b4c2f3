"""decide.py - is a commit like the good end or like the bad end? One decision from rounds measured side by side.

Each round measures the good end, the candidate and the bad end one after the other (in an order
that rotates), so that the machine's drift between rounds hits all three. A round gives the
candidate's distance from the ends' midpoint on a log scale, ln c - (ln g + ln b) / 2: like
good it is -D/2, like bad +D/2, where D = ln(bad / good) is the ends' change (from the ends'
rounds when given, else from these rounds). It is a paired difference with no ratio to a noisy
per-round denominator (a round whose ends came out close by chance gave a wild position before;
no clipping is needed). The decision is taken from Student's t interval of its mean at level
1 - alpha / looks (Bonferroni over the looks a step may take, so that adding rounds until
decided keeps the error at alpha): GOOD when the whole interval lies on the good side of 0, BAD
on the bad side, else None (measure more rounds, or give up as undecided). It is reported as the
position (c - g) / (b - g) on that log scale, 0.5 + mean / D: 0 like good, 1 like bad. Counts that
no load moves (page faults, peak RSS) give the same difference every round and decide in
MIN_ROUNDS; a noisy time needs the rounds its spread asks for (with 3 rounds the t quantile at
that level is in the tens). A step next to the answer's boundary may go on past the usual rounds
(boundary_looks) while rounds_needed, projected from its rounds' spread, fits in its budget.
Always holds: pure and deterministic; a round with a value that is not positive is left out;
fewer than MIN_ROUNDS usable rounds, or ends with no change, decide nothing.
"""
import math

from scipy import stats as scipy_stats

from heapbench.bisect.search import BAD, GOOD

MIN_ROUNDS = 3


def looks(max_rounds):
    """The rounds after which a step looks at its data: 3, then each about 1.6 times the last, and
    max_rounds (3, 5, 8, 13, 15 for 15): few looks, so that each can use a larger share of alpha."""
    out, k = [], MIN_ROUNDS
    while k < max_rounds:
        out.append(k)
        k = max(k + 1, round(k * 1.6))
    return out + [max_rounds]


def boundary_looks(max_rounds, budget):
    """The looks of a step that may go on past max_rounds up to budget rounds: looks(max_rounds), then
    each about 1.6 times the last, the budget last (3, 5, 8, 13, 15, 24, 40 for 15 and 40); looks(max_rounds)
    when budget is not beyond it. Every step's decisions are taken at alpha / len of these (any step may
    be continued), so a continued step's error stays at alpha."""
    out, k = looks(max_rounds), max_rounds
    while k < budget:
        k = max(k + 1, round(k * 1.6))
        k = budget if k * 1.25 > budget else k
        out.append(k)
    return out


def rounds_needed(rounds, alpha, looks):
    """The rounds after which the mean gap's interval (level 1 - alpha / looks) would exclude the midpoint
    if the mean and spread stayed as these rounds measured them: (t * sd / mean)^2; infinite when the
    mean gap is 0 or there are fewer than 2 usable rounds (a candidate halfway between the ends never
    gets there, and a step is not continued for it)."""
    gaps = midpoint_gaps(rounds)
    if len(gaps) < 2:
        return math.inf
    mean, low, _ = interval(gaps, 1 - alpha / max(1, looks))
    if abs(mean) < 1e-9:  # halfway, to rounding
        return math.inf
    half = mean - low  # t * sd / sqrt(n)
    return max(len(gaps), math.ceil(len(gaps) * (half / mean) ** 2))


def midpoint_gaps(rounds):
    """ln c - (ln g + ln b) / 2 of each (good, candidate, bad) round whose three values are positive."""
    return [math.log(c) - (math.log(g) + math.log(b)) / 2 for g, c, b in rounds if min(g, c, b) > 0]


def ends_change(rounds):
    """D = the mean of ln(b / g) over rounds whose ends are positive (0.0 when there is none)."""
    logs = [math.log(b / g) for g, _, b in rounds if g > 0 and b > 0]
    return sum(logs) / len(logs) if logs else 0.0


def interval(values, level):
    """(mean, low, high): the mean and its two-sided Student's t interval at level."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.inf
    half = float(scipy_stats.t.ppf(1 - (1 - level) / 2, n - 1)) * sd / math.sqrt(n) if sd else 0.0
    return mean, mean - half, mean + half


def decide(rounds, alpha, looks, change=None):
    """(GOOD, BAD or None, (position, low, high) or None) of a candidate's rounds; change: the ends'
    relative change measured on the ends' rounds (bad / good - 1), else D is taken from these rounds."""
    gaps = midpoint_gaps(rounds)
    d = math.log1p(change) if change is not None and change > -1 else ends_change(rounds)
    if len(gaps) < MIN_ROUNDS or d == 0:
        return None, None
    mean, low, high = interval(gaps, 1 - alpha / max(1, looks))
    pos = sorted((0.5 + low / d, 0.5 + high / d))
    if pos[1] < 0.5:
        return GOOD, (0.5 + mean / d, pos[0], pos[1])
    if pos[0] > 0.5:
        return BAD, (0.5 + mean / d, pos[0], pos[1])
    return None, (0.5 + mean / d, pos[0], pos[1])
