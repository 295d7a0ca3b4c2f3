"""sequential.py - the adaptive rule of a gate that chooses its own reps (`ci --ab --budget`): the budget, the looks, the alpha of each look.

Always holds: pure (no I/O). A gate with a budget measures in interleaved rounds and looks at its
data at most LOOKS times, the looks and the alpha of each fixed before the first round; the alpha
is spent over the looks in the proportions 1 : 2 : ... : LOOKS (Bonferroni over the looks: the
parts sum to alpha, so the chance of any false REGRESSION or IMPROVEMENT over all looks together
is at most alpha, however the gate stops; stopping early, or skipping looks when a time budget
runs out, only lowers it). Within a look, Holm corrects over the cells of a metric at that look's
alpha, and SAME needs the interval at that look's level (TOST at that alpha). Look 1 comes at the
fewest rounds with which the test can reach look 1's alpha over the cells; the later looks are
spaced geometrically up to the budget's last round. A budget is runs (a whole number: '400'
runs, each side of each cell one run per round) or wall-clock seconds of measuring ('60s', '2m');
0, negative, NaN, infinite, or a budget whose rounds cannot reach look 1 is refused (ValueError,
a one-line message saying what to give).
"""
import collections
import math
import re

LOOKS = 4
MIN_RUN_S = 0.05  # a run (start of the runner, the program, its result files) never takes less: the floor of a seconds budget

Budget = collections.namedtuple("Budget", "runs seconds text")  # one of runs / seconds is None


def parse_budget(text):
    """Budget from '400' (runs), '60s' or '2m' (seconds of measuring); ValueError saying what to give."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|m|runs)?\s*", str(text))
    fix = "give runs as a whole number (--budget 400) or seconds of measuring (--budget 60s, --budget 2m)"
    if not match:
        raise ValueError(f"--budget {text!r} is neither runs nor seconds; {fix}")
    amount, unit = float(match.group(1)), match.group(2) or "runs"
    if not math.isfinite(amount) or amount <= 0:
        raise ValueError(f"--budget {text!r}: a budget must be above 0; {fix}")
    if unit == "runs":
        if amount != int(amount):
            raise ValueError(f"--budget {text!r}: runs are a whole number; {fix}")
        return Budget(int(amount), None, text)
    return Budget(None, amount * (60 if unit == "m" else 1), text)


def look_alphas(alpha, looks=LOOKS):
    """The alpha of each look: alpha in the proportions 1 : 2 : ... : looks (they sum to alpha)."""
    total = looks * (looks + 1) / 2
    return [alpha * k / total for k in range(1, looks + 1)]


def first_look(alpha, cells, min_p, looks=LOOKS):
    """The fewest rounds with which the test (smallest p of n rounds: min_p(n)) can reach look 1's
    alpha over Holm's family of cells."""
    target = look_alphas(alpha, looks)[0] / max(1, cells)
    n = 1
    while min_p(n) > target:
        n += 1
    return n


def schedule(first, last, looks=LOOKS):
    """The rounds after which each look comes: first, then geometric steps up to last; fewer looks
    (never more) when last - first leaves no room for them; [] when last < first."""
    if last < first:
        return []
    if looks == 1 or last == first:
        return [last]
    points = [round(first * (last / first) ** (k / (looks - 1))) for k in range(looks)]
    out = []
    for p in points:
        if not out or p > out[-1]:
            out.append(p)
    out[-1] = last
    return out


def last_round(budget, runs_per_round, done=0, seconds_spent=0.0, seconds_left=None):
    """The last round the budget pays for: a runs budget's whole rounds; a seconds budget's from the
    time the done rounds took (seconds_spent) and the seconds left for rounds (None: the budget less
    seconds_spent); None before any round: not known yet."""
    if budget.runs is not None:
        return budget.runs // max(1, runs_per_round)
    if done == 0:
        return None
    per_round = max(seconds_spent / done, MIN_RUN_S * runs_per_round)  # no run is quicker than the floor
    left = budget.seconds - seconds_spent if seconds_left is None else seconds_left
    return done + max(0, int(left / per_round))


def check(budget, first, runs_per_round):
    """ValueError (one line, what to give) when the budget cannot pay for look 1's rounds."""
    need = first * runs_per_round
    if budget.runs is not None and budget.runs < need:
        raise ValueError(f"--budget {budget.text}: {budget.runs} runs cannot decide anything: the first look "
                         f"needs {first} rounds of {runs_per_round} runs; give --budget {need} or more")
    if budget.seconds is not None and budget.seconds < need * MIN_RUN_S:
        raise ValueError(f"--budget {budget.text}: {budget.seconds:g} s cannot decide anything: the first look "
                         f"needs {need} runs of at least {MIN_RUN_S} s each; give --budget {math.ceil(need * MIN_RUN_S)}s "
                         "or more (a minute or more on a loaded machine)")


def next_look(first, last, done, looks_left):
    """The round count of the next look of a gate that has run done rounds (0 before look 1) and
    has looks_left looks left, the budget paying up to round last (None: not known yet); None when
    no look is left or the budget is spent."""
    if looks_left <= 0:
        return None
    if done == 0:
        return first if last is None else min(first, last)
    if last is None or last <= done:
        return None
    return schedule(done, last, looks_left + 1)[1]
