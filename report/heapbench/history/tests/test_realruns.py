"""test_realruns.py - change points on real runs: the library behind one allocator name changes at point 7 of 12.

Always holds: the twelve runs are measured here by build/heapbench (quick single cells of the list
workload, 3 reps), into the test's temporary directory; allocator name x is jemalloc for points
1-6 and mimalloc from point 7 (both Debian packages; SKIP when one is missing), glibc beside it
never changes; the deterministic memory metrics (minflt, maxrss_kb) must show exactly one change,
at label p7, marked as a library change, the glibc cell none, and the first six points alone none.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import histfix

LIBS = ("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2")
PARAMS = "--alloc=malloc --nodes=20000"


class RealRunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [lib for lib in LIBS if not os.path.exists(lib)]
        if missing:
            raise unittest.SkipTest(f"{missing[0]} is not installed (make deps installs it)")
        cls.tmp = tempfile.mkdtemp(prefix="hb-history-real-")
        cls.dirs = []
        for point in range(1, 13):
            out = os.path.join(cls.tmp, f"p{point}")
            lib = LIBS[point >= 7]
            done = subprocess.run([histfix.BIN, "run", "--quick", "-n", "3", "--warmup", "0", "-w", "list", "-p", PARAMS,
                                   "-a", "x,glibc", "--allocator", f"x={lib}", "-o", out],
                                  capture_output=True, text=True, timeout=600,
                                  env=dict(os.environ, HEAPBENCH_RESULTS=os.path.join(cls.tmp, "results")))
            if done.returncode != 0:
                shutil.rmtree(cls.tmp, ignore_errors=True)
                raise AssertionError(f"heapbench run of point {point} failed: {done.stderr.strip()[-300:]}")
            cls.dirs.append(out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def history(self, name, dirs):
        """A history of dirs labelled p1, p2, ... (one add per point, in order)."""
        db = os.path.join(self.tmp, name)
        for i, d in enumerate(dirs, start=1):
            done = histfix.run_cli(["add", "--db", db, "--label", f"p{i}", d], self.tmp)
            self.assertEqual(done.returncode, 0, done.stderr)
        return db

    def changes(self, db):
        done = histfix.run_cli(["changes", "--db", db, "--metric", "minflt,maxrss_kb", "--json"], self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads(done.stdout)

    def test_library_change_found_at_point_7(self):
        found = self.changes(self.history("all.sqlite", self.dirs))
        cell = f"list/x/t1 [{PARAMS}]"
        self.assertEqual(sorted((f["cell"], f["metric"]) for f in found), [(cell, "maxrss_kb"), (cell, "minflt")], found)
        for f in found:
            self.assertEqual(f["label"], "p7", f)
            self.assertTrue(f["library_change"], f)
            self.assertLess(f["pct"], -5, f)

    def test_flat_first_half_gives_no_change(self):
        self.assertEqual(self.changes(self.history("half.sqlite", self.dirs[:6])), [])


if __name__ == "__main__":
    unittest.main()
