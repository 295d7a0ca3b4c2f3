"""test_glibc.py - the judges of glibc.py (arenas, the mmap threshold, realloc through mremap) on rows built here.

Always holds: nothing is measured; every judge is fed rows shaped like heapbench.results.load()'s
and must say holds on one side of its bound and does not hold on the other, and give no verdict
on the claim when its figure is missing.
"""
import unittest

from heapbench.claims import glibc as G
from heapbench.claims import verdict as V
from heapbench.claims.tests.test_claims import STRACE_OUT, rows_of


def arenas_rows(arenas=16, cores=2, reserve_kib=15 * 65536, rss_kb=96000, uordblks=1 << 20, live=16 << 20,
                env=""):
    """One ok glibc run of the arenas cell with these figures."""
    ops = dict(fill=100, cores=cores, arenas=arenas, reserve=reserve_kib, mallinfo2=uordblks, free=64)
    phases = [dict(run=0, allocator="glibc", params=G.ARENAS_P, env=env, phase=p, seconds=0.1, ops=n,
                   live_bytes=live, rss_kb=rss_kb) for p, n in ops.items()]
    return rows_of(phases, [dict(run=0, allocator="glibc", params=G.ARENAS_P, env=env)])


def faults_rows(params, faults, env=""):
    """One ok glibc run per params with its runs.csv minflt."""
    return rows_of(runs=[dict(run=i, allocator="glibc", params=p, env=env, minflt=f)
                         for i, (p, f) in enumerate(zip(params, faults))])


class GlibcJudgesTest(unittest.TestCase):
    """Each judge decides both ways around its bound."""

    def kind(self, judge, *rows):
        return judge(list(rows))[1].kind

    def test_cap(self):
        """16 arenas on 2 cores holds; 24 does not; a 16-core machine cannot test it with 64 threads."""
        self.assertEqual(self.kind(G.judge_cap, arenas_rows()), V.HOLDS)
        self.assertEqual(self.kind(G.judge_cap, arenas_rows(arenas=24)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_cap, arenas_rows(arenas=64, cores=16)), V.UNTESTABLE)
        self.assertEqual(self.kind(G.judge_cap, rows_of()), V.UNTESTABLE)

    def test_heap(self):
        """64 MiB per arena with little touched holds; 128 MiB, or most of it resident, does not."""
        self.assertEqual(self.kind(G.judge_heap, arenas_rows()), V.HOLDS)
        self.assertEqual(self.kind(G.judge_heap, arenas_rows(reserve_kib=15 * 131072)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_heap, arenas_rows(rss_kb=15 * 60000)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_heap, rows_of()), V.UNTESTABLE)

    def test_arena_max(self):
        """RSS x0.44 with MALLOC_ARENA_MAX=2 holds; x0.95 does not."""
        default = arenas_rows(rss_kb=96000)
        self.assertEqual(self.kind(G.judge_arena_max, default, arenas_rows(2, rss_kb=42000, env=G.ARENA_MAX)),
                         V.HOLDS)
        self.assertEqual(self.kind(G.judge_arena_max, default, arenas_rows(2, rss_kb=91000, env=G.ARENA_MAX)),
                         V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_arena_max, default, rows_of()), V.UNTESTABLE)

    def test_mallinfo2(self):
        """A small uordblks against the threads' bytes holds (main arena only); one above them does not."""
        self.assertEqual(self.kind(G.judge_mallinfo2, arenas_rows(uordblks=1 << 20)), V.HOLDS)
        verdict = G.judge_mallinfo2([arenas_rows(uordblks=35 << 20)])[1]
        self.assertEqual(verdict.kind, V.NOT_HOLD)
        self.assertIn("every arena", verdict.note)

    def test_fixed_threshold(self):
        """~50 faults per 200 KiB round with the threshold set holds; ~0 (still dynamic) does not."""
        env = G.FIXED_ENV
        self.assertEqual(self.kind(G.judge_fixed, faults_rows(G.FIXED_P, (300, 300 + 51 * 1000), env)), V.HOLDS)
        self.assertEqual(self.kind(G.judge_fixed, faults_rows(G.FIXED_P, (300, 310), env)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_fixed, faults_rows(G.FIXED_P, (300, None), env)), V.UNTESTABLE)

    def test_threshold_max(self):
        """A 32 MiB block faulting its 8,192 pages each round holds; a heap-served one does not."""
        self.assertEqual(self.kind(G.judge_max, faults_rows(G.MAX_P, (36878, 36878 + 4 * 8193))), V.HOLDS)
        self.assertEqual(self.kind(G.judge_max, faults_rows(G.MAX_P, (12300, 12297))), V.NOT_HOLD)

    def test_mremap(self):
        """63 mremap calls holds; none (a copying realloc) does not; no strace table gives no verdict."""
        def strace_rows(n):
            return rows_of(files={"strace.txt": STRACE_OUT.replace(
                "  0.15    0.000285           5        55           mmap",
                f"  0.15    0.000285           5        {n}           mremap")})
        self.assertEqual(self.kind(G.judge_mremap, strace_rows(63)), V.HOLDS)
        self.assertEqual(self.kind(G.judge_mremap, strace_rows(3)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_mremap, rows_of()), V.UNTESTABLE)

    def test_tcache(self):
        """7, 7, 0, 0 chunks kept holds; 16 kept at 1,032 bytes (a larger count) or 7 at 1,033 does not."""
        def tc_rows(counts):
            return rows_of([dict(run=0, allocator="glibc", phase=f"size-{n}", ops=k, seconds=0.0)
                            for n, k in zip(G.TCACHE_KEEPS, counts)], [dict(run=0, allocator="glibc")])
        self.assertEqual(self.kind(G.judge_tcache, tc_rows((7, 7, 0, 0))), V.HOLDS)
        self.assertEqual(self.kind(G.judge_tcache, tc_rows((16, 16, 0, 0))), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_tcache, tc_rows((7, 7, 7, 0))), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_tcache, rows_of()), V.UNTESTABLE)

    def test_returned(self):
        """99% of the arrays' bytes given back at free holds; 10% does not; a missing phase gives no verdict."""
        def rg_rows(alloc, grow_kb, free_kb):
            return rows_of([dict(run=0, allocator=alloc, params=G.RETURN_P, phase=p, rss_kb=kb, seconds=0.1, ops=1,
                                 live_bytes=live) for p, kb, live in (("grow", grow_kb, 16 << 20), ("free", free_kb, 0))],
                           [dict(run=0, allocator=alloc, params=G.RETURN_P)])
        for alloc in ("glibc", "mmap"):
            judge = G.judge_returned(alloc)
            self.assertEqual(self.kind(judge, rg_rows(alloc, 17800, 1600)), V.HOLDS)
            self.assertEqual(self.kind(judge, rg_rows(alloc, 17800, 16200)), V.NOT_HOLD)
            self.assertEqual(self.kind(judge, rows_of()), V.UNTESTABLE)


if __name__ == "__main__":
    unittest.main()
