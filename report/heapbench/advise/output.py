"""output.py - advise's files: advice.json, advice.md, advice.html and the Pareto plot they show.

Always holds: the three files say the same thing in the same order: the answer first (the
recommendation with its interval and trade-off, "keep what you have" or "undecided"), then the candidates refused because a run failed, then the snippets,
then the plot of speed against peak RSS of every candidate measured, then the evidence
(each candidate's stage, figures and verdict, what was dropped); the plot is tune's
pareto_plot; the HTML embeds it, so the file stands alone.
"""
import json
import math
import os

from heapbench import page
from heapbench.advise import progress
from heapbench.tune import pareto

PLOT = "advice.png"


def output_json(directory, advice):
    """Writes DIR/advice.json (NaN written as null)."""
    with open(os.path.join(directory, "advice.json"), "w", encoding="utf-8") as f:
        json.dump(_clean(advice), f, indent=1)
        f.write("\n")


def _clean(value):
    """value with every NaN or infinity replaced by None (JSON has no such numbers)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def output_plot(directory, candidates, speed_name):
    """Writes DIR/advice.png: speed against peak RSS of the confirmed (else screened) candidates; returns its path or ''."""
    for stage in ("confirm", "screen"):
        points = [{"label": c["label"], "env": "" if c.get("baseline") else c["label"], "time": c["time"],
                   "mem": c["peak_kb"]} for c in candidates if c["stage"] == stage
                  and c.get("time") is not None and c.get("peak_kb") is not None]
        if len(points) >= 2:
            path = os.path.join(directory, PLOT)
            pareto.pareto_plot([(f"{stage}: {speed_name} against peak RSS", points)], path, "peak RSS")
            return path
    return ""


def output_markdown(advice):
    """The advice as Markdown text."""
    rec = advice["recommendation"]
    lines = [f"# heapbench advise: {advice['command_text']}", "", f"Goal: **{rec['goal']}**. "
             f"{output_budget_text(advice)}.",
             "", "## Answer", "",
             f"**{rec['text']}**", ""]
    if rec.get("note"):
        lines += [rec["note"], ""]
    if advice.get("refused"):
        lines += ["Refused (a run failed):", ""] + [f"- {label}: {why}" for label, why in advice["refused"].items()] + [""]
    if advice["snippets"]:
        lines += ["## Ready to paste", ""]
        for name, text in advice["snippets"].items():
            lines += [f"{name}:", "", "```", text, "```", ""]
    if advice.get("plot"):
        lines += ["## Speed against peak RSS", "", f"![Pareto plot]({PLOT})", ""]
    lines += ["## Evidence", "", "| stage | candidate | verified | speed | peak RSS MiB | vs baseline (speed, RSS) | verdict |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in advice["candidates"]:
        lines.append(f"| {c['stage']} | {c['label']} | {c['verified']} | {_num(c.get('time'))} | "
                     f"{_num(c.get('peak_kb'), 1024)} | {_pct(c.get('time_change'))}, {_pct(c.get('peak_change'))} | "
                     f"{c.get('verdict', '')} |")
    lines += [""] + [f"- {line}" for line in advice["notes"]]
    if advice["dropped"]:
        lines += ["", "Dropped to fit the budget:", ""] + [f"- {d}" for d in advice["dropped"]]
    lines += ["", "Stage results (heapbench report / compare work on them): "
              + ", ".join(f"`{d}`" for d in advice["stage_dirs"]), ""]
    return "\n".join(lines)


def output_unit(advice):
    """The unit of the budget and of the times spent: 's' (wall) or 'CPU s' (--budget-clock cpu)."""
    return progress.CLOCKS[advice.get("budget_clock", "wall")][1]


def output_budget_text(advice):
    """'Budget 120 s, used 98 s (stages ended at: baseline 4 s, ...)', in the budget's unit."""
    unit = output_unit(advice)
    return (f"Budget {advice['budget_s']:.0f} {unit}, used {advice['elapsed_s']:.0f} {unit} "
            f"({output_stage_ends(advice)})")


def output_stage_ends(advice):
    """'stages ended at: baseline 4 s, profile 9 s, ...' (the budget's unit since the start, resumes included)."""
    ends, unit = advice.get("stage_end_s", {}), output_unit(advice)
    return "stages ended at: " + ", ".join(f"{stage} {end:.0f} {unit}" for stage, end in ends.items())


def _num(value, div=1):
    """A figure for the table, '' when unknown."""
    return "" if value is None else f"{value / div:.4g}"


def _pct(value):
    """A change as '+3.1%', '' when unknown."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value * 100:+.1f}%"


def output_html(directory, advice, markdown_text):
    """Writes DIR/advice.html: the same sections as the Markdown, the plot embedded."""
    rec = advice["recommendation"]
    parts = [page.start("heapbench advise", f"heapbench advise: {advice['command_text']}"),
             f"<p>Goal: <b>{page.esc(rec['goal'])}</b>. {page.esc(output_budget_text(advice))}.</p>", "<h2>Answer</h2>",
             f"<p class='answer'>{page.esc(rec['text'])}</p>"]
    if rec.get("note"):
        parts.append(f"<p>{page.esc(rec['note'])}</p>")
    if advice.get("refused"):
        parts.append("<p>Refused (a run failed):</p><ul>" + "".join(
            f"<li>{page.esc(label)}: {page.esc(why)}</li>" for label, why in advice["refused"].items()) + "</ul>")
    if advice["snippets"]:
        parts.append("<h2>Ready to paste</h2>")
        for name, text in advice["snippets"].items():
            parts.append(f"<h3>{page.esc(name)}</h3><pre>{page.esc(text)}</pre>")
    if advice.get("plot"):
        parts.append(f"<h2>Speed against peak RSS</h2><img alt='Pareto plot' src='{page.png_uri(os.path.join(directory, PLOT))}'>")
    parts.append("<h2>Evidence</h2><table><tr><th>stage</th><th>candidate</th><th>verified</th><th>speed</th>"
                 "<th>peak RSS MiB</th><th>speed vs baseline</th><th>RSS vs baseline</th><th>verdict</th></tr>")
    for c in advice["candidates"]:
        cells = [c["stage"], c["label"], c["verified"], _num(c.get("time")), _num(c.get("peak_kb"), 1024),
                 _pct(c.get("time_change")), _pct(c.get("peak_change")), c.get("verdict", "")]
        parts.append("<tr>" + "".join(f"<td>{page.esc(x)}</td>" for x in cells) + "</tr>")
    parts.append("</table><ul>" + "".join(f"<li>{page.esc(n)}</li>" for n in advice["notes"]) + "</ul>")
    if advice["dropped"]:
        parts.append("<p>Dropped to fit the budget:</p><ul>"
                     + "".join(f"<li>{page.esc(d)}</li>" for d in advice["dropped"]) + "</ul>")
    parts.append(page.END)
    with open(os.path.join(directory, "advice.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    with open(os.path.join(directory, "advice.md"), "w", encoding="utf-8") as f:
        f.write(markdown_text)
