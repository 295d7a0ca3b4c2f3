"""test_report.py - the trends site of `heapbench history report`, its Markdown summary, and how it renders in headless Chromium.

Always holds: the history is built here from synthetic directories whose wall_s steps up at
point 7 of 12 while the allocator library's sha256 changes there; the site must be self-contained
(no script, no link, no src, no url()), hold one linked page per cell, show the change in the index
and in summary.md, and render to a screenshot that is not blank (report/heapbench/report/tests/check.py png).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import histfix
from histfix import cell, write_run

CELLS = [("churn", "jemalloc", 1, "", ""), ("churn", "glibc", 1, "", ""), ("list", "jemalloc", 1, "", "")]


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hb-history-report-")
        cls.db = os.path.join(cls.tmp, "h.sqlite")
        dirs = []
        for i in range(12):
            lib = {"jemalloc": {"path": "/usr/lib/libjemalloc.so.2", "version": "5.3.0-1" if i < 6 else "5.3.0-2",
                                "sha256": ("a" if i < 6 else "b") * 64}}
            cells = {k: cell(1.0 * (1.2 if (i >= 6 and k[1] == "jemalloc") else 1.0), jitter=0.002) for k in CELLS}
            dirs.append(write_run(os.path.join(cls.tmp, f"r{i}"), cells, run_id=f"r{i}", libraries=lib))
        for i, d in enumerate(dirs):
            done = histfix.run_cli(["add", "--db", cls.db, "--label", f"v1.{i}", d], cls.tmp)
            assert done.returncode == 0, done.stderr
        cls.site = os.path.join(cls.tmp, "site")
        cls.done = histfix.run_cli(["report", "--db", cls.db, "-o", cls.site], cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_site_written_and_self_contained(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.assertIn(f"report: {self.site}/index.html", self.done.stdout)
        for name in os.listdir(self.site):
            if name.endswith(".html"):
                text = open(os.path.join(self.site, name), encoding="utf-8").read()
                self.assertIsNone(re.search(r"<(script|link)\b|\bsrc=|url\(", text), name)
                self.assertIn("<svg", text, name)

    def test_one_linked_page_per_cell(self):
        index = open(os.path.join(self.site, "index.html"), encoding="utf-8").read()
        pages = sorted(n for n in os.listdir(self.site) if n.startswith("cell-"))
        self.assertEqual(len(pages), len(CELLS))
        for page in pages:
            self.assertIn(f"href='{page}'", index)

    def test_changes_and_library_marked(self):
        index = open(os.path.join(self.site, "index.html"), encoding="utf-8").read()
        self.assertEqual(index.count("<td>v1.6</td>"), 2, "both jemalloc cells' wall_s change at v1.6")
        self.assertIn("library changed: 5.3.0-1", index)
        summary = open(os.path.join(self.site, "summary.md"), encoding="utf-8").read()
        rows = [r for r in summary.splitlines() if r.startswith("| v1.6 |")]
        self.assertEqual(len(rows), 2, summary)
        # library changed: yes; load moved: empty (these runs recorded no load1)
        self.assertTrue(all("+20." in r and r.rstrip().endswith("| yes |  |") for r in rows), rows)
        self.assertIn("<th>load moved</th>", index)

    def test_renders_in_chromium(self):
        chromium = shutil.which("chromium")
        if not chromium:
            self.fail("chromium not installed (make deps installs it)")
        shot = os.path.join(self.tmp, "shot.png")
        subprocess.run(["timeout", "90", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", f"--user-data-dir={self.tmp}/chrome", f"--screenshot={shot}",
                        "--window-size=1280,1600", "file://" + os.path.join(self.site, "index.html")],
                       capture_output=True, timeout=120)
        check = subprocess.run(["/usr/bin/python3", os.path.join(histfix.ROOT, "report", "heapbench", "report", "tests", "check.py"), "png", shot],
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)


if __name__ == "__main__":
    unittest.main()
