"""choose.py - what advise confirms on the program: the screen's Pareto front and the best per goal.

Always holds: the baseline (glibc at its defaults) is never a candidate; for one figure (time,
memory, latency) the order is each allocator's best by it, best first, then the rest by it; for
balanced the goal's best first, then the rest of the time/peak RSS front (tune's pareto_front),
then the best for each other figure, then each allocator's best; so that a budget that keeps the
first K keeps the most telling ones; a screened row without figures is never chosen.
"""
from heapbench.tune import pareto

SCREEN_FIGURE = {"time": "time", "memory": "peak_kb", "latency": "p99", "balanced": "time"}
# A screen by runs of the program has no malloc p99: latency is ranked by the program's speed.
PROGRAM_FIGURE = dict(SCREEN_FIGURE, latency="time")


def choose_figure(row, key):
    """A screen row's figure for ordering (infinity when it has none: a failed or unmeasured row last)."""
    value = row.get(key)
    return value if value is not None else float("inf")


def choose(rows, goal, program=False):
    """The screened candidates worth confirming, in order (baseline excluded; the budget keeps the first
    K): for time, memory and latency each allocator's best by the goal's figure, best first, then
    the rest by it (a noisy screen's luckiest setting of one allocator cannot take every place);
    for balanced the best for the goal, the rest of the time/RSS Pareto front by the goal's figure,
    the best for each other goal, then each allocator's best. program: the screen ran the
    program itself (PROGRAM_FIGURE ranks it)."""
    usable = [dict(r, mem=r["peak_kb"]) for r in rows
              if r.get("time") is not None and r.get("peak_kb") is not None and not r["baseline"]]
    if not usable:
        return []
    key = (PROGRAM_FIGURE if program else SCREEN_FIGURE)[goal]

    def goal_order(r):
        return r.get(key) if r.get(key) is not None else float("inf")
    if goal != "balanced":  # each allocator's best by the goal's figure first, then the rest by it
        firsts = {}
        for r in sorted(usable, key=goal_order):
            firsts.setdefault(r["allocator"], r)
        out = list(firsts.values())
        out += sorted((r for r in usable if r not in out), key=goal_order)
        return [{"allocator": r["allocator"], "settings": r["settings"], "label": r["label"], "env": r["env"]}
                for r in out]
    ordered = sorted(pareto.pareto_front(usable), key=goal_order)
    best = min(usable, key=goal_order)
    out = [best] + [r for r in ordered if r is not best]
    for other in ("time", "peak_kb", "p99"):
        have = [r for r in usable if r.get(other) is not None]
        if have:
            pick = min(have, key=lambda r: r[other])
            if pick not in out:
                out.append(pick)
    for allocator in sorted({r["allocator"] for r in usable}):  # then each allocator's best, for the budget to fill
        pick = min((r for r in usable if r["allocator"] == allocator), key=goal_order)
        if pick not in out:
            out.append(pick)
    return [{"allocator": r["allocator"], "settings": r["settings"], "label": r["label"], "env": r["env"]} for r in out]


def choose_cells(chosen, user_env=""):
    """The cells the runner measures for these candidates and the baseline: allocators x env sets."""
    return len({"glibc"} | {c["allocator"] for c in chosen}) * len({user_env} | {c["env"] for c in chosen})
