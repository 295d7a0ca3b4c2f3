"""test_hostile_text.py - labels and cells holding Markdown, HTML, '|' and newlines stay text in summary.md and on one line in `history changes`; an empty --label is refused.

Always holds: the history is built here (12 synthetic runs, wall_s up 20% at the 7th, whose label
and the cell's params are hostile); summary.md is rendered by cmark-gfm (GitHub's renderer) when
it is installed and must hold no tag from the strings and whole table rows; `history changes`
prints exactly one line per change point.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

import histfix
from histfix import cell, write_run

LABEL = "v1|x\n<img src=x onerror=alert(1)>"
KEY = ("churn", "glibc", 1, "--mode=<b>x</b>|y\nz", "A=`1`*")
CMARK = shutil.which("cmark-gfm")


class HostileTextTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hb-history-hostile-")
        cls.db = os.path.join(cls.tmp, "h.sqlite")
        for i in range(12):
            d = write_run(os.path.join(cls.tmp, f"r{i}"), {KEY: cell(1.2 if i >= 6 else 1.0)}, run_id=f"r{i}")
            label = LABEL if i == 6 else f"v{i}"
            done = histfix.run_cli(["add", "--db", cls.db, "--label", label, d], cls.tmp)
            assert done.returncode == 0, done.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_changes_is_one_line_per_change(self):
        done = histfix.run_cli(["changes", "--db", self.db, "--metric", "wall_s"], self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 1, done.stdout)
        self.assertIn("at v1|x\\n<img src=x onerror=alert(1)>:", lines[0])
        self.assertIn("--mode=<b>x</b>|y\\nz", lines[0])

    def test_summary_md_keeps_the_strings_as_text(self):
        site = os.path.join(self.tmp, "site")
        done = histfix.run_cli(["report", "--db", self.db, "-o", site], self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(site, "summary.md"), encoding="utf-8") as fh:
            summary = fh.read()
        rows = [line for line in summary.splitlines() if "+20." in line]
        self.assertEqual(len(rows), 1, summary)
        self.assertNotIn("<img", summary)
        if not CMARK:
            self.skipTest("cmark-gfm is not installed (make deps installs it): the rendering is not checked")
        page = subprocess.run([CMARK, "-e", "table", "-e", "tagfilter"], input=summary.encode(), capture_output=True,
                              timeout=60).stdout.decode()
        self.assertNotIn("<img", page)
        self.assertNotIn("<b>", page)
        self.assertIn("v1|x\\n&lt;img src=x onerror=alert(1)&gt;", page)
        body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
        self.assertEqual(body.count("<tr>"), 1, page)
        self.assertEqual(body.count("<td"), 9, page)  # the 8 columns and "load moved"

    def test_empty_label_is_refused(self):
        before = histfix.run_cli(["testbeds", "--db", self.db], self.tmp).stdout
        for label in ("", "  "):
            done = histfix.run_cli(["add", "--db", self.db, "--label", label, os.path.join(self.tmp, "r0")], self.tmp)
            self.assertEqual(done.returncode, 2, done.stdout)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn("--label", done.stderr)
        self.assertEqual(histfix.run_cli(["testbeds", "--db", self.db], self.tmp).stdout, before)


if __name__ == "__main__":
    unittest.main()
