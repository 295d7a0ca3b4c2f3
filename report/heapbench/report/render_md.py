"""render_md.py - writes a Document as Markdown: tables pasteable into a pull request, PNGs linked beside it.

Always holds: every table of the Document appears, in order; table cells are escaped so
that a '|' in params or a reason cannot break a row; images are linked by relative path.
"""


def _cell(text):
    """A table cell with the characters that break a Markdown table row escaped."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table_md(table):
    """Lines of one Markdown table, with its title in bold and its note under it."""
    lines = [f"**{table.title}**", ""]
    lines.append("| " + " | ".join(_cell(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    for i, row in enumerate(table.rows):
        cells = [_cell(c) for c in row]
        if i in table.flagged:
            cells[0] = "⚠ " + cells[0]
        lines.append("| " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", table.note]
    return lines + [""]


def render_md(doc):
    """The Markdown text of a Document."""
    lines = [f"# {doc.title}", ""]
    for notice in doc.notices:
        lines.append(f"> **Missing / partial:** {notice}")
    if doc.notices:
        lines.append("")
    for section in doc.sections:
        lines += [f"## {section.title}", ""]
        for para in section.text:
            lines += [para, ""]
        for fig in section.figures:
            lines += [f"![{fig.caption}]({fig.path})", "", f"*{fig.caption}*", ""]
        for table in section.tables:
            lines += table_md(table)
    return "\n".join(lines)
