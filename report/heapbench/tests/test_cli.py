"""test_cli.py - the command-line helpers every Python subcommand shares (heapbench.cli).

Always holds: the split at '--' and the --latency modes have one spelling each, in cli and latency;
these tests pin what tune, advise, ci --ab, hyperfine and tune's runner calls rely on.
"""
import contextlib
import io
import unittest

from heapbench import cli, latency


def parser():
    """A parser with one plain option and the vocabulary's --latency."""
    p = cli.ArgParser(prog="heapbench test")
    p.add_argument("--x")
    cli.add_option(p, "latency", "latency mode")
    return p


class SplitCommandTest(unittest.TestCase):
    def test_split_at_the_first_dashes(self):
        """Words before the first '--', the command after it (a later '--' belongs to the command)."""
        self.assertEqual(cli.split_command(["-a", "glibc", "--", "cmd", "--", "x"]), (["-a", "glibc"], ["cmd", "--", "x"]))

    def test_no_dashes_no_command(self):
        """Without '--' the command is None; with nothing after it, []: callers tell the two apart."""
        self.assertEqual(cli.split_command(["-a", "glibc"]), (["-a", "glibc"], None))
        self.assertEqual(cli.split_command(["-a", "--"]), (["-a"], []))

    def test_parse_command_line(self):
        """Options parsed from the words before '--'; [] as the command without it."""
        opts, command = cli.parse_command_line(parser(), ["--x", "1", "--", "ls", "-l"], "give a command")
        self.assertEqual((opts.x, command), ("1", ["ls", "-l"]))
        opts, command = cli.parse_command_line(parser(), ["--x", "2"], "give a command")
        self.assertEqual((opts.x, command), ("2", []))

    def test_dashes_with_nothing_after_is_a_usage_error(self):
        """'--' and nothing after: exit 2 with one line that says what to give."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as stop:
            cli.parse_command_line(parser(), ["--x", "1", "--"], "give the command to run")
        self.assertEqual(stop.exception.code, 2)
        self.assertIn("nothing after '--': give the command to run", err.getvalue())
        self.assertEqual(len(err.getvalue().strip().splitlines()), 1)


class LatencyModesTest(unittest.TestCase):
    def test_vocabulary_option_takes_the_modes(self):
        """--latency accepts exactly latency.MODES, the runner's off, sampled and all."""
        self.assertEqual(latency.MODES, ("off", "sampled", "all"))
        for mode in latency.MODES:
            self.assertEqual(parser().parse_args(["--latency", mode]).latency, mode)
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as stop:
            parser().parse_args(["--latency", "some"])
        self.assertEqual(stop.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
