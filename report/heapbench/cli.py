"""cli.py - the command-line conventions of every Python subcommand: errors, shared option names, value parsers.

Always holds: a usage error prints exactly one line on stderr ("heapbench SUB: what was wrong;
what to do") and exits 2; an option that means the same thing as one of `heapbench run`'s has
run's name and short form (VOCABULARY, the one table of them on the Python side); an older
spelling stays accepted as a hidden alias and is never shown in --help.
"""
import argparse
import os
import sys

from heapbench import latency

ROOT = os.environ.get("HEAPBENCH_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Option names shared with `heapbench run` (runner/plan/options.c): concept -> (short or None, long, metavar).
VOCABULARY = {
    "output": ("-o", "--output", "DIR"),
    "allocators": ("-a", "--allocators", "A1,A2"),
    "workloads": ("-w", "--workloads", "W1,W2"),
    "threads": ("-t", "--threads", "1,2,4"),
    "reps": ("-n", "--reps", "N"),
    "params": ("-p", "--params", "'ARGS'"),
    "env": (None, "--env", "'K=V K2=V2'"),
    "warmup": (None, "--warmup", "N"),
    "pin": (None, "--pin", "CPUS"),
    "timeout": (None, "--timeout", "S"),
    "priority": (None, "--priority", "LEVEL"),
    "allocator": (None, "--allocator", "NAME=/path/lib.so"),
    "workload_bin": (None, "--workload-bin", "NAME=PATH"),
    "latency": (None, "--latency", "MODE"),
    "metric": (None, "--metric", "NAME=REGEX[,higher]"),
}
# The values an option of the vocabulary takes, where they are a closed set.
PRIORITIES = ("normal", "nice", "rt")  # the levels of run's --priority (runner/base/priority.h)
CHOICES = {"latency": latency.MODES, "priority": PRIORITIES}


class ArgParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2 (the heapbench convention)."""

    def error(self, message):
        """Prints one line naming the subcommand, the problem and where help is, then exits 2."""
        usage_exit(self.prog, f"{message}; see '{self.prog} --help'")


def add_option(parser, concept, help_text, aliases=(), **kwargs):
    """Adds the VOCABULARY option `concept` (dest = concept) to parser; aliases are older spellings
    accepted with the same meaning but left out of --help. Returns the argparse action."""
    short, long_name, metavar = VOCABULARY[concept]
    kwargs.setdefault("metavar", metavar)
    if concept in CHOICES:
        kwargs.setdefault("choices", CHOICES[concept])
    flags = [f for f in (short, long_name) if f]
    action = parser.add_argument(*flags, dest=concept, help=help_text, **kwargs)
    for alias in aliases:
        parser.add_argument(alias, dest=concept, help=argparse.SUPPRESS,
                            **{k: v for k, v in kwargs.items() if k not in ("default", "metavar")})
    return action


def split_command(argv):
    """(the words before the first '--', the command after it): the one split of a command line
    that ends in `-- CMD ARGS...` (tune, advise, ci --ab, exec's argv in meta.json); the command
    is None when there is no '--' ([] when nothing follows it)."""
    if "--" not in argv:
        return list(argv), None
    i = argv.index("--")
    return list(argv[:i]), list(argv[i + 1:])


def parse_command_line(parser, argv, missing, prepare=list):
    """(options, command) of `[options] [-- CMD ARGS...]`: the words before '--' (through prepare)
    parsed by parser, the command after it ([] without '--'); '--' with nothing after it is a
    usage error saying missing (what to give instead)."""
    words, command = split_command(argv)
    if command == []:
        parser.error(f"nothing after '--': {missing}")
    return parser.parse_args(prepare(words)), command or []


def usage_exit(prog, message):
    """Prints 'PROG: MESSAGE' as one line on stderr and exits 2."""
    print(f"{prog}: {message}".replace("\n", " "), file=sys.stderr)
    sys.exit(2)


def binary():
    """The heapbench CLI to run: $HEAPBENCH_BIN (set by build/heapbench), else ROOT/build/heapbench."""
    return os.environ.get("HEAPBENCH_BIN") or os.path.join(ROOT, "build", "heapbench")


# The valgrind that `heapbench run --count-instructions` runs (runner/plan/options.c: Debian's package).
VALGRIND = "/usr/bin/valgrind"


def need_valgrind(prog, option):
    """Exits 2 with one line when VALGRIND cannot be run, before a subcommand measures anything with option."""
    if not os.access(VALGRIND, os.X_OK):
        usage_exit(prog, f"{option} needs valgrind ({VALGRIND}), which is not installed here: run 'make deps' "
                         "(or apt-get install valgrind)")


# The variables from which `heapbench run` takes its shard when --shard is not given
# (runner/plan/shardenv.h). A subcommand that runs its own matrix (ci, tune, quality, claims)
# runs all of it, even inside one task of a Slurm array or an indexed Job.
SHARD_VARS = ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "TEST_SHARD_INDEX")


def run_env(env=None):
    """A copy of env (default os.environ) without SHARD_VARS, for the runs a subcommand starts itself."""
    return {k: v for k, v in (os.environ if env is None else env).items() if k not in SHARD_VARS}


def fraction(text):
    """Parses a threshold '5%' or '0.05' into a fraction; raises ValueError on anything else."""
    text = text.strip()
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 <= value < 10:
        raise ValueError(f"threshold {text!r} out of range")
    return value


def thresholds(text, metrics):
    """Parses --threshold: '5%' (every metric) or 'wall_s=3%,maxrss_kb=1%'. Returns {metric: fraction};
    raises ValueError on a threshold of 0 (no interval lies within +-0: nothing could be SAME), a
    value that is not a fraction, or an item without a metric name."""
    if "=" not in text:
        return {m: threshold_value(text) for m in metrics}
    out = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if not name.strip():
            raise ValueError(f"{item.strip()!r} names no metric")
        out[name.strip()] = threshold_value(value)
    return out


def threshold_value(text):
    """One threshold: fraction(text), which must be above 0."""
    value = fraction(text)
    if value == 0:
        raise ValueError(f"threshold {text.strip()!r} is 0: no interval lies within +-0, so nothing could be SAME")
    return value


def split_list(text):
    """A comma-separated option value as a list of non-empty stripped names."""
    return [x.strip() for x in text.split(",") if x.strip()]
