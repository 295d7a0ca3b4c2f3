"""test_answer.py - OUT/answer.json is replaced whole: a write that fails midway leaves the previous answer, and no temporary file.

Always holds: everything is written under a temporary directory that the test removes.
"""
import json
import os
import tempfile
import unittest

from heapbench.bisect import output, state as st


def a_state(metric):
    """A finished bisect's state of three commits, the last one bad; metric may be any value."""
    return {"commits": ["a" * 40, "b" * 40, "c" * 40], "metric": metric,
            "ends": {"change": 0.05, "low": 0.04, "high": 0.06, "rounds": 3},
            "steps": {"0": {"verdict": "good", "rounds": 3}, "1": {"verdict": "good", "rounds": 3}}}


class AnswerTest(unittest.TestCase):
    """answer.json through a temporary file and a rename."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(lambda: [os.unlink(os.path.join(self.dir, f)) for f in os.listdir(self.dir)]
                        or os.rmdir(self.dir))

    def test_written_and_read_back(self):
        answer = output.write(self.dir, a_state("minflt"))
        with open(os.path.join(self.dir, "answer.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f), answer)
        self.assertEqual(answer["first_bad"], "c" * 40)
        self.assertEqual(os.listdir(self.dir), ["answer.json"])

    def test_failed_write_keeps_the_previous_answer(self):
        """A value json cannot write fails after part of the file is out: the previous answer.json
        is left as it was (a plain open-and-dump would have cut it short) and no temporary remains."""
        output.write(self.dir, a_state("minflt"))
        with open(os.path.join(self.dir, "answer.json"), encoding="utf-8") as f:
            before = f.read()
        with self.assertRaises(TypeError):
            output.write(self.dir, a_state({"not json": object()}))
        with open(os.path.join(self.dir, "answer.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(os.listdir(self.dir), ["answer.json"])

    def test_state_uses_the_same_writer(self):
        st.save(self.dir, {"version": st.VERSION, "x": 1})
        self.assertEqual(st.load(self.dir)["x"], 1)
        self.assertEqual(sorted(os.listdir(self.dir)), ["bisect.json"])


if __name__ == "__main__":
    unittest.main()
