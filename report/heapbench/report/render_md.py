"""render_md.py - writes a Document as Markdown: tables pasteable into a pull request, PNGs linked beside it.

Always holds: every table of the Document appears, in order; every text of the Document (title,
notice, paragraph, cell, caption, note: plain text, as render_html takes it) goes through
markdown.text, so that no string of the results (params, env, a reason, a host) opens Markdown,
HTML or a new table column or line; images are linked by relative path, percent-encoded.
"""
import urllib.parse

from heapbench import markdown

_cell = markdown.text


def table_md(table):
    """Lines of one Markdown table, with its title in bold and its note under it."""
    lines = [f"**{_cell(table.title)}**", ""]
    lines.append("| " + " | ".join(_cell(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    for i, row in enumerate(table.rows):
        cells = [_cell(c) for c in row]
        if i in table.flagged:
            cells[0] = "⚠ " + cells[0]
        lines.append("| " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", _cell(table.note)]
    return lines + [""]


def render_md(doc):
    """The Markdown text of a Document."""
    lines = [f"# {_cell(doc.title)}", ""]
    for notice in doc.notices:
        lines.append(f"> **Missing / partial:** {_cell(notice)}")
    if doc.notices:
        lines.append("")
    for section in doc.sections:
        lines += [f"## {_cell(section.title)}", ""]
        for para in section.text:
            lines += [_cell(para), ""]
        for fig in section.figures:
            caption = _cell(fig.caption)
            lines += [f"![{caption}]({urllib.parse.quote(fig.path)})", "", f"*{caption}*", ""]
        for table in section.tables:
            lines += table_md(table)
    return "\n".join(lines)
