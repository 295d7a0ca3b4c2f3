"""schema.py - the history database's one schema (SQLite and PostgreSQL), its version and its migrations.

Always holds: VERSION is the schema this code writes and reads; MIGRATIONS[v] takes a database
from version v to v + 1 (MIGRATIONS[0] creates version 1 from nothing), so every database
reaches VERSION by the same steps; a database whose version is above VERSION is refused by
the caller (it was written by a newer heapbench). The statements are written once for both
engines: {id} is the auto-numbered key's type, {real} a double, filled by ddl().
"""
VERSION = 1

# One list of statements per step: MIGRATIONS[v] turns version v into v + 1.
MIGRATIONS = [
    [
        "CREATE TABLE hb_schema (version INTEGER NOT NULL)",
        "CREATE TABLE testbeds (name TEXT PRIMARY KEY, fields TEXT NOT NULL)",
        "CREATE TABLE runs (id {id}, run_id TEXT NOT NULL, host TEXT NOT NULL, testbed TEXT NOT NULL "
        "REFERENCES testbeds(name), label TEXT NOT NULL, ord {real} NOT NULL, added TEXT NOT NULL, "
        "git_commit TEXT, start TEXT, UNIQUE (run_id, host), UNIQUE (testbed, label))",
        "CREATE TABLE libraries (run INTEGER NOT NULL REFERENCES runs(id), allocator TEXT NOT NULL, "
        "path TEXT, version TEXT, sha256 TEXT, PRIMARY KEY (run, allocator))",
        "CREATE TABLE points (run INTEGER NOT NULL REFERENCES runs(id), cell TEXT NOT NULL, "
        "workload TEXT NOT NULL, allocator TEXT NOT NULL, metric TEXT NOT NULL, reps TEXT NOT NULL, "
        "median {real} NOT NULL, spread {real} NOT NULL, lo {real} NOT NULL, hi {real} NOT NULL, "
        "PRIMARY KEY (run, cell, metric))",
        "CREATE INDEX runs_testbed ON runs (testbed, ord, id)",
        "CREATE INDEX points_cell ON points (cell, metric)",
        "INSERT INTO hb_schema (version) VALUES (1)",
    ],
]

# Column types that differ between the engines.
TYPES = {"sqlite": {"id": "INTEGER PRIMARY KEY", "real": "REAL"},
         "postgresql": {"id": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"}}


def ddl(step, engine):
    """The statements of MIGRATIONS[step] for engine ('sqlite' or 'postgresql')."""
    return [s.format(**TYPES[engine]) for s in MIGRATIONS[step]]


assert len(MIGRATIONS) == VERSION, "one migration per schema version"
