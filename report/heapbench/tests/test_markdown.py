"""test_markdown.py - markdown.text renders as the text itself in GitHub's own renderer (cmark-gfm), in every context heapbench writes it; one_line keeps one line.

Always holds: each string (hostile ones, then hypothesis' examples) is put in a table cell, a
paragraph, a heading and a list item of one document, rendered by cmark-gfm with GitHub's
extensions, and parsed back: the table keeps one row of two cells, no tag but the context's own
appears, and each context's text is the string (control characters shown as their escapes;
leading and trailing blanks, which Markdown drops, aside). Without cmark-gfm (make deps installs
it) the renderer tests SKIP with the reason.
"""
import atexit
import html.parser
import os
import shutil
import subprocess
import tempfile
import unittest

_STORAGE = tempfile.mkdtemp(prefix="hb-hypothesis-")
atexit.register(shutil.rmtree, _STORAGE, True)
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _STORAGE

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from heapbench import markdown  # noqa: E402

CMARK = shutil.which("cmark-gfm")
HOSTILE = ["v1|x\n<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<svg onload=alert(1)>",
           "**bold** _i_ `c` [l](javascript:alert(1)) ![i](x)", "# h", "x ##", "1. x", "1) x", "- x", "+ x",
           "> q", "    code", "a\\|b", "\\", "&amp; &#60; &lt;", "~~s~~", "===", "---", "***", "___",
           "\r\n\t\x1b[31mred\x00", "a\u2028b\u2029c\x85", "| a | b |", "<!-- c -->", "<https://x.y>",
           "glibc/t1 --mode=loop {MALLOC_ARENA_MAX=1}"]
ALPHABET = st.sampled_from(list("|<>&*_`[]()#!~\\-+=.:;1 \n\t\rabcé\x00\x1b\u2028/{}\"'"))


def shown(s):
    """s as the renderer must show it: control characters as markdown's escapes."""
    out = []
    for ch in s:
        code = ord(ch)
        if code < 0x20 or 0x7f <= code < 0xa0 or code in (0x2028, 0x2029):
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or
                       (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"))
        else:
            out.append(ch)
    return "".join(out).strip()


class Parsed(html.parser.HTMLParser):
    """Tags and, per top-level context, the text of cmark-gfm's HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.texts, self.cells, self.rows = [], {}, [], 0
        self.context = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in ("td", "p", "h2", "li"):
            self.context = tag
            self.texts.setdefault(tag, "")
        if tag == "td":
            self.cells.append("")
        if tag == "tr":
            self.rows += 1

    def handle_endtag(self, tag):
        if tag in ("td", "p", "h2", "li"):
            self.context = None

    def handle_data(self, data):
        if self.context == "td" and self.cells:
            self.cells[-1] += data
        elif self.context:
            self.texts[self.context] += data


def render(s):
    """cmark-gfm's HTML of one document holding text(s) in a table cell, a paragraph, a heading and a list item."""
    t = markdown.text(s)
    doc = f"| a | b |\n|---|---|\n| {t} | end |\n\n{t}\n\n## {t}\n\n- {t}\n"
    done = subprocess.run([CMARK, "-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tagfilter"],
                          input=doc.encode(), capture_output=True, timeout=60)
    parsed = Parsed()
    parsed.feed(done.stdout.decode())
    return parsed


@unittest.skipUnless(CMARK, "cmark-gfm (GitHub's Markdown renderer) is not installed (make deps installs it)")
class RenderTest(unittest.TestCase):
    def check(self, s):
        parsed = render(s)
        want = shown(s)
        self.assertEqual(parsed.rows, 2, (s, parsed.tags))  # the header row and the one body row
        self.assertEqual(len(parsed.cells), 2, (s, parsed.cells))
        self.assertEqual(parsed.cells[0].strip(), want, s)
        self.assertEqual(parsed.cells[1].strip(), "end", s)
        allowed = {"table", "thead", "tbody", "tr", "th", "td", "p", "h2", "ul", "li", "a"}
        self.assertLessEqual(set(parsed.tags), allowed, (s, parsed.tags))
        for context in ("h2", "li") + (("p",) if want else ()):
            self.assertEqual(parsed.texts.get(context, "").strip(), want, (s, context))

    def test_hostile_strings(self):
        for s in HOSTILE:
            self.check(s)

    @settings(max_examples=int(os.environ.get("HB_FUZZ_EXAMPLES", "60")), deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.text(ALPHABET, max_size=24) | st.text(max_size=12))
    def test_any_string(self, s):
        self.check(s)


class OneLineTest(unittest.TestCase):
    def test_one_line(self):
        for s in HOSTILE:
            line = markdown.one_line(s)
            self.assertEqual(len(line.splitlines()), 1 if s else 0, (s, line))
            self.assertNotIn("\x1b", line)
        self.assertEqual(markdown.one_line("a\nb\\n"), "a\\nb\\\\n")  # a real newline and the two characters differ


if __name__ == "__main__":
    unittest.main()
