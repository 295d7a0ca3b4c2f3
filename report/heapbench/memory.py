"""memory.py - memory over a long life, from the phases of the server workload: RSS drift over cycles, memory returned after idle, time to return half.

Definitions in docs/MEMORY.md. Always holds: only phase rows are read (phases.csv, docs/DATA.md), one
run's at a time, in file order; a cycle is the phases
`cN-load` and `cN-idle-<mark>s` of one run; a figure that cannot be computed (one cycle for a
slope, nothing reclaimable) is None, never 0. Reclaimable memory at the end of a load is RSS
minus the live requested bytes; what an idle mark returned is the RSS drop since the load's end
as a fraction of it.
"""
import re

from heapbench.median import median

LOAD = re.compile(r"^c(\d+)-load$")
IDLE = re.compile(r"^c(\d+)-idle-([0-9.]+)s$")


def cycles(phases):
    """{cycle: {"load": row, "marks": [(seconds, row), ...] in time order}} of one run's phase rows."""
    out = {}
    for row in phases:
        m = LOAD.match(row["phase"])
        if m:
            out.setdefault(int(m.group(1)), {"load": None, "marks": []})["load"] = row
            continue
        m = IDLE.match(row["phase"])
        if m:
            out.setdefault(int(m.group(1)), {"load": None, "marks": []})["marks"].append((float(m.group(2)), row))
    for c in out.values():
        c["marks"].sort(key=lambda x: x[0])
    return {k: v for k, v in sorted(out.items()) if v["load"]}


def slope(xs, ys):
    """Least-squares slope of ys over xs; None with fewer than two distinct xs."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


STEADY = 0.05  # a cycle's live set within 5% of the last cycle's counts as the steady live set


def steady_cycles(cyc):
    """The cycles at the constant live set: from the first one whose end-of-load live bytes are
    within STEADY of the last cycle's (server's long-lived set grows for --keep-cycles first)."""
    if not cyc:
        return []
    last = cyc[max(cyc)]["load"]["live_bytes"]
    xs = list(cyc)
    for i, c in enumerate(xs):
        if abs(cyc[c]["load"]["live_bytes"] - last) <= STEADY * last:
            return xs[i:]
    return xs[-1:]


def drift_kb_per_cycle(cyc):
    """RSS drift: least-squares slope of end-of-load RSS over the steady cycles, KiB per cycle;
    None with fewer than two of them."""
    xs = steady_cycles(cyc)
    return slope(xs, [cyc[c]["load"]["rss_kb"] for c in xs])


def reclaimable_kb(load_row):
    """RSS beyond the live requested bytes at the end of a load, KiB; None when there is none."""
    extra = load_row["rss_kb"] - load_row["live_bytes"] / 1024
    return extra if extra > 0 else None


def returned(cyc):
    """[(cycle, mark seconds, fraction of the reclaimable memory returned)] for every idle mark."""
    out = []
    for c, v in cyc.items():
        base = reclaimable_kb(v["load"])
        for s, row in v["marks"]:
            out.append((c, s, None if base is None else (v["load"]["rss_kb"] - row["rss_kb"]) / base))
    return out


def half_return_s(cyc, cycle):
    """The first idle mark of that cycle at which half of the reclaimable memory was back; None
    when it never was within the idle (or nothing was reclaimable)."""
    for c, s, frac in returned({cycle: cyc[cycle]}):
        if frac is not None and frac >= 0.5:
            return s
    return None


def run_metrics(phases):
    """The metrics of one run's phase rows: {"drift_kb": slope or None, "returned": {mark: median
    fraction over the steady cycles}, "half_s": {cycle: seconds or None}}; None when the run has
    no cycle (not a server run)."""
    cyc = cycles(phases)
    if not cyc:
        return None
    steady = steady_cycles(cyc)
    marks = {}
    for _, s, frac in returned({c: cyc[c] for c in steady}):
        if frac is not None:
            marks.setdefault(s, []).append(frac)
    return {"drift_kb": drift_kb_per_cycle(cyc),
            "returned": {s: median(v) for s, v in sorted(marks.items())},
            "half_s": {c: half_return_s(cyc, c) for c in steady}}


def half_text(halves):
    """'+5 s' (the median of the cycles that got there) and how many did, or 'not within the idle'."""
    got = [h for h in halves if h is not None]
    if not got:
        return f"not within the idle (0 of {len(halves)} cycles)"
    return f"+{median(got):g} s ({len(got)} of {len(halves)} cycles)"
