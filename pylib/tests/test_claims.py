"""test_claims.py - the claims table's structure, its commands, and its judges on rows built here.

Always holds: no test measures anything (check-claims' real rows are tested by
workloads/tests/run); each judge is fed rows shaped like heapbench.results.load()'s and must
decide both ways around its threshold.
"""
import unittest

from heapbench.claims import a000, a001, a004, measure
from heapbench.claims.claims import ARTICLES, CLAIMS

STRACE_OUT = """% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 95.66    0.180122        5458        33           futex
  0.15    0.000285           5        55           mmap
  0.00    0.000000           0         1         1 access
------ ----------- ----------- --------- --------- ----------------
100.00    0.188293         461       408         1 total
"""


def rows_of(phases=(), runs=(), files=None):
    """A row set: runs (each dict gets run/status) and phases (each names its run)."""
    runs = [dict(r, run=r.get("run", i), status=r.get("status", "ok")) for i, r in enumerate(runs)]
    return {"runs": runs, "phases": list(phases), "sizes": [], "files": files or {}}


def frag_rows(alloc, after_kb):
    """One ok frag run of alloc whose free-all RSS is after_kb."""
    p = a000.FRAG_P
    phases = [dict(run=0, allocator=alloc, params=p, phase=ph, rss_kb=kb, seconds=0.1, ops=1)
              for ph, kb in (("alloc", 206000), ("free-all", after_kb), ("trim", after_kb))]
    return rows_of(phases, [dict(run=0, allocator=alloc)])


class ClaimsTableTest(unittest.TestCase):
    """Every claim is well formed and the command lines are what `heapbench run` takes."""

    def test_ids_unique_and_articles_known(self):
        """No two rows share an id; every row's article has a heading."""
        ids = [c["id"] for c in CLAIMS]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertTrue(all(c["article"] in ARTICLES for c in CLAIMS))

    def test_every_article_has_claims(self):
        """Articles 000-004 each have a row."""
        for art in ("000", "001", "002", "003", "004"):
            self.assertGreaterEqual(sum(c["article"] == art for c in CLAIMS), 1, art)

    def test_frag_judges_every_allocator(self):
        """One frag row per allocator of the default matrix that frag names."""
        self.assertEqual({c["id"] for c in CLAIMS if c["id"].startswith("frag/")} - {"frag/pin"},
                         {f"frag/{a}" for a in a000.FRAG_ALLOCATORS})

    def test_command_quotes_values(self):
        """-p, --env and --wrap values are quoted; the wrapper's temporary directory is not shown."""
        cmd = measure.command(measure.Spec("w", ["glibc"], params=("--a=1 --b=2",), envs=("", "K=V"), reps=1,
                                           warmup=0, wrap="strace -o {dir}/s.txt"), 3)
        self.assertEqual(cmd, "build/heapbench run -w w -a glibc -n 1 --warmup 0 -p '--a=1 --b=2' --env '' "
                              "--env 'K=V' --wrap 'strace -o s.txt'")


class JudgesTest(unittest.TestCase):
    """Judges decide from the figures, both ways, and say n/a when a cell did not run."""

    def test_frag_threshold(self):
        """200 MiB kept holds; 3 MiB does not."""
        judge = a000.judge_frag("jemalloc")
        self.assertTrue(judge([frag_rows("jemalloc", 200 * 1024)])[1])
        self.assertFalse(judge([frag_rows("jemalloc", 3 * 1024)])[1])

    def test_failed_run_is_not_a_figure(self):
        """A run whose status is not ok gives n/a and does not hold."""
        rows = frag_rows("jemalloc", 200 * 1024)
        rows["runs"][0]["status"] = "failed"
        measured, holds, _ = a000.judge_frag("jemalloc")([rows])
        self.assertIn("n/a", measured)
        self.assertFalse(holds)

    def test_strace_table_and_mmap_share(self):
        """strace -c output is parsed (error column or not); 0.15% of mmap does not make 60%."""
        table = a001.strace_table(STRACE_OUT)
        self.assertEqual(table["mmap"], (0.15, 0.000285, 55))
        self.assertEqual(table["access"][2], 1)
        self.assertNotIn("total", table)
        self.assertFalse(a001.judge_mmap([rows_of(files={"strace.txt": STRACE_OUT})])[1])
        heavy = STRACE_OUT.replace(" 0.15    0.000285", "70.00    0.000285")
        self.assertTrue(a001.judge_mmap([rows_of(files={"strace.txt": heavy})])[1])
        self.assertIn("n/a", a001.judge_mmap([rows_of()])[0])

    def test_faults_ratio(self):
        """x50 more faults at 32 threads holds, x2 does not."""
        def rows(f32):
            return rows_of(runs=[dict(allocator=a, threads=t, minflt=f)
                                 for a in ["glibc"] + a001.FAST for t, f in ((1, 100), (32, f32))])
        self.assertTrue(a001.judge_faults([rows(5000)])[1])
        self.assertFalse(a001.judge_faults([rows(200)])[1])

    def test_lazy_sbrk(self):
        """RSS growing by 100 KiB with 1 GiB of break held holds; growing by 1 GiB does not."""
        def rows(grew):
            return rows_of([dict(run=0, allocator="glibc", params=a004.OS_P, phase=p, rss_kb=kb, ops=1, seconds=1)
                            for p, kb in (("sbrk-16", 1500), ("sbrk-big", 1500 + grew))], [dict(run=0)])
        self.assertTrue(a004.judge_lazy([rows(100)])[1])
        self.assertFalse(a004.judge_lazy([rows(1 << 20)])[1])


if __name__ == "__main__":
    unittest.main()
