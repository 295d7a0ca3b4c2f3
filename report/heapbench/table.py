"""table.py - reads the project's '|'-separated data files (allocators/registry.txt, workloads/LIST, LAYOUT) line by line.

Always holds: the rules are the runner's (hb_table_next and hb_strv_split, runner/base/util.c),
which report/heapbench/tests/test_twins.py checks on a shared corpus: lines end at '\\n' only;
'#' starts a comment, blank lines are skipped, fields are stripped of spaces, tabs, '\\r' and
'\\n' (no other character); a line with another number of fields than the file's format raises
TableError naming the file, the line and what to do (format: docs/DATA.md).
"""

BLANKS = " \t\r\n"  # what the runner's hb_trim_ndup strips


class TableError(Exception):
    """A malformed registry, LIST or LAYOUT line (the message names the file and line)."""


def split(text, seps):
    """The pieces of text between any of the characters seps, stripped, empty ones left out (hb_strv_split)."""
    pieces = [text]
    for sep in seps:
        pieces = [p for piece in pieces for p in piece.split(sep)]
    return [p.strip(BLANKS) for p in pieces if p.strip(BLANKS)]


def read_table(path, nfields):
    """[(line number, [fields])] of a '|'-separated file whose lines have nfields fields."""
    rows = []
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        text = fh.read()
    for number, line in enumerate(text.split("\n"), 1):
        line = line.split("#", 1)[0].strip(BLANKS)
        if not line:
            continue
        fields = [f.strip(BLANKS) for f in line.split("|")]
        if len(fields) != nfields:
            raise TableError(f"{path}:{number}: {len(fields)} '|'-separated fields, the format has {nfields}; "
                             "fix the line (docs/DATA.md)")
        rows.append((number, fields))
    return rows


def refuse(path, number, what):
    """Raises TableError for line number of path: what is wrong, and where the format is."""
    raise TableError(f"{path}:{number}: {what}; fix the line (docs/DATA.md)")
