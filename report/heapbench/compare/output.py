"""output.py - writes a verdicts.run() result: stdout table, compare.csv, Markdown summary, JUnit XML.

Always holds: every writer shows every row (cell x metric) and the missing/extra cells; files
are written to a temporary name and renamed (a reader never sees half a file); the JUnit file
has one <testcase> per row, a <failure> exactly for REGRESSION and <skipped> for UNDECIDED, and
the Markdown escapes the characters that would break its table. Every writer spells the verdicts
stats.VERDICTS; an UNDECIDED row says what these reps could see and what would decide it.
"""
import io
import math
import os
import xml.etree.ElementTree as ET

from heapbench.compare import verdicts
from heapbench import results, stats

SIGN = {stats.REGRESSION: "!!", stats.IMPROVEMENT: "++", stats.SAME: "  ", stats.UNDECIDED: "??"}


def _atomic_write(path, text):
    """Writes text to path through a temporary file and a rename."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _num(value):
    """A median for humans: 4 significant digits, '-' for NaN."""
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4g}"


def _pct(value):
    """A relative change as a signed percentage, '-' for NaN."""
    if value is None or math.isnan(value):
        return "-"
    return f"{value * 100:+.1f}%" if not math.isinf(value) else ("+inf" if value > 0 else "-inf")


def undecided_text(row):
    """What an UNDECIDED row could see and needs, e.g. 'could see +-12.0% at threshold 5%; ~40 reps
    per side would likely decide', or 'needs 5 reps per side' when its reps cannot reach alpha."""
    needed = row.get("needed_reps") or 0
    resolution = stats.stats_resolution(row)
    if math.isnan(resolution):
        return f"needs {needed} reps per side" if needed else "no interval"
    seen = f"could see +-{resolution * 100:.1f}% at threshold {row['threshold'] * 100:.3g}%"
    if not needed:
        return seen
    if needed >= stats.MAX_NEEDED_REPS:
        return f"{seen}; more than {stats.MAX_NEEDED_REPS - 1} reps per side: the change sits on the threshold"
    more = needed - min(row.get("n_base") or 0, row.get("n_new") or 0)
    return f"{seen}; ~{needed} reps per side ({more} more) would likely decide"


def verdict_text(row):
    """The verdict with its note, or what an UNDECIDED row needs (undecided_text)."""
    if row["verdict"] == stats.UNDECIDED:
        known = not math.isnan(stats.stats_resolution(row))
        parts = [row["note"]] + ([undecided_text(row)] if known or not row["note"] else [])
        return f"{stats.UNDECIDED} ({'; '.join(p for p in parts if p)})"
    return f"{row['verdict']} ({row['note']})" if row["note"] else row["verdict"]


def _cells(row):
    """The human columns of one row, in the order of HEADER."""
    ci = "-" if math.isnan(row["ci_low"]) else f"[{_pct(row['ci_low'])}, {_pct(row['ci_high'])}]"
    return [row["label"], row["metric"], _num(row["base_median"]), _num(row["new_median"]),
            _pct(row["change"]), ci, f"{row['p_holm']:.3g}", verdict_text(row)]


HEADER = ["cell", "metric", "base", "new", "change", "95% CI", "p adj", "verdict"]


def header(result):
    """HEADER with the interval's level of the rows (95% unless alpha asked for a wider one)."""
    levels = {r.get("ci_level", stats.CI_LEVEL) for r in result["rows"]}
    level = levels.pop() if len(levels) == 1 else stats.CI_LEVEL
    return [f"{level * 100:.3g}% CI" if h == "95% CI" else h for h in HEADER]


def summary(result):
    """One line: counts per verdict, missing and extra cells."""
    counts = ", ".join(f"{verdicts.count(result, v)} {v}"
                       for v in stats.VERDICTS)
    return f"{counts}; {len(result['missing'])} missing, {len(result['extra'])} extra cells"


def table(result, itemize=True):
    """The stdout table as text: aligned columns, a verdict marker, then missing/extra (one line
    per cell when itemize, else one counting line each; the lists are in Markdown and JUnit) and
    the summary."""
    lines = [header(result)] + [_cells(r) for r in result["rows"]]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    out = io.StringIO()
    for i, line in enumerate(lines):
        mark = "  " if i == 0 else SIGN.get(result["rows"][i - 1]["verdict"], "  ")
        out.write(mark + " " + "  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() + "\n")
    for name in ("missing", "extra"):
        if itemize:
            out.writelines(f"{name} cell: {label}\n" for label in result[name])
        elif result[name]:
            where = "baseline only" if name == "missing" else "this run only"
            out.write(f"{len(result[name])} {name} cells ({where}; listed in the --markdown and --junit outputs)\n")
    out.write(summary(result) + "\n")
    return out.getvalue()


def csv(result, path):
    """Writes compare.csv (schema column first, like every heapbench CSV; columns verdicts.COLUMNS)."""
    results.write_csv(path, ("schema",) + verdicts.COLUMNS,
                        ([1] + [dict(row, resolution=stats.stats_resolution(row))[c] for c in verdicts.COLUMNS]
                         for row in result["rows"]))


def _md_escape(text):
    """Text safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown(result, path, title="heapbench compare"):
    """Writes a GitHub-flavoured Markdown summary (fit for $GITHUB_STEP_SUMMARY): regressions
    first, then every other row, then missing/extra cells."""
    order = {stats.REGRESSION: 0, stats.UNDECIDED: 1, stats.IMPROVEMENT: 2, stats.SAME: 3}
    rows = sorted(result["rows"], key=lambda r: order.get(r["verdict"], 4))
    out = [f"## {_md_escape(title)}", "", f"**{_md_escape(summary(result))}**", "",
           "| " + " | ".join(header(result)) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(_md_escape(c) for c in _cells(r)) + " |" for r in rows]
    for name in ("missing", "extra"):
        if result[name]:
            out += ["", f"{name.capitalize()} cells:", ""] + [f"- {_md_escape(x)}" for x in result[name]]
    _atomic_write(path, "\n".join(out) + "\n")


def junit(result, path, suite="heapbench compare"):
    """Writes JUnit XML: one testcase per (cell, metric), a failure for REGRESSION, skipped for UNDECIDED."""
    rows = result["rows"]
    listed = len(result["missing"]) + len(result["extra"])
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(rows) + listed),
                       failures=str(verdicts.count(result, stats.REGRESSION)),
                       skipped=str(verdicts.count(result, stats.UNDECIDED) + listed), errors="0")
    for row in rows:
        tc = ET.SubElement(ts, "testcase", classname=f"{row['workload']}.{row['allocator']}",
                           name=f"{row['label']} {row['metric']}")
        detail = (f"{row['metric']}: {_num(row['base_median'])} -> {_num(row['new_median'])} "
                  f"({_pct(row['change'])}, p_holm={row['p_holm']:.3g}, threshold {row['threshold'] * 100:.0f}%)")
        if row["verdict"] == stats.REGRESSION:
            ET.SubElement(tc, "failure", message=detail, type=stats.REGRESSION).text = detail
        elif row["verdict"] == stats.UNDECIDED:
            ET.SubElement(tc, "skipped", message=verdict_text(row))
        else:
            ET.SubElement(tc, "system-out").text = f"{row['verdict']}: {detail}"
    for name in ("missing", "extra"):
        for label in result[name]:
            tc = ET.SubElement(ts, "testcase", classname="cells", name=f"{name} {label}")
            ET.SubElement(tc, "skipped", message=f"{name} cell: {label}")
    ET.indent(root)
    _atomic_write(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n")
