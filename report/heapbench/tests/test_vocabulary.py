"""test_vocabulary.py - one option name means one thing in every subcommand's --help (C and Python side).

Always holds: every help text is read from the real commands (build/heapbench SUB --help for
run, exec and the Python subcommands it hands over to; workloads/check-claims and
report/heapbench/compare/quality --help), never from a copy; an option is compared by its short form and its
metavar against `heapbench run`'s (or `exec`'s when run lacks it), so a rename on either side
fails here.
"""
import os
import re
import subprocess
import unittest

from heapbench import cli

BIN = os.path.join(cli.ROOT, "build", "heapbench")
C_SUBS = ("run", "exec")
PY_SUBS = ("report", "compare", "ci", "merge", "tune")
SCRIPTS = {"check-claims": "workloads/check-claims", "quality": "report/heapbench/compare/quality"}
# Subcommands that write files: each takes -o/--output for where they go.
WRITERS = ("run", "exec", "report", "compare", "ci", "merge", "tune", "quality")
# (subcommand, option) whose metavar says "one" of run's list; the meaning is the same.
ONE_OF_A_LIST = {("exec", "--workloads")}
SHORT = re.compile(r"(?<![\w-])-[a-zA-Z](?![\w-])")
LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def help_text(name):
    """The --help text of a subcommand or script (raises when it does not exit 0)."""
    argv = [BIN, name, "--help"] if name in C_SUBS + PY_SUBS else [os.path.join(cli.ROOT, SCRIPTS[name]), "--help"]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def options(text):
    """{long option: (short or None, metavar or None)} of the option lines of a help text.

    An option line starts with '-' after at most 6 spaces; its flags end where two spaces
    begin the help (C: '-o, --output DIR   text'; argparse: '-o DIR, --output DIR  text')."""
    out = {}
    for line in text.splitlines():
        if not re.match(r"^ {1,6}-", line):
            continue
        flags = re.split(r"\s{2,}", line.strip())[0]
        longs, shorts = LONG.findall(flags), SHORT.findall(flags)
        if not longs:
            continue
        out[longs[0]] = (shorts[0] if shorts else None, metavar(flags.split(longs[0], 1)[1]))
    return out


def metavar(rest):
    """The value name after an option's long form ('DIR', "'K=V K2=V2'"), None when there is none
    (a lowercase word there starts the help text: C's '--count-instructions count each...')."""
    rest = rest.strip()
    if rest.startswith("'"):
        return rest[:rest.index("'", 1) + 1]
    word = rest.split(", ")[0].split()[0] if rest else ""
    return None if not word or word.isalpha() and word.islower() else word


class VocabularyTest(unittest.TestCase):
    """The option names, short forms and metavars of every subcommand agree."""

    @classmethod
    def setUpClass(cls):
        if not os.access(BIN, os.X_OK):
            raise AssertionError(f"{BIN} is missing; run make first")
        cls.opts = {name: options(help_text(name)) for name in C_SUBS + PY_SUBS + tuple(SCRIPTS)}

    def test_helps_were_parsed(self):
        """Every help text yields options, run's -o/--output among them (the parser is not blind)."""
        for name, opts in self.opts.items():
            self.assertIn("--help", opts, name)
        self.assertEqual(self.opts["run"]["--output"], ("-o", "DIR"))

    def test_one_short_form_per_option(self):
        """An option has the same short form (or none) wherever it appears."""
        seen = {}
        for name, opts in self.opts.items():
            for long_name, (short, _) in opts.items():
                seen.setdefault(long_name, {}).setdefault(short, []).append(name)
        mixed = {k: v for k, v in seen.items() if len(v) > 1}
        self.assertEqual(mixed, {}, "options with different short forms: " + repr(mixed))

    def test_one_option_per_short_form(self):
        """A short form stands for one long option everywhere."""
        seen = {}
        for name, opts in self.opts.items():
            for long_name, (short, _) in opts.items():
                if short:
                    seen.setdefault(short, {}).setdefault(long_name, []).append(name)
        mixed = {k: v for k, v in seen.items() if len(v) > 1}
        self.assertEqual(mixed, {}, "short forms with several meanings: " + repr(mixed))

    def test_same_metavar_as_the_runner(self):
        """A Python option that `run` or `exec` also has takes the same kind of value (same metavar)."""
        runner = dict(self.opts["exec"], **self.opts["run"])
        for name in PY_SUBS + tuple(SCRIPTS):
            for long_name, (_, meta) in self.opts[name].items():
                if long_name in runner and long_name != "--help" and (name, long_name) not in ONE_OF_A_LIST:
                    self.assertEqual(meta, runner[long_name][1], f"{name} {long_name}")

    def test_vocabulary_table_is_runs(self):
        """heapbench.cli.VOCABULARY, the Python side's table, says what `run --help` says."""
        for short, long_name, meta in cli.VOCABULARY.values():
            self.assertEqual(self.opts["run"].get(long_name), (short, meta), long_name)

    def test_writers_take_output(self):
        """Every subcommand that writes files takes -o/--output."""
        for name in WRITERS:
            self.assertEqual(self.opts[name].get("--output", (None,))[0], "-o", name)

    def test_report_accepts_o(self):
        """`heapbench report DIR -o OUT` gets past the option parser (the error is about DIR, not -o)."""
        proc = subprocess.run([BIN, "report", "/nonexistent-heapbench-dir", "-o", "/nonexistent-out"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("/nonexistent-heapbench-dir: not a directory", proc.stderr)


if __name__ == "__main__":
    unittest.main()
