"""test_lazyrows.py - heapbench.results.LazyRows' filtered reads (column, where) against the full read of the same file.

Always holds: every expectation is the full read (iteration, read_csv's conversions) filtered
here in the test, so a filtered read can only pass by returning the same rows; the CSVs are
written into a temporary directory that the test removes.
"""
import os
import tempfile
import unittest

from heapbench import results

HEADER = "schema,run_id,run,t,rss_kb,anon_huge_kb"


def write(directory, lines):
    """rss.csv in directory with HEADER and the given data lines; returns its path."""
    path = os.path.join(directory, "rss.csv")
    with open(path, "w") as fh:
        fh.write("\n".join([HEADER] + lines) + "\n")
    return path


class LazyRowsTest(unittest.TestCase):
    """column() and where() give what the full iteration gives, and refuse what it refuses."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.lines = [f"1,r,{run},{i * 0.01:.2f},{1000 + run * 10 + i},0" for run in (3, 1, 2, 1) for i in range(4)]

    def tearDown(self):
        self.tmp.cleanup()

    def test_column_is_the_full_reads_column(self):
        """Every row's run, in order, converted (repeated values on consecutive rows included)."""
        rows = results.LazyRows(write(self.tmp.name, self.lines))
        self.assertEqual(list(rows.column("run")), [r["run"] for r in rows])
        self.assertEqual(list(rows.column("no_such_column")), [])

    def test_where_is_the_full_read_filtered(self):
        """The rows of the kept runs, converted exactly as the full read converts them, in file order."""
        rows = results.LazyRows(write(self.tmp.name, self.lines))
        for keep in ({1}, {2, 3}, set(), {99}):
            self.assertEqual(list(rows.where("run", keep)), [r for r in rows if r["run"] in keep])

    def test_lists_are_filtered_alike(self):
        """column_values and rows_where give the same answers for the rows held as a list."""
        lazy = results.LazyRows(write(self.tmp.name, self.lines))
        held = list(lazy)
        self.assertEqual(list(results.column_values(held, "run")), list(results.column_values(lazy, "run")))
        self.assertEqual(list(results.rows_where(held, "run", {2})), list(results.rows_where(lazy, "run", {2})))

    def test_bad_rows_refused_even_when_not_kept(self):
        """A short row or a bad run field raises ResultsError naming the line, whatever is kept."""
        for bad, what in (("1,r,2,0.5", "rss.csv:4: not a row"), ("1,r,-2,0.5,1,0", "rss.csv:4: column run"),
                          ("2,r,2,0.5,1,0", "rss.csv:4: not a row")):
            path = write(self.tmp.name, self.lines[:2] + [bad] + self.lines[2:])
            with self.assertRaisesRegex(results.ResultsError, what):
                list(results.LazyRows(path).where("run", {3}))
            with self.assertRaisesRegex(results.ResultsError, what):
                list(results.LazyRows(path).column("run"))

    def test_kept_row_values_checked(self):
        """A bad value in a kept row raises; in a row that is not kept it is not read (only its run is)."""
        path = write(self.tmp.name, self.lines[:2] + ["1,r,3,0.5,nan,0"] + self.lines[2:])
        with self.assertRaisesRegex(results.ResultsError, "rss.csv:4: column rss_kb"):
            list(results.LazyRows(path).where("run", {3}))
        self.assertEqual(len(list(results.LazyRows(path).where("run", {1}))), 8)


if __name__ == "__main__":
    unittest.main()
