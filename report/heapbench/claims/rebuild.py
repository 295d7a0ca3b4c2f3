"""rebuild.py - the figures of the independent rebuilds (claims/bench/rebuild_check.py) and whether they agree with a row.

The list rebuild is article 000's program written again from its text, one noinline function per
step it timed (build_malloc, walk, drop_malloc, build_arena, drop_arena) and print_line, the first
printf after the frees; callgrind's per-function costs (inclusive, and self for the loops) give
each step's user-space instructions and a per-node breakdown. The pool rebuild is article 002's
program, one CPU time (clock()) per run and side. A rebuild agrees with a row when their intervals
overlap (an instruction count is a point; a range of readings of what the article leaves unsaid is
an interval); when they do not, `same_verdict` says whether the row's judge would still decide the
same on the rebuild's figure.
Always holds: a missing function or figure gives None, never an exception; the list's step ratios
count only the steps the article timed (print_line's cost is shown apart, never in a step).
"""
from heapbench.claims import verdict as V

LIST_STEPS = ("build_malloc", "walk", "drop_malloc", "build_arena", "drop_arena", "print_line")


def list_steps(incl, self_cost):
    """{step: inclusive Ir} for LIST_STEPS plus 'build_malloc_loop' and 'drop_malloc_loop' (the
    functions' self cost: the loops around malloc and free), from callgrind_annotate's inclusive and
    self tables ({function: Ir}); None when a step is missing (walk runs twice: its cost is both walks)."""
    steps = {f: incl.get(f) for f in LIST_STEPS}
    steps["build_malloc_loop"] = self_cost.get("build_malloc")
    steps["drop_malloc_loop"] = self_cost.get("drop_malloc")
    return None if None in steps.values() else steps


def list_ratios(s):
    """(build, total) malloc / arena over the timed steps, the reading the article's timers give,
    and the same two with print_line's cost counted on malloc's side (the whole-process per-function
    reading: the first printf's malloc consolidates the freed chunks)."""
    walk = s["walk"] / 2
    bm, ba = s["build_malloc"], s["build_arena"]
    tm, ta = bm + walk + s["drop_malloc"], ba + walk + s["drop_arena"]
    p = s["print_line"]
    return {"build": bm / ba, "total": tm / ta, "build+print": (bm + p) / ba, "total+print": (tm + p) / ta}


def per_node(s, nodes):
    """Instructions a node of each part: malloc's loop and one malloc, the free loop and one free, the
    arena's loop, one walk's step, and print_line's (the consolidation) spread over the nodes."""
    return {"malloc loop": s["build_malloc_loop"] / nodes,
            "malloc": (s["build_malloc"] - s["build_malloc_loop"]) / nodes,
            "free loop": s["drop_malloc_loop"] / nodes,
            "free": (s["drop_malloc"] - s["drop_malloc_loop"]) / nodes,
            "arena loop": s["build_arena"] / nodes, "walk": s["walk"] / 2 / nodes,
            "first printf": s["print_line"] / nodes}


def span(*points):
    """The Interval from the smallest to the largest of points (the readings an article leaves
    open); None when any is missing."""
    if not points or None in points:
        return None
    return V.Interval(sorted(points)[len(points) // 2], min(points), max(points), len(points))


def agrees(a, b):
    """True when intervals a and b overlap, False when they do not, None when either is missing."""
    if a is None or b is None:
        return None
    return a.lo <= b.hi and b.lo <= a.hi


def same_verdict(a, b, lo=None, hi=None):
    """True when a row's judge (its bounds lo/hi) gives intervals a and b the same verdict kind."""
    if a is None or b is None:
        return None
    return V.decide(a, lo=lo, hi=hi).kind == V.decide(b, lo=lo, hi=hi).kind
