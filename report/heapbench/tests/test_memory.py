"""test_memory.py - the long-life metrics of heapbench.memory on server phase rows built here.

Always holds: every expected figure follows by hand from the rows of the test (RSS and live
chosen so that the reclaimable memory, the fractions and the slopes are round numbers).
"""
import unittest

from heapbench import memory


def phase(name, rss_kb, live_kib, seconds=1.0):
    """One phases.csv row as results.load() returns it."""
    return {"phase": name, "seconds": seconds, "ops": 0, "live_bytes": live_kib * 1024, "rss_kb": rss_kb}


def cycle(c, load_rss, live, marks):
    """The phases of cycle c: load end at load_rss with live KiB, then (mark seconds, RSS) pairs."""
    rows = [phase(f"c{c}-load", load_rss, live)]
    return rows + [phase(f"c{c}-idle-{s:g}s", rss, live) for s, rss in marks]


class MemoryTest(unittest.TestCase):
    def test_cycles_group_load_and_marks_in_time_order(self):
        rows = cycle(1, 2000, 1000, [(1, 1900), (0.1, 2000)]) + [phase("free-all", 500, 0)]
        cyc = memory.cycles(rows)
        self.assertEqual(list(cyc), [1])
        self.assertEqual([s for s, _ in cyc[1]["marks"]], [0.1, 1.0])

    def test_returned_is_the_fraction_of_rss_beyond_live(self):
        # reclaimable = 2000 - 1000 KiB; +1 s gave back 250, +5 s 600
        cyc = memory.cycles(cycle(1, 2000, 1000, [(0.1, 2000), (1, 1750), (5, 1400)]))
        self.assertEqual([(s, f) for _, s, f in memory.returned(cyc)], [(0.1, 0.0), (1.0, 0.25), (5.0, 0.6)])
        self.assertEqual(memory.half_return_s(cyc, 1), 5.0)

    def test_nothing_reclaimable_gives_none_not_zero(self):
        cyc = memory.cycles(cycle(1, 1000, 1000, [(1, 900)]))
        self.assertEqual([f for _, _, f in memory.returned(cyc)], [None])
        self.assertIsNone(memory.half_return_s(cyc, 1))

    def test_drift_is_the_slope_over_the_steady_cycles_only(self):
        # live grows 1000 -> 3000 KiB over cycles 1-3 and stays; RSS at load end grows 100 KiB a cycle from c3
        rows = (cycle(1, 2000, 1000, []) + cycle(2, 5000, 2000, []) + cycle(3, 8000, 3000, []) +
                cycle(4, 8100, 3000, []) + cycle(5, 8200, 3000, []))
        cyc = memory.cycles(rows)
        self.assertEqual(memory.steady_cycles(cyc), [3, 4, 5])
        self.assertAlmostEqual(memory.drift_kb_per_cycle(cyc), 100.0)

    def test_one_cycle_has_no_drift(self):
        self.assertIsNone(memory.drift_kb_per_cycle(memory.cycles(cycle(1, 2000, 1000, [(1, 1500)]))))

    def test_run_metrics_medians_over_cycles_and_not_a_server_run(self):
        rows = cycle(1, 2000, 1000, [(1, 1800)]) + cycle(2, 2000, 1000, [(1, 1400)]) + cycle(3, 2000, 1000, [(1, 1600)])
        m = memory.run_metrics(rows)
        self.assertAlmostEqual(m["returned"][1.0], 0.4)
        self.assertEqual(m["half_s"], {1: None, 2: 1.0, 3: None})
        self.assertEqual(memory.half_text(list(m["half_s"].values())), "+1 s (1 of 3 cycles)")
        self.assertIsNone(memory.run_metrics([phase("alloc", 100, 10), phase("free-all", 50, 0)]))


if __name__ == "__main__":
    unittest.main()
