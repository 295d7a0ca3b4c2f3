"""commit.py - the commit under test of a history point: `--commit REV` checked and resolved, or read from a label that names one.

A point's label is any text (a version, a date); its commit, when known, is the commit of the
thing under test the run measured (not heapbench's own, which is meta.json's git_commit). It is
given with `history add --commit REV` or `ci --history --add --commit REV`, or recorded by the run
itself (`heapbench run|exec --commit REV`: meta.json's tested_commit, taken when no --commit is
given); without either, a label
given explicitly that names a commit (7 to 40 hex digits, or `git describe`'s TAG-N-gHEX) gives
it; otherwise (a label such as v1.2, or the default label, which is heapbench's own commit) the
point has none.
Always holds: a stored commit is lower-case hex of 7 to 40 digits; commit_arg resolves a
revision name (HEAD, a tag, a branch) in the git repository of the working directory to its full
hash, and refuses anything else with one line saying what to give; commit_of_label is pure.
"""
import argparse
import re
import subprocess

_HEX = re.compile(r"[0-9a-f]{7,40}")
_DESCRIBE = re.compile(r".+-[0-9]+-g([0-9a-f]{7,40})(-dirty)?")


def commit_of_label(label):
    """The commit a label names (a hash, or git describe's TAG-N-gHEX: its HEX), else None."""
    text = (label or "").strip().lower()
    if _HEX.fullmatch(text):
        return text
    found = _DESCRIBE.fullmatch(text)
    return found.group(1) if found else None


def _rev_parse(text):
    """The full hash of revision text in the working directory's git repository, or None."""
    try:
        done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", text + "^{commit}"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and _HEX.fullmatch(out) else None


def commit_arg(text):
    """--commit's value (argparse type): a hash (7 to 40 hex digits, kept as given, lower-cased) or a
    revision of the git repository here (resolved to its full hash)."""
    word = text.strip()
    if _HEX.fullmatch(word.lower()):
        return word.lower()
    if word and not word.startswith("-"):
        resolved = _rev_parse(word)
        if resolved:
            return resolved
    raise argparse.ArgumentTypeError(f"{text!r} is not a commit hash (7 to 40 hex digits) nor a revision of a git "
                                     "repository here; give the hash of the commit under test (git rev-parse REV)")


def point_commit(commit, label, label_given):
    """The commit to store with a point: commit (from --commit) when given, else the commit an
    explicitly given label names, else None."""
    if commit:
        return commit
    return commit_of_label(label) if label_given else None
