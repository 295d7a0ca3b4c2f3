"""test_twins.py - the Python readers of allocators/registry.txt, workloads/LIST and LAYOUT agree with the runner's on one corpus.

The runner (C) and the Python tools each read these files (the runner has no Python in it, and
the Python tools read them without starting the runner); this test is what keeps the two
readers one. The same corpus goes through `heapbench list --json` (plan/registry.c,
plan/worklist.c, base/layout.c) and through heapbench.registry, .worklist and .layout, in a
source tree and in an installed prefix, and every field must agree; each malformed line of the
refusal corpus must be refused by both.
Always holds: the corpus, the copies of build/heapbench and the fake libraries live in a
temporary directory that the test removes; nothing of the real tree is read but the binary and
install/LAYOUT.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from heapbench import cli

BIN = os.path.join(cli.ROOT, "build", "heapbench")
REPORT = os.path.join(cli.ROOT, "report")

# Every accepted spelling: comments, tabs and '\r', glob candidates (the highest version wins),
# a symlink, root-relative and missing libraries, the system allocator, '+' in thread counts,
# empty param pieces, a UTF-8 description.
REGISTRY = ("# name | libraries | package | version | tunables | matrix\n"
            "glibc | - | libc6 | glibc | glibc | default\n"
            "\tglob\t|\tLIBDIR/llvm-*/libg.so\t| libg | dpkg:libg | - | default   # newest first\r\n"
            "link | LIBDIR/missing.so:LIBDIR/link.so | liblink | dpkg:liblink | - | opt-in\n"
            "\n"
            "rel | build/lib/librel.so | - | git | - | default\n"
            "gone | LIBDIR/nowhere.so:build/lib/nowhere.so | libgone | dpkg:libgone | - | opt-in\n")
LIST = ("# name | threads | params | quick | description\n"
        "frag | - | --blocks=1 ; --blocks=2 | --blocks=1 | fragmentation\n"
        "sweep | 1, 2,,+4 | ;a=1;; b=2 | | thread sweep, na\u00efve text\r\n"
        "   \t# only a comment\n"
        "plain|-|||\n")
BAD_REGISTRY = ("x | - | p | v | t\n", "x | | p | v | t | default\n", " | - | p | v | t | default\n",
                "x | - | p | v | t | maybe\n", "x | - | p | v | t | default | more\n")
BAD_LIST = ("w | - | a | a\n", "w | - | a | a | d\nw | 1 | b | b | d\n", " | - | a | a | d\n",
            "w | x | a | a | d\n", "w |  | a | a | d\n", "w | 1.5 | a | a | d\n", "w | -1 | a | a | d\n",
            "w | " + ",".join(["1"] * 65) + " | a | a | d\n", "w | 1,2 | a | a | d | e\n")

# The Python readers' view, printed in the form of `heapbench list --json` (run in a process of its
# own, with the environment the runner gives its Python tools).
PY_VIEW = r"""
import json, os
from heapbench import cli, layout, registry, worklist
rows = worklist.read_list()
binaries = {}
for name, argv in worklist.cells(rows, quick=False):
    binaries[name] = argv[0]
files = {"registry": registry.registry_path(), "list": worklist.list_path()}
for key, rel in (("programs", "exec/programs"), ("workloads", "build/workloads"), ("libraries", "build/lib")):
    files[key] = layout.path(rel)
files["results"] = layout.results_dir()
print(json.dumps({"root": cli.ROOT, "installed": bool(os.environ.get("HEAPBENCH_LAYOUT")), "files": files,
    "allocators": [{"name": a.name, "libraries": a.libraries, "package": a.package, "version": a.version,
                    "tunables": a.tunables, "matrix": a.matrix, "library": a.library}
                   for a in registry.read_registry().values()],
    "workloads": [{"name": w.name, "kind": "binary", "binary": binaries.get(w.name, worklist.list_path()),
                   "threads": w.threads, "params": w.params, "quick": w.quick, "description": w.description}
                  for w in rows]}))
"""


def clean_env(**extra):
    """The environment without any HEAPBENCH_ variable, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEAPBENCH_")}
    env.update(extra)
    return env


def same_file(a, b):
    """a and b are both None, both "", or name the same file."""
    if a in (None, "") or b in (None, ""):
        return a == b
    return os.path.realpath(a) == os.path.realpath(b)


class TwinReaders(unittest.TestCase):
    """heapbench list --json against the Python readers, on the same files."""

    def setUp(self):
        if not os.access(BIN, os.X_OK):
            raise AssertionError(f"{BIN} is missing; run make first")
        self.tmp = tempfile.mkdtemp(prefix="hb-twins-")
        self.libdir = os.path.join(self.tmp, "libs")
        for rel in ("llvm-9/libg.so", "llvm-14/libg.so", "llvm-10/libg.so", "real.so"):
            os.makedirs(os.path.dirname(os.path.join(self.libdir, rel)), exist_ok=True)
            open(os.path.join(self.libdir, rel), "w").close()
        os.symlink("real.so", os.path.join(self.libdir, "link.so"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def tree(self, installed, registry_text=None, list_text=None):
        """A root with the corpus (or the given texts) where the layout puts them, and its runner binary."""
        root = os.path.join(self.tmp, "prefix" if installed else "src")
        if installed:
            exe = os.path.join(root, "bin", "heapbench")
            os.makedirs(os.path.join(root, "share", "heapbench"), exist_ok=True)
            shutil.copy(os.path.join(cli.ROOT, "install", "LAYOUT"), os.path.join(root, "share", "heapbench", "LAYOUT"))
        else:
            exe = os.path.join(root, "build", "heapbench")
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        shutil.copy(BIN, exe)
        where = self.places(root, installed)
        for key, text in (("registry", REGISTRY if registry_text is None else registry_text),
                          ("list", LIST if list_text is None else list_text)):
            os.makedirs(os.path.dirname(where[key]), exist_ok=True)
            with open(where[key], "w", encoding="utf-8", newline="") as fh:
                fh.write(text.replace("LIBDIR", self.libdir))
        os.makedirs(where["libraries"], exist_ok=True)
        open(os.path.join(where["libraries"], "librel.so"), "w").close()
        return exe, root

    def places(self, root, installed):
        """Where the corpus files go in root: asked of heapbench.layout (the views compare it with the runner's)."""
        code = ("import json\nfrom heapbench import layout\nprint(json.dumps({k: layout.path(r) for k, r in ("
                "('registry', 'allocators/registry.txt'), ('list', 'workloads/LIST'), ('libraries', 'build/lib'))}))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                              env=self.env(None, root, installed), check=True)
        return json.loads(done.stdout)

    def env(self, exe, root, installed):
        """The environment of both readers: results in the temporary directory; the LAYOUT when installed."""
        extra = {"HEAPBENCH_RESULTS": os.path.join(self.tmp, "results"), "HEAPBENCH_ROOT": root,
                 "PYTHONPATH": REPORT}
        if installed:
            extra["HEAPBENCH_LAYOUT"] = os.path.join(root, "share", "heapbench", "LAYOUT")
        return clean_env(**extra)

    def view(self, exe, root, installed, python=False):
        """(the runner's or the Python readers') view of root as a dict; AssertionError with stderr on failure."""
        argv = [sys.executable, "-c", PY_VIEW] if python else [exe, "list", "--json"]
        env = self.env(exe, root, installed)
        if not python:  # the runner finds its root by itself; only the results directory is given
            env = clean_env(HEAPBENCH_RESULTS=env["HEAPBENCH_RESULTS"])
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        if done.returncode:
            raise AssertionError(f"{argv[0]} exit {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout)

    def agree(self, installed):
        """Both views of the corpus, field by field."""
        exe, root = self.tree(installed)
        c, py = self.view(exe, root, installed), self.view(exe, root, installed, python=True)
        self.assertEqual(c["installed"], installed)
        self.assertEqual(py["installed"], installed)
        self.assertEqual(os.path.realpath(c["root"]), os.path.realpath(py["root"]))
        self.assertEqual(c["files"], py["files"])
        strip = ("library",)
        self.assertEqual([{k: v for k, v in a.items() if k not in strip} for a in c["allocators"]],
                         [{k: v for k, v in a.items() if k not in strip} for a in py["allocators"]])
        for ca, pa in zip(c["allocators"], py["allocators"]):
            self.assertTrue(same_file(ca["library"], pa["library"]), (ca, pa))
        libs = {a["name"]: a["library"] for a in c["allocators"]}
        self.assertTrue(libs["glob"].endswith("llvm-14/libg.so"), libs)  # the corpus holds what it should
        self.assertTrue(libs["link"].endswith("real.so") and libs["gone"] is None and libs["glibc"] == "", libs)
        self.assertTrue(libs["rel"].startswith(c["files"]["libraries"]), libs)
        listed = [w for w in c["workloads"] if ":" not in w["name"]]
        self.assertEqual(listed, py["workloads"])
        self.assertEqual([w["threads"] for w in listed], [None, [1, 2, 4], None])
        self.assertEqual(listed[1]["params"], ["a=1", "b=2"])
        self.assertEqual(listed[2]["params"], [""])

    def test_source_tree(self):
        """A source tree: every path under the root, as build/heapbench and the Python readers see it."""
        self.agree(installed=False)

    def test_installed_prefix(self):
        """An installed prefix: every path through the LAYOUT, the same for both."""
        self.agree(installed=True)

    def test_both_refuse_the_same_lines(self):
        """Each malformed line makes both readers refuse: list exits 1, Python raises TableError."""
        exe, root = self.tree(False)
        probe = (f"from heapbench import registry, worklist\nfrom heapbench.table import TableError\n"
                 "try:\n    registry.read_registry(); worklist.read_list()\nexcept TableError as e:\n"
                 "    print(e); raise SystemExit(1)\n")
        cases = [(bad, LIST) for bad in BAD_REGISTRY] + [(REGISTRY, bad) for bad in BAD_LIST]
        for registry_text, list_text in cases + [(REGISTRY, LIST)]:
            self.tree(False, registry_text, list_text)
            env = self.env(exe, root, False)
            c = subprocess.run([exe, "list", "--json"], capture_output=True, text=True, timeout=120,
                               env=clean_env(HEAPBENCH_RESULTS=env["HEAPBENCH_RESULTS"]))
            py = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
            good = (registry_text, list_text) == (REGISTRY, LIST)
            self.assertEqual(c.returncode, 0 if good else 1, (registry_text, list_text, c.stderr))
            self.assertEqual(py.returncode, 0 if good else 1, (registry_text, list_text, py.stdout, py.stderr))


if __name__ == "__main__":
    unittest.main()
