"""page.py - the one HTML page of heapbench's reports (report, history report, advise): its stylesheet, its escape, its frame.

Always holds: every text that reaches a page goes through esc() (HTML-escaped, quotes included);
a page is self-contained: its stylesheet is inline (CSS, one for every page), its images are data
URIs (png_uri), it loads no script, font or link; the frame is the same for every page (doctype,
lang, charset, viewport, title, the title again as the page's h1).
"""
import base64
import html

# One stylesheet for every page; a class that a page does not use costs nothing.
CSS = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 1em 2em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
.notice { background: #fff3cd; border: 1px solid #e0b000; padding: .6em 1em; margin: .4em 0; }
.answer { font-size: 130%; background: #eef6ee; padding: .6em; border-left: 4px solid #393; }
.scroll { overflow-x: auto; margin: .6em 0 1.2em; }
table { border-collapse: collapse; font-size: .88em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef; position: sticky; top: 0; }
tr.flag td { background: #fde2e2; }
caption { text-align: left; font-weight: bold; padding: .3em 0; }
pre { background: #f4f4f4; padding: .6em; overflow-x: auto; }
figure { margin: 1em 0 2em; } figure img, img { max-width: 100%; height: auto; }
figure img { border: 1px solid #ddd; }
figcaption { font-size: .9em; color: #555; }
.toc a { margin-right: 1em; }
summary { cursor: pointer; color: #035; margin: .4em 0; }
.grid { display: flex; flex-wrap: wrap; gap: 6px; } .grid a { color: inherit; text-decoration: none; }
.fields { font-size: .85em; color: #555; } .up { color: #b00; } .down { color: #060; }
"""

END = "</body></html>\n"


def esc(text):
    """text (any value, through str) HTML-escaped, quotes included: safe in an element and in an attribute."""
    return html.escape(str(text), quote=True)


def start(title, heading=None):
    """The page up to and including its h1: heading (default: title), both escaped."""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n"
            f"<h1>{esc(title if heading is None else heading)}</h1>\n")


def page(title, body, heading=None):
    """A whole page: start(title, heading), body (HTML, already escaped where it holds text), END."""
    return start(title, heading) + body + END


def png_uri(path):
    """The PNG file at path as a data: URI, for an <img src> that fetches nothing."""
    with open(path, "rb") as fh:
        return "data:image/png;base64," + base64.b64encode(fh.read()).decode("ascii")
