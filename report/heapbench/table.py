"""table.py - reads the project's '|'-separated data files (allocators/registry.txt, workloads/LIST) line by line.

Always holds: '#' starts a comment, blank lines are skipped, fields are stripped; a line with
another number of fields than the file's format raises TableError naming the file, the line
and what to do (format: docs/DATA.md).
"""


class TableError(Exception):
    """A malformed registry or LIST line (the message names the file and line)."""


def read_table(path, nfields):
    """[(line number, [fields])] of a '|'-separated file whose lines have nfields fields."""
    rows = []
    with open(path) as fh:
        for number, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [f.strip() for f in line.split("|")]
            if len(fields) != nfields:
                raise TableError(f"{path}:{number}: {len(fields)} '|'-separated fields, the format has {nfields}; "
                                 "fix the line (docs/DATA.md)")
            rows.append((number, fields))
    return rows
