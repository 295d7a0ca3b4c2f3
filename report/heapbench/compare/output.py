"""output.py - writes a verdicts.run() result: stdout table, compare.csv, Markdown summary, JUnit XML.

Always holds: every writer shows every row (cell x metric) and the missing/extra cells; files
are written to a temporary name and renamed (a reader never sees half a file); the JUnit file
has one <testcase> per row, a <failure> exactly for REGRESSION and <skipped> for UNKNOWN, and
the Markdown escapes the characters that would break its table.
"""
import io
import math
import os
import xml.etree.ElementTree as ET

from heapbench.compare import verdicts
from heapbench import markdown as md
from heapbench import results

SIGN = {"REGRESSION": "!!", "IMPROVEMENT": "++", "SAME": "  ", "UNKNOWN": "??"}


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


def verdict_text(row):
    """The verdict with its note, or what an UNKNOWN needs, e.g. 'UNKNOWN (needs 5 reps per side)'."""
    if row["verdict"] == "UNKNOWN":
        return f"UNKNOWN ({row['note'] or 'needs %d reps per side' % row['needed_reps']})"
    return f"{row['verdict']} ({row['note']})" if row["note"] else row["verdict"]


def _cells(row):
    """The human columns of one row, in the order of HEADER."""
    ci = "-" if math.isnan(row["ci_low"]) else f"[{_pct(row['ci_low'])}, {_pct(row['ci_high'])}]"
    return [row["label"], row["metric"], _num(row["base_median"]), _num(row["new_median"]),
            _pct(row["change"]), ci, f"{row['p_holm']:.3g}", verdict_text(row)]


HEADER = ["cell", "metric", "base", "new", "change", "95% CI", "p adj", "verdict"]


def summary(result):
    """One line: counts per verdict, missing and extra cells."""
    counts = ", ".join(f"{verdicts.count(result, v)} {v}"
                       for v in ("REGRESSION", "IMPROVEMENT", "SAME", "UNKNOWN"))
    return f"{counts}; {len(result['missing'])} missing, {len(result['extra'])} extra cells"


def table(result, itemize=True):
    """The stdout table as text: aligned columns, a verdict marker, then missing/extra (one line
    per cell when itemize, else one counting line each; the lists are in Markdown and JUnit) and
    the summary."""
    lines = [HEADER] + [_cells(r) for r in result["rows"]]
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
                        ([1] + [row[c] for c in verdicts.COLUMNS] for row in result["rows"]))


def markdown(result, path, title="heapbench compare"):
    """Writes a GitHub-flavoured Markdown summary (fit for $GITHUB_STEP_SUMMARY): regressions
    first, then every other row, then missing/extra cells."""
    order = {"REGRESSION": 0, "UNKNOWN": 1, "IMPROVEMENT": 2, "SAME": 3}
    rows = sorted(result["rows"], key=lambda r: order.get(r["verdict"], 4))
    out = [f"## {md.text(title)}", "", f"**{md.text(summary(result))}**", "",
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(md.text(c) for c in _cells(r)) + " |" for r in rows]
    for name in ("missing", "extra"):
        if result[name]:
            out += ["", f"{name.capitalize()} cells:", ""] + [f"- {md.text(x)}" for x in result[name]]
    _atomic_write(path, "\n".join(out) + "\n")


def junit(result, path, suite="heapbench compare"):
    """Writes JUnit XML: one testcase per (cell, metric), a failure for REGRESSION, skipped for UNKNOWN."""
    rows = result["rows"]
    listed = len(result["missing"]) + len(result["extra"])
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(rows) + listed),
                       failures=str(verdicts.count(result, "REGRESSION")),
                       skipped=str(verdicts.count(result, "UNKNOWN") + listed), errors="0")
    for row in rows:
        tc = ET.SubElement(ts, "testcase", classname=f"{row['workload']}.{row['allocator']}",
                           name=f"{row['label']} {row['metric']}")
        detail = (f"{row['metric']}: {_num(row['base_median'])} -> {_num(row['new_median'])} "
                  f"({_pct(row['change'])}, p_holm={row['p_holm']:.3g}, threshold {row['threshold'] * 100:.0f}%)")
        if row["verdict"] == "REGRESSION":
            ET.SubElement(tc, "failure", message=detail, type="REGRESSION").text = detail
        elif row["verdict"] == "UNKNOWN":
            ET.SubElement(tc, "skipped", message=verdict_text(row))
        else:
            ET.SubElement(tc, "system-out").text = f"{row['verdict']}: {detail}"
    for name in ("missing", "extra"):
        for label in result[name]:
            tc = ET.SubElement(ts, "testcase", classname="cells", name=f"{name} {label}")
            ET.SubElement(tc, "skipped", message=f"{name} cell: {label}")
    ET.indent(root)
    _atomic_write(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n")
