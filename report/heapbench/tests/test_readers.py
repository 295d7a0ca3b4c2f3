"""test_readers.py - the Python readers of the registry and of workloads/LIST agree with the runner's, and refuse bad lines.

Always holds: the real allocators/registry and workloads/LIST are compared with what
`build/heapbench list --json` (the C readers) prints, never with a copy; malformed files are written
into a temporary root that the test removes.
"""
import json
import os
import subprocess
import tempfile
import unittest

from heapbench import cli, registry, worklist
from heapbench.table import TableError

BIN = os.path.join(cli.ROOT, "build", "heapbench")


def runner_list():
    """(allocator rows {name: (status, matrix, library)}, workload names in order) from `heapbench list --json`."""
    view = json.loads(subprocess.run([BIN, "list", "--json"], capture_output=True, text=True, check=True).stdout)
    allocs = {a["name"]: ("missing" if a["library"] is None else "found", a["matrix"], a["library"] or "")
              for a in view["allocators"]}
    return allocs, [w["name"] for w in view["workloads"]]


class ReadersTest(unittest.TestCase):
    """heapbench.registry and heapbench.worklist on the real files and on broken ones."""

    @classmethod
    def setUpClass(cls):
        if not os.access(BIN, os.X_OK):
            raise AssertionError(f"{BIN} is missing; run make first")
        cls.allocs, cls.workloads = runner_list()

    def test_registry_names_and_matrix_match_the_runner(self):
        """Every registry line, in order, with the runner's default/opt-in column."""
        reg = registry.read_registry()
        self.assertEqual(list(reg), list(self.allocs))
        self.assertEqual({n: a.matrix for n, a in reg.items()}, {n: a[1] for n, a in self.allocs.items()})

    def test_registry_libraries_resolve_like_the_runner(self):
        """A found allocator resolves to the runner's library (same file), glibc to '' , a missing one to None."""
        for name, entry in registry.read_registry().items():
            status, _, lib = self.allocs[name]
            if entry.libraries == "-":
                self.assertEqual(entry.library, "", name)
            elif status == "found":
                self.assertTrue(entry.library and os.path.samefile(entry.library, lib), (name, entry.library, lib))
            else:
                self.assertIsNone(entry.library, name)

    def test_list_names_match_the_runner(self):
        """Every LIST line, in order, with thread sweeps as ints and one param set per ';'."""
        rows = worklist.read_list()
        self.assertEqual([w.name for w in rows], [w for w in self.workloads if not w.startswith(("prog:", "trace:"))])
        churn = rows[[w.name for w in rows].index("thread-churn")]
        self.assertEqual(churn.threads, [1, 2, 4, 8, 16, 32])
        self.assertEqual(len(churn.params), 2)

    def test_bad_lines_refused_with_file_and_line(self):
        """A line with a missing field raises TableError naming file:line."""
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "allocators"))
            os.makedirs(os.path.join(root, "workloads"))
            with open(os.path.join(root, "allocators", "registry.txt"), "w") as fh:
                fh.write("# comment\nglibc | - | libc6 | glibc | glibc\n")
            with open(os.path.join(root, "workloads", "LIST"), "w") as fh:
                fh.write("\nfrag | - | --blocks=1\n")
            with self.assertRaisesRegex(TableError, r"registry\.txt:2: 5 .*has 6"):
                registry.read_registry(root)
            with self.assertRaisesRegex(TableError, r"LIST:2: 3 .*has 5"):
                worklist.read_list(root)


if __name__ == "__main__":
    unittest.main()
