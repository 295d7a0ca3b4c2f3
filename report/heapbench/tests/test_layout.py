"""test_layout.py - heapbench.layout maps source-tree paths as the installed LAYOUT says, and results as the CLI says.

Always holds: the LAYOUT used is the tree's own install/LAYOUT, copied into a temporary prefix
that the test removes; the environment and cli.ROOT are restored after each test.
"""
import os
import shutil
import tempfile
import unittest
from unittest import mock

from heapbench import cli, layout

TREE = cli.ROOT


class LayoutTest(unittest.TestCase):
    """layout.path() and layout.results_dir() in a source tree and in an installed prefix."""

    def setUp(self):
        self.prefix = tempfile.mkdtemp(prefix="hb-layout-")
        os.makedirs(os.path.join(self.prefix, "share", "heapbench"))
        self.layout_file = os.path.join(self.prefix, "share", "heapbench", "LAYOUT")
        shutil.copy(os.path.join(TREE, "install", "LAYOUT"), self.layout_file)

    def tearDown(self):
        shutil.rmtree(self.prefix)

    def installed(self):
        """The environment and ROOT the C CLI gives an installed heapbench's Python."""
        env = {"HEAPBENCH_LAYOUT": self.layout_file, "HEAPBENCH_RESULTS": "/work/dir/results"}
        return mock.patch.dict(os.environ, env), mock.patch.object(cli, "ROOT", self.prefix)

    def test_source_tree_paths_are_under_the_root(self):
        """Without HEAPBENCH_LAYOUT every path is ROOT/path, and results are ROOT/results."""
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("HEAPBENCH_LAYOUT", None)
            os.environ.pop("HEAPBENCH_RESULTS", None)
            self.assertEqual(layout.path("build/lib/librefmalloc.so"),
                             os.path.join(cli.ROOT, "build/lib/librefmalloc.so"))
            self.assertEqual(layout.results_dir(), os.path.join(cli.ROOT, "results"))

    def test_installed_paths_follow_the_layout(self):
        """Folder lines keep the rest of the path; file lines map the one file; others go to share/heapbench."""
        env, root = self.installed()
        with env, root:
            p = self.prefix
            self.assertEqual(layout.path("build/lib/librefmalloc.so"), f"{p}/lib/heapbench/librefmalloc.so")
            self.assertEqual(layout.path("build/workloads/frag"), f"{p}/lib/heapbench/workloads/frag")
            self.assertEqual(layout.path("allocators/registry.txt"), f"{p}/share/heapbench/registry.txt")
            self.assertEqual(layout.path("workloads/LIST"), f"{p}/share/heapbench/LIST")
            self.assertEqual(layout.path("report/heapbench/cli.py"), f"{p}/share/heapbench/report/heapbench/cli.py")
            self.assertEqual(layout.path("unlisted/file"), f"{p}/share/heapbench/unlisted/file")
            self.assertEqual(layout.path("/abs/lib.so"), "/abs/lib.so")
            self.assertEqual(layout.results_dir(), "/work/dir/results")

    def test_a_folder_line_does_not_match_a_longer_name(self):
        """build/lib/* maps build/lib/x, not build/library/x (a path-component boundary)."""
        env, root = self.installed()
        with env, root:
            self.assertEqual(layout.path("build/library/x"), f"{self.prefix}/share/heapbench/build/library/x")


if __name__ == "__main__":
    unittest.main()
