"""readers.py - the one reader of the replayer's explanation files (hbreplay --explain=OUT, replay/replayer/explain_snap.h; format:
docs/DATA.md, "Explanations") and of the call-site table (`hbtrace --sites`).

Always holds: a file is read whole or refused with ExplainError naming the file and the line; the parts come back in
bytes, in the order PARTS; "unmeasured" lines keep their reason; sites are {id: Site}.
"""
from dataclasses import dataclass, field

PARTS = ("live", "rounding", "gaps", "free", "lazyfree", "mapped", "runtime", "files")
PART_TITLES = {
    "live": "live requested bytes",
    "rounding": "rounding (usable - requested)",
    "gaps": "gaps on pages with live objects (headers, free chunks)",
    "free": "free pages the allocator holds resident",
    "lazyfree": "LazyFree (MADV_FREE'd, still counted)",
    "mapped": "the program's own mappings",
    "runtime": "replayer's own memory (tables, stacks, static data)",
    "files": "binaries and libraries (file pages)",
}


class ExplainError(Exception):
    """A file that cannot be read; the message is one line saying which and what to do."""


@dataclass
class SiteFigures:
    """One call site's figures at the moment."""
    live: int = 0
    objects: int = 0
    pinned: int = 0
    pinning_objects: int = 0
    pinning_live: int = 0


@dataclass
class Explanation:
    """One allocator's explanation."""
    moment: str = ""
    stop: int = 0
    events: int = 0
    sites_note: str = ""
    parts: dict = field(default_factory=dict)
    totals: dict = field(default_factory=dict)
    free: dict = field(default_factory=dict)
    unmeasured: dict = field(default_factory=dict)
    metadata: object = None  # (source, bytes) or None
    sites: dict = field(default_factory=dict)

    def unexplained(self):
        """RSS less the sum of the parts (negative: the parts counted more than RSS)."""
        return self.totals.get("rss", 0) - sum(self.parts.values())


def _int(path, n, text):
    try:
        return int(text)
    except ValueError:
        raise ExplainError(f"{path}: line {n}: '{text}' is not a number; the replay wrote a damaged file, run explain again") from None


def read_explanation(path):
    """The Explanation in path; raises ExplainError."""
    ex = Explanation()
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as err:
        raise ExplainError(f"cannot read {path}: {err.strerror}; the replay did not write its explanation") from None
    for n, line in enumerate(lines, 1):
        f = line.split("\t")
        if f[0] == "moment" and len(f) == 4:
            ex.moment, ex.stop, ex.events = f[1], _int(path, n, f[2]), _int(path, n, f[3])
        elif f[0] == "sites" and len(f) == 2:
            ex.sites_note = f[1]
        elif f[0] == "part" and len(f) == 3 and f[1] in PARTS:
            ex.parts[f[1]] = _int(path, n, f[2])
        elif f[0] == "total" and len(f) == 3:
            ex.totals[f[1]] = _int(path, n, f[2])
        elif f[0] == "free" and len(f) == 3:
            ex.free[f[1]] = _int(path, n, f[2])
        elif f[0] == "unmeasured" and len(f) == 3:
            ex.unmeasured[f[1]] = f[2]
        elif f[0] == "metadata" and len(f) == 3:
            ex.metadata = (f[1], _int(path, n, f[2]))
        elif f[0] == "site" and len(f) == 7:
            v = [_int(path, n, x) for x in f[1:]]
            ex.sites[v[0]] = SiteFigures(*v[1:])
        else:
            raise ExplainError(f"{path}: line {n} is not an explanation line ('{line[:60]}'); the replay and this "
                               "explain come from different builds: run make")
    missing = [p for p in PARTS if p not in ex.parts]
    if missing or "rss" not in ex.totals:
        raise ExplainError(f"{path}: no {', '.join(missing) or 'rss'} line: the replay stopped before writing it all")
    return ex


def read_site_table(text):
    """{id: [frame, ...]} (innermost first) of `hbtrace --sites` output."""
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) == 3 and f[0] == "site" and f[1].isdigit():
            out[int(f[1])] = f[2].split(";")
    return out
