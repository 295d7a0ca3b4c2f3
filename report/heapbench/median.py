"""median.py - the one median of the Python side: the middle value of a sample, or the mean of the two middle ones.

Always holds: median() sorts a copy (its argument, any iterable of numbers, is left as it is);
an empty sample gives None; the value is statistics.median's and, for floats, the very float
numpy.median gives (both take the mean of the two middle values as (a + b) / 2), so every
figure computed through it is the one computed before it was the only median.
"""


def median(values):
    """The median of values (any iterable of numbers), None when there are none."""
    ordered = sorted(values)
    if not ordered:
        return None
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
