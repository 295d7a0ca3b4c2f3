"""repofile.py - the reader of .heapbench.toml, the per-repository settings of compare and ci (per-metric thresholds).

Always holds: the file is the first .heapbench.toml found from the current directory upwards,
stopping at the directory that holds .git (the repository's top) or at the filesystem's root; no
file is no settings. It is read with Python's tomllib; the only section is [thresholds], one
metric per key (a runs.csv column, a latency quantile such as p99, or p99:<phase>:<op>), each value
a percentage string ("3%") or a fraction (0.03) above 0, read by cli.threshold_value like
--threshold. Anything else (bad TOML, another section or key type, a threshold of 0, NaN or below 0)
raises RepoFileError naming the file and what to fix: exit 2 for the caller.

    [thresholds]
    wall_s = "3%"
    maxrss_kb = "2%"
"""
import os
import tomllib

from heapbench import cli

NAME = ".heapbench.toml"
SECTIONS = ("thresholds",)


class RepoFileError(Exception):
    """A .heapbench.toml that cannot be used (message names the file and what to fix)."""


def find(start=None):
    """The path of the .heapbench.toml that applies from start (default the current directory), or None."""
    here = os.path.abspath(start or os.getcwd())
    while True:
        path = os.path.join(here, NAME)
        if os.path.isfile(path):
            return path
        parent = os.path.dirname(here)
        if os.path.exists(os.path.join(here, ".git")) or parent == here:
            return None
        here = parent


def _value(path, metric, value):
    """One threshold of the file as a fraction (RepoFileError on anything else)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise RepoFileError(f"{path}: [thresholds] {metric} = {value!r} is not a threshold; write e.g. {metric} = \"3%\"")
    try:
        return cli.threshold_value(str(value))
    except ValueError as err:
        raise RepoFileError(f"{path}: [thresholds] {metric}: {err}; write e.g. {metric} = \"3%\"") from None


def thresholds(path):
    """{metric: fraction} of the file's [thresholds] ({} for None)."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as err:
        raise RepoFileError(f"{path}: cannot read it ({err.strerror}); fix its permissions or remove it") from None
    except tomllib.TOMLDecodeError as err:
        raise RepoFileError(f"{path}: not valid TOML ({err}); fix it, e.g. [thresholds] wall_s = \"3%\"") from None
    unknown = [k for k in data if k not in SECTIONS]
    if unknown:
        raise RepoFileError(f"{path}: unknown section or key {', '.join(map(repr, unknown))}; "
                            f"the file holds only {', '.join(f'[{s}]' for s in SECTIONS)}")
    table = data.get("thresholds", {})
    if not isinstance(table, dict):
        raise RepoFileError(f"{path}: thresholds must be a table: [thresholds] then one metric = \"3%\" per line")
    return {metric: _value(path, metric, value) for metric, value in table.items()}
