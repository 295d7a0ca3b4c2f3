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

    def test_real_tree_passes(self):
        status, out = check(cli.ROOT)
        self.assertEqual(status, 0, out)
        self.assertIn("check-imports: 0 problems", out)

    def test_unplanted_copy_passes(self):
        status, out = check(self.tmp)
        self.assertEqual(status, 0, out)

    def test_usage_error_exits_2(self):
        status, out = check(os.path.join(self.tmp, "report"))
        self.assertEqual(status, 2, out)


# Each planted violation: (test name, [(file under report/heapbench, text appended; a new file is created)],
# the file check-imports must name, the words its line must hold).
PLANTS = [
    # the core of the change points importing its caller back (changes.py imports edivisive)
    ("module_cycle", [("history/edivisive.py", "\nfrom heapbench.history import changes  # noqa\n")],
     "edivisive", "import cycle between modules"),
    # history reading compare while compare's merge reads ... history: a cycle of the two readers
    ("cycle_between_parts", [("history/points.py", "\nfrom heapbench.compare import output  # noqa\n"),
                             ("compare/merge.py", "\nfrom heapbench.history import export  # noqa\n")],
     "heapbench", "import cycle between parts heapbench.compare heapbench.history"),
    ("floor_importing_a_reader", [("results.py", "\ndef _x():\n    from heapbench.report import cells  # noqa\n")],
     "results.py", "(floor) imports heapbench.report.cells (read), a higher role"),
    # inside one folder: compare (read) must not import what runs measurements (compare.launch)
    ("reader_importing_a_driver", [("compare/output.py", "\nfrom heapbench.compare import launch  # noqa\n")],
     "compare/output.py", "(read) imports heapbench.compare.launch (drive), a higher role"),
    ("relative_upward_import", [("history/scan.py", "\nfrom ..tune import tune  # noqa\n")],
     "history/scan.py", "(read) imports heapbench.tune.tune (drive), a higher role"),
    ("module_without_role", [("newpart.py", '"""newpart.py - a part with no declared role."""\n')],
     "newpart.py", "has no role"),
    ("sys_path_edit", [("history/bench/detection.py", "\nimport sys\nsys.path.insert(0, '.')\n")],
     "detection.py", "changes sys.path"),
    ("sys_path_assignment", [("tests/datamd.py", "\nimport sys\nsys.path[:0] = ['.']\n")],
     "datamd.py", "changes sys.path"),
]


def planted_test(plants, rel, words):
    """A test that plants each (file, text) into the copy; check-imports must exit 1 with a line naming rel and words."""
    def test(self):
        for path, text in plants:
            with open(os.path.join(self.tmp, PKG, path), "a") as fh:
                fh.write(text)
        status, out = check(self.tmp)
        self.assertEqual(status, 1, out)
        lines = [line for line in out.splitlines() if rel in line and words in line]
        self.assertTrue(lines, f"no line naming {rel} and '{words}' in:\n{out}")
    return test


for _name, _plants, _rel, _words in PLANTS:
    setattr(CheckImports, f"test_{_name}_fails", planted_test(_plants, _rel, _words))


if __name__ == "__main__":
    unittest.main()
