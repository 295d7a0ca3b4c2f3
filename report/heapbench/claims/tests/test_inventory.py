"""test_inventory.py - the inventory of the articles' checkable claims against the rows of CLAIMS and the counts CLAIMS.md states.

Always holds: nothing is measured; a row of an article that no inventory entry names, an entry
naming a row that does not exist, or a count in CLAIMS.md that differs from the inventory fails.
"""
import os
import re
import unittest

from heapbench.claims import inventory as I
from heapbench.claims.claims import ARTICLES, CLAIMS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


class InventoryTest(unittest.TestCase):
    """Every checkable claim is a row, a reason, or counted as missing."""

    def test_ids(self):
        """Ids are unique and start with an article's number; each status is one of the three."""
        ids = [e["id"] for e in I.ENTRIES]
        self.assertEqual(len(ids), len(set(ids)))
        for e in I.ENTRIES:
            self.assertIn(e["article"], ARTICLES, e["id"])
            self.assertNotEqual(e["article"], "own", e["id"])
            self.assertIn(e["status"], (I.ROW, I.NOT_HERE, I.TODO), e["id"])
            self.assertTrue(e["where"] and e["text"], e["id"])

    def test_rows_match(self):
        """Every article row is named by an entry, and every named row exists."""
        rows = {c["id"] for c in CLAIMS if c["article"] != "own"}
        named = {r for e in I.ENTRIES if e["status"] == I.ROW for r in e["detail"]}
        self.assertEqual(sorted(rows - named), [], "rows of CLAIMS no inventory entry names")
        self.assertEqual(sorted(named - rows), [], "inventory entries naming rows CLAIMS does not have")
        for e in I.ENTRIES:
            if e["status"] == I.ROW:
                self.assertTrue(e["detail"], e["id"])
                article = {c["id"]: c["article"] for c in CLAIMS}
                for r in e["detail"]:
                    self.assertEqual(article[r], e["article"], f"{e['id']} names {r} of another article")

    def test_reasons(self):
        """A claim that cannot be tested here says why."""
        for e in I.ENTRIES:
            if e["status"] == I.NOT_HERE:
                self.assertIsInstance(e["detail"], str, e["id"])
                self.assertGreater(len(e["detail"]), 20, e["id"])

    def test_claims_md_counts(self):
        """CLAIMS.md states the inventory's counts, in one sentence that this test reads."""
        with open(os.path.join(ROOT, "workloads", "CLAIMS.md"), encoding="utf-8") as f:
            text = " ".join(f.read().split())
        m = re.search(r"The articles hold (\d+) checkable claims: (\d+) have a row, (\d+) cannot be tested here "
                      r"\(each with its reason\), and (\d+) could be tested here but (?:have|has) no row yet", text)
        self.assertIsNotNone(m, "CLAIMS.md has no sentence stating the inventory's counts")
        self.assertEqual(tuple(int(x) for x in m.groups()), I.status())

    def test_counts_add_up(self):
        """status() splits every entry once."""
        total, rows, not_here, todo = I.status()
        self.assertEqual(total, rows + not_here + todo)
        self.assertEqual(total, len(I.ENTRIES))


if __name__ == "__main__":
    unittest.main()
