"""hbcli.py - the command-line conventions shared by compare.py, ci.py and merge.py.

Always holds: a usage error prints exactly one line on stderr ("heapbench SUB: what was wrong;
what to do") and exits 2; report/hbresults.py (the shared reader) is importable after this
module is imported.
"""
import argparse
import os
import sys

ROOT = os.environ.get("HEAPBENCH_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "report"))


class HbArgParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2 (the heapbench convention)."""

    def error(self, message):
        """Prints one line naming the subcommand, the problem and where help is, then exits 2."""
        hbcli_usage_exit(self.prog, f"{message}; see '{self.prog} --help'")


def hbcli_usage_exit(prog, message):
    """Prints 'PROG: MESSAGE' as one line on stderr and exits 2."""
    print(f"{prog}: {message}".replace("\n", " "), file=sys.stderr)
    sys.exit(2)


def hbcli_fraction(text):
    """Parses a threshold '5%' or '0.05' into a fraction; raises ValueError on anything else."""
    text = text.strip()
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 <= value < 10:
        raise ValueError(f"threshold {text!r} out of range")
    return value


def hbcli_thresholds(text, metrics):
    """Parses --threshold: '5%' (every metric) or 'wall_s=3%,maxrss_kb=1%'. Returns {metric: fraction}."""
    if "=" not in text:
        value = hbcli_fraction(text)
        return {m: value for m in metrics}
    out = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        out[name.strip()] = hbcli_fraction(value)
    return out


def hbcli_list(text):
    """A comma-separated option value as a list of non-empty stripped names."""
    return [x.strip() for x in text.split(",") if x.strip()]
