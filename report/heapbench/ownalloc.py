"""ownalloc.py - the runs of a program that brings its own allocator, and the refusal to rank
allocators on them (compare, advise and tune ask it before they rank).

Always holds: a run brings its own allocator when runs.csv's own_allocator column names one
(docs/DATA.md: the exec probe's and the runner's findings); the refusal names every such
workload once, with the allocator found and the share of its anonymous memory the preloaded
allocator had (preloaded_share, the lowest of its runs), and says how to go on anyway.
"""

ALLOW_FLAG = "--allow-own-allocator"
ALLOW_HELP = ("rank allocators even for a program that brings its own allocator (runs.csv's own_allocator): "
              "its figures are then not the preloaded allocator's alone")


def own_findings(runs):
    """{workload: (own allocator names, lowest preloaded_share or None)} of the runs that found one."""
    found = {}
    for row in runs:
        own = row.get("own_allocator") or ""
        if not own:
            continue
        names, share = found.get(row.get("workload"), (set(), None))
        names.update(own.split("+"))
        value = row.get("preloaded_share")
        if value is not None and value != "":
            share = float(value) if share is None else min(share, float(value))
        found[row.get("workload")] = (names, share)
    return found


def own_refusal(runs):
    """The one-line refusal for runs of programs that bring their own allocator; None when none does."""
    found = own_findings(runs)
    if not found:
        return None
    parts = []
    for workload, (names, share) in sorted(found.items()):
        had = f"the preloaded allocator had {share:.0%} of its anonymous memory" if share is not None \
            else "the share the preloaded allocator served is unknown"
        parts.append(f"{workload} brings its own allocator ({'+'.join(sorted(names))}; {had})")
    return (f"{'; '.join(parts)}: allocators are not ranked for a program whose memory another allocator manages; "
            f"give {ALLOW_FLAG} to rank them anyway")
