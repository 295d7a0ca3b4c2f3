"""mergecheck.py - what `heapbench merge` reports about its inputs: shards and cells missing or duplicated, per host.

Always holds: a series is the set of inputs that together should make one matrix: all inputs
when run numbers are unique across hosts (the shards of one matrix, spread over machines), else
the inputs of each host (whole runs, or shard sets, of the same matrix on several hosts). Each
series must hold shards 1..N once each (N from --expect, else from the inputs' meta.json), and
each shard shard_cells x reps rows; what lacks is counted, per host, never guessed.
"""


def series(inv):
    """[(label, [Input])]: one series per host when run numbers repeat across hosts, else one."""
    if not inv.collide():
        return [("all hosts", list(inv.inputs))]
    by_host = {}
    for entry in inv.inputs:
        host = entry.host or next(iter(entry.run_host.values()), "")
        by_host.setdefault(host, []).append(entry)
    return sorted(by_host.items())


def missing_shards(entries, expect):
    """(N, sorted missing shard indexes, notes) of one series; merged inputs (no shard) count as complete."""
    shards = [e.shard for e in entries if e.shard]
    if len(shards) < len(entries):
        return 0, [], []
    counts = {n for _, n in shards}
    n = expect or max(counts)
    notes = [f"shards of {sorted(counts)} parts mixed"] if len(counts) > 1 or (expect and counts != {expect}) else []
    return n, sorted(set(range(1, n + 1)) - {i for i, m in shards if m == n}), notes


def missing_rows(entries):
    """(rows missing, inputs that did not say how many rows they should have) of a series."""
    lacking, unknown = 0, 0
    for entry in entries:
        want = entry.expected_rows()
        if want is None:
            unknown += 0 if entry.meta.get("complete") else 1
        else:
            lacking += max(0, want - entry.distinct)
    return lacking, unknown


def coverage(inv, expect=None):
    """(report lines, gaps) of an Inventory: one line per series and per host; gaps is True when a
    shard or a (cell, rep) is missing or an input is incomplete."""
    lines, gaps = [], False
    for label, entries in series(inv):
        n, lost, notes = missing_shards(entries, expect)
        lacking, unknown = missing_rows(entries)
        hosts = sorted({e.host for e in entries})
        text = (f"{label}: {len(entries)} input(s)" + (f", shards {', '.join(str(e.shard[0]) for e in entries)} of {n}"
                                                       if n else "")
                + (f"; MISSING shard(s) {', '.join(map(str, lost))}" if lost else "")
                + (f"; {lacking} missing (cell, rep)" if lacking else "")
                + (f"; {unknown} incomplete input(s) (meta.json complete=false)" if unknown else "")
                + "".join(f"; {note}" for note in notes))
        lines.append(text)
        gaps = gaps or bool(lost or lacking or unknown or notes)
        for host in hosts:
            mine = [e for e in entries if e.host == host]
            rows = sum(e.rows for e in mine)
            dup = inv.duplicates.get(host, [0])[0]
            lines.append(f"  host {host or '?'} ({inv.cpu.get(host, ('?',))[0] or '?'}): {rows} runs, "
                         f"shard(s) {', '.join(str(e.shard[0]) if e.shard else 'merged' for e in mine)}, "
                         f"{missing_rows(mine)[0]} missing, {dup} duplicate (cell, rep)")
    return lines, gaps
