"""grid.py - the points heapbench tune measures: --grid parsing and the search order.

Always holds: a point is a tuple of (Knob, canonical value) pairs in catalogue order, each knob
at most once; () is the default point (nothing set) and comes first in every list this module
returns; no list holds the same point twice; a budget caps the distinct points measured, default included.
"""
import itertools
import math

from heapbench.tune import knobs

# Knobs that set the same thing and are never combined by the default search (both set is the
# explicit grid's business; verify.py then reports which of them glibc used).
ALIASES = {frozenset({"arena_max", "MALLOC_ARENA_MAX"})}


def grid_parse(family, spec):
    """[(Knob, [values])] of a --grid text 'name=v1,v2;name2=v3'; every knob of the family when spec is None.

    Raises KnobError for an unknown name, a bad value, a knob given twice or an empty list,
    with a message that says what is valid.
    """
    if spec is None:
        return [(k, list(k.candidates)) for k in knobs.knobs_family(family) if k.candidates]
    grid, seen = [], set()
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, eq, values = part.partition("=")
        if not eq:
            raise knobs.KnobError(f"--grid item '{part}' has no '='; write name=v1,v2 (e.g. arena_max=1,2,4)")
        knob = knobs.knobs_find(family, name.strip())
        if knob.name in seen:
            raise knobs.KnobError(f"--grid names {knob.name} twice; give each knob once")
        seen.add(knob.name)
        parsed = []
        for value in filter(None, (v.strip() for v in values.split(","))):
            canon = knob.parse(value)
            if canon not in parsed:
                parsed.append(canon)
        if not parsed:
            raise knobs.KnobError(f"--grid item '{part}' lists no value; write {knob.name}=v1,v2")
        grid.append((knob, parsed))
    if not grid:
        raise knobs.KnobError("--grid is empty; write e.g. 'arena_max=1,2,4;tcache_count=0,7,64'")
    order = {id(k): i for i, k in enumerate(knobs.knobs_family(family))}
    return sorted(grid, key=lambda item: order[id(item[0])])


def grid_label(point):
    """Readable name of a point: 'arena_max=2 tcache_count=0', or 'default'."""
    return " ".join(f"{k.name}={v}" for k, v in point) or "default"


def grid_singles(grid):
    """The default point, then each knob alone at each of its values.

    Round-robin over the knobs (every knob's first value, then every knob's second, ...), so
    that a budget that cuts the list still tries every knob.
    """
    longest = max((len(values) for _, values in grid), default=0)
    return grid_unique([()] + [((knob, values[i]),) for i in range(longest) for knob, values in grid
                               if i < len(values)])


def grid_full(grid):
    """The default point, then every combination of one value per knob of the grid."""
    return grid_unique([()] + [tuple(zip([k for k, _ in grid], combo))
                               for combo in itertools.product(*[vals for _, vals in grid])])


def grid_combos(best):
    """Points that combine two or more knobs: the product of each knob's best values (plus unset).

    best: [(Knob, [values])] as grid_best() returns. Combinations of aliases are left out;
    single-knob points (measured already) are left out. Default point first, then pairs,
    then triples and so on, so that a budget keeps the simplest combinations.
    """
    choices = [[None] + [(knob, v) for v in values] for knob, values in best]
    points = [()]
    for combo in itertools.product(*choices):
        point = tuple(c for c in combo if c is not None)
        names = {k.name for k, _ in point}
        if len(point) >= 2 and not any(alias <= names for alias in ALIASES):
            points.append(point)
    return grid_unique(sorted(points, key=len))


def grid_best(grid, scores, margin=0.02, keep=3):
    """Per knob, the best 2-3 of its values from single-knob scores; knobs that never beat the default are dropped.

    scores: {point: (time_ratio, mem_ratio)} relative to the default (1.0 = the same; lower is
    better), for single-knob points. Kept per knob: the fastest value, the smallest value and
    the best product time*memory, each only if it beats the default in that objective by more
    than margin (a fraction: noise-sized gains do not earn a place in the combinations).
    """
    best = []
    for knob, values in grid:
        measured = [(v, scores[((knob, v),)]) for v in values if ((knob, v),) in scores]
        picks = []
        objectives = (lambda s: s[0], lambda s: s[1], lambda s: s[0] * s[1])
        for objective in objectives[:keep]:
            good = [(objective(s), v) for v, s in measured
                    if objective(s) < 1.0 - margin and not math.isnan(objective(s))]
            if good and min(good)[1] not in picks:
                picks.append(min(good)[1])
        if picks:
            best.append((knob, picks))
    return best


def grid_unique(points):
    """The points in order without repeats (a point is equal to another with the same pairs)."""
    seen, out = set(), []
    for point in points:
        key = grid_key(point)
        if key not in seen:
            seen.add(key)
            out.append(point)
    return out


def grid_budget(points, measured, budget):
    """The points a phase may measure: the default, those measured already (re-measured for
    comparison, they cost nothing new), and the first fresh ones while fewer than budget
    distinct points have been measured in all. measured: keys (grid_key) of measured points;
    budget None: all points.
    """
    if budget is None:
        return list(points)
    room = budget - len(set(measured) | {()})  # the default always counts
    fresh = [grid_key(p) for p in points if p and grid_key(p) not in measured]
    keep = set(fresh[:max(0, room)])
    return [p for p in points if not p or grid_key(p) in measured or grid_key(p) in keep]


def grid_key(point):
    """Identity of a point: its (knob name, value) pairs."""
    return tuple((k.name, v) for k, v in point)
