"""datamd.py - the header of each results file as docs/DATA.md defines it: the one definition the tests read.

Always holds: a file's columns are the first indented block under its "### NAME" heading in
docs/DATA.md (the contract between the runner and the readers), its lines joined, without the
optional tail "[,metric_<NAME>...]"; a file that DATA.md does not define is a LookupError naming it.
From a shell: PYTHONPATH=report/heapbench/tests /usr/bin/python3 -m datamd runs.csv (prints the
header line).
"""
import os
import re
import sys

DATA_MD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "DATA.md")


def columns(name, path=DATA_MD):
    """The columns of the results file name (e.g. "runs.csv") as docs/DATA.md lists them."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    heading = re.compile(r"^### " + re.escape(name) + r"( |$)")
    start = next((i for i, line in enumerate(lines) if heading.match(line)), None)
    if start is None:
        raise LookupError(f"{path} has no '### {name}' section")
    block = []
    for line in lines[start + 1:]:
        if line.startswith("    "):
            block.append(line.strip())
        elif block or line.startswith("#"):
            break
    if not block:
        raise LookupError(f"{path}: the '### {name}' section lists no columns")
    header = "".join(block).split("[", 1)[0]
    return header.split(",")


if __name__ == "__main__":
    try:
        print(",".join(columns(sys.argv[1])))
    except (IndexError, LookupError, OSError) as err:
        sys.exit(f"datamd: {err or 'give a results file name, e.g. runs.csv'}")
