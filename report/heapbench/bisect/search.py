"""search.py - the bisection itself, pure: which commit to measure next, and what the measured ones say.

The range is a list of commits oldest first; index -1 stands for the good end and len-1 is the bad
end. Each measured commit is GOOD or BAD (it behaves like that end) or SKIP (its build or run
failed, or its measurement could not decide), as `git bisect skip` treats it.
Always holds: the first bad commit lies in (last good, first bad]; the next commit to measure is
the unmeasured one closest to that interval's middle (so skipped commits never make the search
linear); the search is over when no unmeasured commit is left inside the interval, and then the
commits that were not ruled out are the interval's skipped ones and its bad end. A commit next to
the interval's ends (the last good or the first bad) is on the boundary: deciding it narrows the
answer at once, leaving it undecided leaves it in the answer, so it is worth more rounds; once the
search is over, an undecided commit on the boundary is revisited (its rounds continued).
"""
GOOD, BAD, SKIP = "good", "bad", "skip"


def bounds(n, verdicts):
    """(lo, hi): the last commit known good (-1: the good end) and the first known bad (n-1 at least)
    of a range of n commits, from {index: verdict}."""
    lo = max([i for i, v in verdicts.items() if v == GOOD] + [-1])
    hi = min([i for i, v in verdicts.items() if v == BAD and i > lo] + [n - 1])
    return lo, hi


def next_index(n, verdicts):
    """The index to measure next, or None when the search is over."""
    lo, hi = bounds(n, verdicts)
    open_ = [i for i in range(lo + 1, hi) if i not in verdicts]
    if not open_:
        return None
    middle = (lo + hi) / 2
    return min(open_, key=lambda i: (abs(i - middle), i))


def on_boundary(n, verdicts, index):
    """True when index is next to the last known good commit or the first known bad one."""
    lo, hi = bounds(n, verdicts)
    return lo < index < hi and index in (lo + 1, hi - 1)


def revisit(n, verdicts, undecided):
    """Once the search is over (next_index None): the commit of undecided (indices that may be measured
    more) on the boundary to measure again, the one next to the last good first; None when there is none."""
    if next_index(n, verdicts) is not None:
        return None
    lo, hi = bounds(n, verdicts)
    for i in (lo + 1, hi - 1):
        if lo < i < hi and i in undecided:
            return i
    return None


def answer(n, verdicts):
    """(first bad index or None, candidates): when exactly one commit can be the first bad one it is
    returned with [it]; otherwise None with every index not ruled out (skipped, or not measured when
    the search stopped early), oldest first."""
    lo, hi = bounds(n, verdicts)
    candidates = [i for i in range(lo + 1, hi) if verdicts.get(i, SKIP) == SKIP] + [hi]
    return (hi if len(candidates) == 1 else None), candidates


def max_steps(n):
    """ceil(log2(n)): the steps a bisection of n commits takes when nothing is skipped."""
    steps = 0
    while (1 << steps) < n:
        steps += 1
    return steps
