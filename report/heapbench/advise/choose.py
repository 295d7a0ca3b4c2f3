"""choose.py - what advise confirms on the program: the screen's Pareto front and the best per goal.

Always holds: the baseline (glibc at its defaults) is never a candidate; for one figure (time,
memory, latency) the order is each allocator's best by it, best first, then the rest by it; for
balanced the goal's best first, then the rest of the time/peak RSS front (tune's pareto_front),
then the best for each other figure, then each allocator's best; so that a budget that keeps the
first K keeps the most telling ones; a screened row without figures is never chosen. A
confirmation round (choose_round) runs the baseline under the caller's own env set, nothing added,
and each candidate as itself: in its cell, the variables its allocator reads (its family's, and
those no family claims) are exactly its setting's; candidates of different families share one
env set, so the runner's allocators x env sets product holds few cells nobody asked for.
"""
from heapbench import registry
from heapbench.tune import knobs, pareto

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


def choose_families():
    """{allocator: knob family} of the registry (its tunables column: refmalloc reads glibc's)."""
    return {name: entry.tunables for name, entry in registry.read_registry().items()}


def _by_family(words):
    """{family or None: set of words} of an env set's NAME=VALUE words (knobs.knobs_var_family)."""
    out = {}
    for word in words:
        out.setdefault(knobs.knobs_var_family(word.split("=", 1)[0]), set()).add(word)
    return out


def _fits(env_set, first, own, family):
    """Whether a candidate of family with env words own runs as itself in env_set: the words of
    env_set its allocator reads (its family's and those every allocator reads) are exactly own.
    first: env_set is the baseline's, which takes no word; another set may take own's family words
    when it holds none of that family yet (no other candidate of the family is in it)."""
    have, want = _by_family(env_set), _by_family(own)
    if have.get(None, set()) != want.get(None, set()):
        return False
    return have.get(family, set()) == want.get(family, set()) or (not first and not have.get(family))


def choose_round(chosen, user_env="", families=None):
    """(allocators, env sets, {label: the env set its cell runs in}) of one confirmation round of chosen
    candidates and the baseline (glibc under user_env, the first env set, to which nothing is added).

    The runner measures every allocator under every env set; an allocator reads only its own family's
    variables (knobs.knobs_var_family), so the settings of candidates of different families share
    one env set and each candidate's cell is its allocator under the set that holds its setting:
    python3-alloc's four candidates of four families (glibc and refmalloc trim_threshold=0, jemalloc
    dirty_decay_ms=0, tcmalloc-minimal max_total_thread_cache_bytes=1M) run in 4 x 2 cells, not 4 x 4.
    A variable that no family claims (HEAPBENCH_THP) is read by every allocator: a set holds it only for
    candidates that set it alike."""
    families = families if families is not None else choose_families()
    sets, cell = [user_env.split()], {}
    for c in chosen:
        own, family = c["env"].split(), families.get(c["allocator"], c["allocator"])
        for i, env_set in enumerate(sets):
            if _fits(env_set, i == 0, own, family):
                break
        else:
            sets.append([])
            i = len(sets) - 1
        sets[i] = sets[i] + [w for w in own if w not in sets[i]]
        cell[c.get("label", c["allocator"])] = i
    texts = [" ".join(words) for words in sets]
    allocators = sorted({"glibc"} | {c["allocator"] for c in chosen})
    return allocators, texts, {label: texts[i] for label, i in cell.items()}


def choose_cells(chosen, user_env="", families=None):
    """The cells the runner measures for these candidates and the baseline: allocators x env sets of choose_round."""
    allocators, envs, _ = choose_round(chosen, user_env, families)
    return len(allocators) * len(envs)
