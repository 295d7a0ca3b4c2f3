"""prcomment.py - one Markdown comment for a pull request (or a GitLab merge request) from a gate's result: `heapbench ci --pr-comment FILE`.

The comment leads with the gate's verdict (PASS, FAIL or UNDECIDED, as the gate's exit says), then
the cells that changed (regressions first) with their intervals, then what could not be decided and
why, then the testbed and where the full results are. It starts with a marker line
(MARKER) by which the posting step (examples/post-comment.py) finds its earlier comment and edits it,
so that a pull request holds one heapbench comment however often it is pushed.
Always holds: the text fits GitHub's 65,536-character limit for a comment (LIMIT, with room to
spare): rows beyond it are counted, not listed; every user string goes through output's Markdown
escape; the file is written whole or not at all.
"""
from heapbench import stats
from heapbench import markdown
from heapbench.compare import output

MARKER = "<!-- heapbench:pr-comment -->"
LIMIT = 60000  # GitHub refuses comments over 65,536 characters
UNDECIDED = {stats.UNDECIDED}


def state(result, allow_unknown=False):
    """The gate's verdict word for result: FAIL, UNDECIDED or PASS."""
    verdicts = [r["verdict"] for r in result["rows"]]
    if stats.REGRESSION in verdicts:
        return "FAIL"
    if any(v in UNDECIDED for v in verdicts) and not allow_unknown:
        return "UNDECIDED"
    return "PASS"


def _row(r):
    """One table row of a changed or undecided cell."""
    return "| " + " | ".join(markdown.text(c) for c in output._cells(r)) + " |"


def _table(rows, budget):
    """(lines, rows left out) of a table of rows that fits in budget characters."""
    lines = ["| " + " | ".join(output.HEADER) + " |", "|" + "---|" * len(output.HEADER)]
    used = sum(len(x) + 1 for x in lines)
    for i, r in enumerate(rows):
        line = _row(r)
        if used + len(line) + 1 > budget:
            return lines, len(rows) - i
        lines.append(line)
        used += len(line) + 1
    return lines, 0


def text(result, title="heapbench ci", testbed="", where="", allow_unknown=False):
    """The comment's Markdown."""
    verdict = state(result, allow_unknown)
    changed = [r for r in result["rows"] if r["verdict"] in (stats.REGRESSION, stats.IMPROVEMENT)]
    changed.sort(key=lambda r: (r["verdict"] != stats.REGRESSION, -abs(r["change"]) if r["change"] == r["change"] else 0))
    undecided = [r for r in result["rows"] if r["verdict"] in UNDECIDED]
    head = [MARKER, f"### {markdown.text(title)}: **{verdict}**", "",
            markdown.text(output.summary(result)), ""]
    tail = ["", f"Testbed: {markdown.text(testbed or 'not recorded')}"
            + (f"; full results: {markdown.text(where)}" if where else "")]
    budget = LIMIT - sum(len(x) + 1 for x in head + tail) - 400
    body = []
    if changed:
        lines, cut = _table(changed, budget // 2 if undecided else budget)
        body += [f"**Changed cells ({len(changed)})**", ""] + lines
        body += ["", f"... and {cut} more changed cells (in the full results)"] if cut else []
        budget -= sum(len(x) + 1 for x in body)
    else:
        body += ["No cell changed beyond its threshold."]
    if undecided:
        lines, cut = _table(undecided, budget)
        body += ["", f"**Not decided ({len(undecided)})**: these reps could not tell; the verdict column says "
                 "what would decide", ""] + lines
        body += ["", f"... and {cut} more undecided cells (in the full results)"] if cut else []
    out = "\n".join(head + body + tail) + "\n"
    return out if len(out) <= LIMIT else out[:LIMIT - 60] + "\n\n(cut at GitHub's comment limit)\n"


def write(result, path, **kwargs):
    """Writes the comment to path (whole, through a rename)."""
    output._atomic_write(path, text(result, **kwargs))
