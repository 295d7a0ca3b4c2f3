"""test_render_md.py - report.md keeps every string of the results as text: a Document holding hostile strings everywhere, rendered by render_md.

Always holds: the hostile string (a '|', a newline, an <img onerror>, Markdown emphasis and a
link) is put in the title, a notice, a paragraph, a table's title, columns, cells and note and a
figure's caption; the Markdown must hold no raw tag, no line of a table may be split, and the
rendered text read back (cmark-gfm, GitHub's renderer, when installed) must show the string;
prints one PASS/FAIL line per test and exits 1 if any failed.
"""
import re
import shutil
import subprocess
import sys

from heapbench import testrun
from heapbench.report.document import Document, Figure, Section, Table
from heapbench.report.render_md import render_md

HOSTILE = "env A=1|B\n<img src=x onerror=alert(1)> **b** [l](javascript:x)"


def document():
    """A Document with HOSTILE in every text it has."""
    table = Table(HOSTILE, ["workload", HOSTILE], [["w1", HOSTILE], [HOSTILE, "2"]], note=HOSTILE)
    section = Section(HOSTILE, text=[HOSTILE], tables=[table], figures=[Figure("rss (w1).png", HOSTILE)])
    return Document(HOSTILE, [HOSTILE], [section])


def test_no_raw_html_and_whole_rows():
    """No tag of the string reaches report.md; each table row is one line with its two cells."""
    text = render_md(document())
    assert "<img" not in text and not re.search(r"(?<!\\)\]\(javascript", text), text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 3, rows  # the header and two rows, none split by the newline
    for row in rows:
        assert row.replace("\\|", "").count("|") == 3, row


def test_renders_as_the_text():
    """cmark-gfm's page of report.md shows the string (its newline as \\n) and no tag from it."""
    cmark = shutil.which("cmark-gfm")
    if not cmark:
        print("SKIP render_md.renders_as_the_text: cmark-gfm is not installed (make deps installs it)")
        return
    page = subprocess.run([cmark, "-e", "table"], input=render_md(document()).encode(), capture_output=True,
                          timeout=60).stdout.decode()
    assert "<img src=x" not in page and "<strong>b</strong>" not in page and "<a " not in page, page
    shown = HOSTILE.replace("\n", "\\n").replace("<", "&lt;").replace(">", "&gt;")
    assert page.count(shown) >= 8, (page.count(shown), page)
    assert 'src="rss%20%28w1%29.png"' in page, page


if __name__ == "__main__":
    sys.exit(testrun.run_functions(globals(), "render_md"))
