"""render_html.py - writes a Document as one self-contained HTML page (PNGs inline as base64, no network).

Always holds: the page references nothing outside itself (no link, script or font is
fetched); every text from the results is HTML-escaped; the layout fits a laptop screen
(images scale to the page width, wide tables scroll inside their own box).
"""
import base64
import html
import os

CSS = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 2em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
.notice { background: #fff3cd; border: 1px solid #e0b000; padding: .6em 1em; margin: .4em 0; }
.scroll { overflow-x: auto; margin: .6em 0 1.2em; }
table { border-collapse: collapse; font-size: .88em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef; position: sticky; top: 0; }
tr.flag td { background: #fde2e2; }
caption { text-align: left; font-weight: bold; padding: .3em 0; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .9em; color: #555; }
.toc a { margin-right: 1em; }
summary { cursor: pointer; color: #035; margin: .4em 0; }
"""


def _esc(text):
    """HTML-escaped text."""
    return html.escape(str(text), quote=True)


def _anchor(title):
    """The id of a section, from its title."""
    return "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-")


def table_html(table):
    """One table, with its caption and note, wrapped in a horizontally scrolling box."""
    out = ['<div class="scroll"><table>', f"<caption>{_esc(table.title)}</caption>",
           "<tr>" + "".join(f"<th>{_esc(c)}</th>" for c in table.columns) + "</tr>"]
    for i, row in enumerate(table.rows):
        cls = ' class="flag"' if i in table.flagged else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>")
    out.append("</table>")
    if table.note:
        out.append(f"<p>{_esc(table.note)}</p>")
    out.append("</div>")
    if table.folded:
        out = [f"<details><summary>{_esc(table.title)} ({len(table.rows)} rows)</summary>"] + out + ["</details>"]
    return "\n".join(out)


def figure_html(fig, outdir):
    """One figure, its PNG read from outdir and inlined as a data URI."""
    with open(os.path.join(outdir, fig.path), "rb") as fh:
        data = base64.b64encode(fh.read()).decode("ascii")
    return (f'<figure><img alt="{_esc(fig.caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_esc(fig.caption)}</figcaption></figure>")


def render_html(doc, outdir):
    """The HTML text of a Document whose figures are in outdir."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_esc(doc.title)}</title><style>{CSS}</style></head><body>", f"<h1>{_esc(doc.title)}</h1>"]
    for notice in doc.notices:
        out.append(f'<div class="notice"><b>Missing / partial:</b> {_esc(notice)}</div>')
    out.append('<p class="toc">' + "".join(f'<a href="#{_anchor(s.title)}">{_esc(s.title)}</a>'
                                           for s in doc.sections) + "</p>")
    for section in doc.sections:
        out.append(f'<h2 id="{_anchor(section.title)}">{_esc(section.title)}</h2>')
        out += [f"<p>{_esc(p)}</p>" for p in section.text]
        out += [figure_html(f, outdir) for f in section.figures]
        out += [table_html(t) for t in section.tables]
    out.append("</body></html>")
    return "\n".join(out)
