"""test_glibc.py - the judges of glibc.py (arenas, the mmap threshold, realloc through mremap) on rows built here.

Always holds: nothing is measured; every judge is fed rows shaped like heapbench.results.load()'s
and must say holds on one side of its bound and does not hold on the other, and give no verdict
on the claim when its figure is missing.
"""
import unittest

from heapbench.claims import a004, other
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

    def test_safe_linking(self):
        """A masked next pointer (1) holds; a raw one (0) does not; no phase gives no verdict."""
        def sl_rows(got):
            return rows_of([dict(run=0, allocator="glibc", phase="safe-linking", ops=got, seconds=0.0)],
                           [dict(run=0, allocator="glibc")])
        self.assertEqual(self.kind(G.judge_safe_linking, sl_rows(1)), V.HOLDS)
        self.assertEqual(self.kind(G.judge_safe_linking, sl_rows(0)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_safe_linking, rows_of()), V.UNTESTABLE)

    def test_double_free(self):
        """An aborted a-b-a double free holds; one that went unnoticed does not; the cache-off cell is shown only."""
        def df_rows(got, env=""):
            return rows_of([dict(run=0, allocator="glibc", env=env, phase="double-free", ops=got, seconds=0.0)],
                           [dict(run=0, allocator="glibc", env=env)])
        off = df_rows(0, G.TCACHE0_ENV)
        self.assertEqual(self.kind(G.judge_double_free, df_rows(1), off), V.HOLDS)
        self.assertIn("went unnoticed with", G.judge_double_free([df_rows(1), off])[0])
        self.assertEqual(self.kind(G.judge_double_free, df_rows(0), off), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_double_free, rows_of(), off), V.UNTESTABLE)

    def test_mallinfo(self):
        """mallinfo's 32 bits differing from mallinfo2's at 5 GiB holds; equal ones do not; an allocator
        whose blocks glibc does not count cannot test it."""
        def mi_rows(new5, old5, new3=3 << 20, old3=3 << 20):
            figs = {5: (new5, old5), 3: (new3, old3)}
            return rows_of([dict(run=g, allocator="glibc", params=G.MALLINFO_P[g], phase=p, ops=v, seconds=0.0)
                            for g, (n, o) in figs.items() for p, v in (("mallinfo2", n), ("mallinfo", o))],
                           [dict(run=g, allocator="glibc", params=G.MALLINFO_P[g]) for g in figs])
        self.assertEqual(self.kind(G.judge_mallinfo, mi_rows(5 << 20, 1 << 20)), V.HOLDS)
        self.assertIn("negative", G.judge_mallinfo([mi_rows(5 << 20, 1 << 20)])[0])
        self.assertEqual(self.kind(G.judge_mallinfo, mi_rows(5 << 20, 5 << 20)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_mallinfo, mi_rows(0, 0, 0, 0)), V.UNTESTABLE)
        self.assertEqual(self.kind(G.judge_mallinfo, rows_of()), V.UNTESTABLE)

    def test_reuse_no_fault(self):
        """No fault per heap-served round holds; 50 per round (the block mapped afresh) does not."""
        mapped = faults_rows(G.FIXED_P, (300, 300 + 51 * 1000), G.FIXED_ENV)
        self.assertEqual(self.kind(a004.judge_reuse, faults_rows(other.MMAP_P, (300, 300)), mapped), V.HOLDS)
        self.assertEqual(self.kind(a004.judge_reuse, faults_rows(other.MMAP_P, (300, 300 + 50 * 20000)), mapped),
                         V.NOT_HOLD)
        self.assertEqual(self.kind(a004.judge_reuse, faults_rows(other.MMAP_P, (300, None)), mapped), V.UNTESTABLE)

    def test_inplace(self):
        """No move of the one array holds; 20 of 23 moved does not; a missing count gives no verdict."""
        def ip_rows(moves1, moves4=39):
            figs = {1: (23, moves1), 4: (92, moves4)}
            return rows_of([dict(run=n, allocator="glibc", params=G.INPLACE_P[n], phase=p, ops=v, seconds=0.0)
                            for n, (r, m) in figs.items() for p, v in (("reallocs", r), ("moves", m))],
                           [dict(run=n, allocator="glibc", params=G.INPLACE_P[n]) for n in figs])
        self.assertEqual(self.kind(G.judge_inplace, ip_rows(0)), V.HOLDS)
        self.assertEqual(self.kind(G.judge_inplace, ip_rows(20)), V.NOT_HOLD)
        self.assertEqual(self.kind(G.judge_inplace, rows_of()), V.UNTESTABLE)


if __name__ == "__main__":
    unittest.main()
