"""render_html.py - writes a Document as one self-contained HTML page (PNGs inline as base64, no network), in heapbench.page's frame.

Always holds: the page references nothing outside itself (no link, script or font is
fetched); every text from the results is HTML-escaped; the layout fits a laptop screen
(images scale to the page width, wide tables scroll inside their own box).
"""
import os

from heapbench.page import END, esc, png_uri, start

def _anchor(title):
    """The id of a section, from its title."""
    return "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-")


def table_html(table):
    """One table, with its caption and note, wrapped in a horizontally scrolling box."""
    out = ['<div class="scroll"><table>', f"<caption>{esc(table.title)}</caption>",
           "<tr>" + "".join(f"<th>{esc(c)}</th>" for c in table.columns) + "</tr>"]
    for i, row in enumerate(table.rows):
        cls = ' class="flag"' if i in table.flagged else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
    out.append("</table>")
    if table.note:
        out.append(f"<p>{esc(table.note)}</p>")
    out.append("</div>")
    if table.folded:
        out = [f"<details><summary>{esc(table.title)} ({len(table.rows)} rows)</summary>"] + out + ["</details>"]
    return "\n".join(out)


def figure_html(fig, outdir):
    """One figure, its PNG read from outdir and inlined as a data URI."""
    return (f'<figure><img alt="{esc(fig.caption)}" src="{png_uri(os.path.join(outdir, fig.path))}">'
            f"<figcaption>{esc(fig.caption)}</figcaption></figure>")


def render_html(doc, outdir):
    """The HTML text of a Document whose figures are in outdir."""
    out = [start(doc.title)]
    for notice in doc.notices:
        out.append(f'<div class="notice"><b>Missing / partial:</b> {esc(notice)}</div>')
    out.append('<p class="toc">' + "".join(f'<a href="#{_anchor(s.title)}">{esc(s.title)}</a>'
                                           for s in doc.sections) + "</p>")
    for section in doc.sections:
        out.append(f'<h2 id="{_anchor(section.title)}">{esc(section.title)}</h2>')
        out += [f"<p>{esc(p)}</p>" for p in section.text]
        out += [figure_html(f, outdir) for f in section.figures]
        out += [table_html(t) for t in section.tables]
    return "\n".join(out) + END
