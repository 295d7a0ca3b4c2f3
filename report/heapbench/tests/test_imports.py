"""test_imports.py - check-imports holds on this tree and fails on each planted violation: a cycle, an upward import, a module without a role, a sys.path edit.

Always holds: the real tree is checked as it is; each violation is planted in a temporary copy of
report/ (removed at the end), one per copy, and check-imports must exit 1 with a line naming the
planted file and the kind of problem; the unplanted copy must pass, so a failure comes from the plant.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from heapbench import cli

CHECK = os.path.join(cli.ROOT, "report", "heapbench", "tests", "check-imports")
PKG = os.path.join("report", "heapbench")


def check(tree):
    """(exit status, output) of check-imports on tree."""
    done = subprocess.run(["/usr/bin/python3", CHECK, tree], capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


class CheckImports(unittest.TestCase):
    """The real tree passes; each planted violation fails by name."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-imports-")
        shutil.copytree(os.path.join(cli.ROOT, "report"), os.path.join(self.tmp, "report"),
                        ignore=shutil.ignore_patterns("__pycache__", "fixture"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def plant(self, rel, text):
        """Appends text to the copy's file rel (under report/heapbench)."""
        with open(os.path.join(self.tmp, PKG, rel), "a") as fh:
            fh.write(text)

    def assert_fails(self, rel, words):
        """check-imports on the copy exits 1 with a line naming rel and words."""
        status, out = check(self.tmp)
        self.assertEqual(status, 1, out)
        lines = [line for line in out.splitlines() if rel in line and words in line]
        self.assertTrue(lines, f"no line naming {rel} and '{words}' in:\n{out}")

    def test_real_tree_passes(self):
        status, out = check(cli.ROOT)
        self.assertEqual(status, 0, out)
        self.assertIn("check-imports: 0 problems", out)

    def test_unplanted_copy_passes(self):
        status, out = check(self.tmp)
        self.assertEqual(status, 0, out)

    def test_module_cycle_fails(self):
        # the core of the change points importing its caller back (changes.py imports edivisive)
        self.plant("history/edivisive.py", "\nfrom heapbench.history import changes  # noqa\n")
        self.assert_fails("edivisive", "import cycle between modules")

    def test_cycle_between_parts_fails(self):
        # history reading compare while compare's merge reads ... history: a cycle of the two readers
        self.plant("history/points.py", "\nfrom heapbench.compare import output  # noqa\n")
        self.plant("compare/merge.py", "\nfrom heapbench.history import export  # noqa\n")
        self.assert_fails("heapbench", "import cycle between parts heapbench.compare heapbench.history")

    def test_floor_importing_a_reader_fails(self):
        self.plant("results.py", "\ndef _x():\n    from heapbench.report import cells  # noqa\n")
        self.assert_fails("results.py", "(floor) imports heapbench.report.cells (read), a higher role")

    def test_reader_importing_a_driver_fails(self):
        # inside one folder: compare (read) must not import what runs measurements (compare.launch)
        self.plant("compare/output.py", "\nfrom heapbench.compare import launch  # noqa\n")
        self.assert_fails("compare/output.py", "(read) imports heapbench.compare.launch (drive), a higher role")

    def test_relative_upward_import_fails(self):
        self.plant("history/scan.py", "\nfrom ..tune import tune  # noqa\n")
        self.assert_fails("history/scan.py", "(read) imports heapbench.tune.tune (drive), a higher role")

    def test_module_without_role_fails(self):
        with open(os.path.join(self.tmp, PKG, "newpart.py"), "w") as fh:
            fh.write('"""newpart.py - a part with no declared role."""\n')
        self.assert_fails("newpart.py", "has no role")

    def test_sys_path_edit_fails(self):
        self.plant("history/bench/detection.py", "\nimport sys\nsys.path.insert(0, '.')\n")
        self.assert_fails("detection.py", "changes sys.path")

    def test_sys_path_assignment_fails(self):
        self.plant("tests/datamd.py", "\nimport sys\nsys.path[:0] = ['.']\n")
        self.assert_fails("datamd.py", "changes sys.path")

    def test_usage_error_exits_2(self):
        status, out = check(os.path.join(self.tmp, "report"))
        self.assertEqual(status, 2, out)


if __name__ == "__main__":
    unittest.main()
