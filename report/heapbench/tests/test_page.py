"""test_page.py - heapbench.page is the one HTML page: every page builder uses its frame, stylesheet and escape, and none has its own.

Always holds: the pages are built in a temporary directory that the test removes; the source
scan reads the package's files and changes nothing.
"""
import ast
import base64
import os
import tempfile
import unittest

from heapbench import cli, page
from heapbench.explain import output as explain_output
from heapbench.history import svgplot
from heapbench.report.document import Document, Figure, Section, Table
from heapbench.report.render_html import render_html

PACKAGE = os.path.join(cli.ROOT, "report", "heapbench")
HOSTILE = "<script>alert('x')</script> & \"q\""
# A 1x1 PNG, enough for a data URI.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


class PageTest(unittest.TestCase):
    """The frame and escape of page.py, and the builders that use them."""

    def assert_one_frame(self, text):
        """text is one whole page in page.py's frame: its stylesheet once, no other, no raw hostile text."""
        self.assertTrue(text.startswith("<!DOCTYPE html>"), text[:40])
        self.assertTrue(text.endswith(page.END), text[-40:])
        self.assertEqual(text.count("<style>"), 1)
        self.assertIn(f"<style>{page.CSS}</style>", text)
        self.assertNotIn("<script>", text)

    def test_escape_quotes_and_markup(self):
        """esc: <, >, & and both quotes escaped; a non-string through str()."""
        self.assertEqual(page.esc(HOSTILE),
                         "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;")
        self.assertEqual(page.esc(1.5), "1.5")

    def test_frame_escapes_title_and_heading(self):
        """start(): the title and the heading (default: the title) escaped, in that order."""
        text = page.page(HOSTILE, "<p>body</p>")
        self.assert_one_frame(text)
        self.assertEqual(text.count(page.esc(HOSTILE)), 2)
        text = page.page("t", "", heading="h & h")
        self.assertIn("<title>t</title>", text)
        self.assertIn("<h1>h &amp; h</h1>", text)

    def test_png_uri(self):
        """png_uri: the file's bytes, base64, as a data: URI."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a.png")
            with open(path, "wb") as fh:
                fh.write(PNG)
            uri = page.png_uri(path)
        self.assertTrue(uri.startswith("data:image/png;base64,"), uri[:30])
        self.assertEqual(base64.b64decode(uri.split(",", 1)[1], validate=True), PNG)


    def test_report_page(self):
        """heapbench report's HTML: the frame, every text escaped, the figure inlined."""
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "f.png"), "wb") as fh:
                fh.write(PNG)
            table = Table(HOSTILE, ["a", HOSTILE], [[HOSTILE, 1]], note=HOSTILE)
            doc = Document(HOSTILE, [HOSTILE], [Section(HOSTILE, [HOSTILE], [table], [Figure("f.png", HOSTILE)])])
            text = render_html(doc, tmp)
        self.assert_one_frame(text)
        self.assertIn("data:image/png;base64,", text)
        self.assertGreaterEqual(text.count(page.esc(HOSTILE)), 9)

    def test_explain_page(self):
        """heapbench explain's HTML, with no result: the frame and its heading."""
        text = explain_output.page([], {})
        self.assert_one_frame(text)
        self.assertIn("<h1>Where the resident memory goes</h1>", text)

    def test_no_other_frame_stylesheet_or_escape(self):
        """No module but page.py calls html.escape, writes a <style> or a doctype, or defines a CSS table
        (markdown.py escapes for Markdown, not HTML: it is the one other caller, with quote=False)."""
        found = []
        for folder, _, files in os.walk(PACKAGE):
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith(".py") or path == page.__file__ or "tests" in folder.split(os.sep):
                    continue
                source = open(path, encoding="utf-8").read()
                tree = ast.parse(source)
                for node in ast.walk(tree):
                    if (isinstance(node, ast.Attribute) and node.attr == "escape" and isinstance(node.value, ast.Name)
                            and node.value.id == "html" and not path.endswith("markdown.py")):
                        found.append(f"{path}: html.escape")
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                            "<style" in node.value or "<!doctype" in node.value.lower()):
                        found.append(f"{path}: a page frame of its own")
                    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "CSS" for t in node.targets):
                        found.append(f"{path}: a stylesheet of its own")
        self.assertEqual(found, [])

    def test_svg_labels_escaped(self):
        """history's small plots escape their labels through the same esc."""
        self.assertIs(svgplot.esc, page.esc)


if __name__ == "__main__":
    unittest.main()
