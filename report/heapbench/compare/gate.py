"""gate.py - the outcome of a `heapbench ci` gate (every mode): PASS, FAIL or UNDECIDED, and its exit status.

Always holds: a gate passes only when it decided every comparison it made: SAME (the interval
within +-threshold) or IMPROVEMENT. A confirmed REGRESSION fails (exit 1); otherwise any UNDECIDED
comparison (an interval wider than the threshold allows, too few reps or history points, or no
data on one side) leaves the gate UNDECIDED (exit 3), with one line saying what it needs, unless
the user asked for --allow-unknown (then it passes and says how much it left undecided).
A gate that compared nothing is never a PASS (check_shared exits 1 before the outcome).
"""
import math
import sys

from heapbench.compare import verdicts
from heapbench import stats

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_UNDECIDED = 3


def needs(rows):
    """What the UNDECIDED rows need, as text: the widest interval's half-width, the reps
    that would likely decide, and the distinct reasons of the rows that had no data (at most three named)."""
    seen = [x for x in map(stats.stats_resolution, rows) if not math.isnan(x)]
    reps = max((r.get("needed_reps") or 0 for r in rows
                if not r.get("note") or not math.isnan(stats.stats_resolution(r))), default=0)
    parts = [f"the widest interval of a change is +-{max(seen) * 100:.1f}%"] if seen else []
    if reps >= stats.MAX_NEEDED_REPS:
        parts.append(f"a change sits on its threshold: no -n up to {stats.MAX_NEEDED_REPS - 1} would likely decide it")
    elif reps:
        parts.append(f"run with -n {reps} or more")
    reasons = sorted({r["note"] for r in rows if r.get("note") and math.isnan(stats.stats_resolution(r))})
    parts += reasons[:3] + ([f"and {len(reasons) - 3} other reasons"] if len(reasons) > 3 else [])
    return "; ".join(parts)


def outcome(result, allow_unknown, where, prog="ci"):
    """Prints the gate's last line (PASS, FAIL or UNDECIDED) on stderr and returns its exit status.
    where: the directory holding the batches, named in the line."""
    failed = verdicts.count(result, stats.REGRESSION)
    unknown = [r for r in result["rows"] if r["verdict"] == stats.UNDECIDED]
    total = len(result["rows"])
    if failed:
        print(f"{prog}: FAIL: {failed} confirmed regression(s); results in {where}", file=sys.stderr)
        return EXIT_FAIL
    if unknown and not allow_unknown:
        print(f"{prog}: UNDECIDED: {len(unknown)} of {total} comparisons are UNDECIDED, so the gate cannot "
              f"pass: {needs(unknown)} (or accept it with --allow-unknown); results in {where}", file=sys.stderr)
        return EXIT_UNDECIDED
    left = f" ({len(unknown)} of {total} comparisons UNDECIDED, allowed by --allow-unknown)" if unknown else ""
    print(f"{prog}: PASS: 0 confirmed regressions{left}; results in {where}", file=sys.stderr)
    return EXIT_PASS


def reps_to_decide(n_base, alpha):
    """The fewest reps of a new sample with which the combined test can reach alpha against a
    sample of n_base values (uncorrected, as batch 1 screens); None when no n up to 1000 can."""
    for n in range(2, stats.MAX_NEEDED_REPS):
        if stats.stats_min_p(n_base, n) <= alpha:
            return n
    return None


def check_shared(screen, batch_dir, what, fix):
    """Exits 1 when what (the baseline, the history) and the new run share no cell (a gate that
    compared nothing must not pass; fix says what to do); a warning when fewer than half of the
    cells of either side are shared."""
    shared = len({(r["label"], r["host_base"], r["host_new"]) for r in screen["rows"]})
    base_cells, new_cells = shared + len(screen["missing"]), shared + len(screen["extra"])
    if not shared:
        print(f"ci: FAIL: no cells in common between {what} ({base_cells} cells) and this run "
              f"({new_cells} cells, {batch_dir}): nothing was compared; {fix}", file=sys.stderr)
        sys.exit(EXIT_FAIL)
    if 2 * shared < max(base_cells, new_cells):
        print(f"ci: warning: only {shared} cells are shared ({what} {base_cells}, this run {new_cells}); "
              "most of the matrix is not gated", file=sys.stderr)
