"""schema.py - the history database's one schema (SQLite and PostgreSQL), its version and its migrations.

Always holds: VERSION is the schema this code writes and reads; MIGRATIONS[v] takes a database
from version v to v + 1 (MIGRATIONS[0] creates version 1 from nothing), so every database
reaches VERSION by the same steps; a database whose version is above VERSION is refused by
the caller (it was written by a newer heapbench). The statements are written once for both
engines ({id} is the auto-numbered key's type, {real} a double, filled by ddl()), except where
the engines' ALTER TABLE differ: such a step is a dict {engine: statements}. A run is keyed by
(run id, host, content): content is the sha256 of its runs.csv ('' for a run added before
version 2, which is then known by its start time). A run's tested_commit (version 3) is the
commit of the thing under test (commit.py); runs added before version 3 have none (NULL).
"""
VERSION = 3

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
    {   # 2: runs keyed by (run id, host, content), so that a new run in a reused directory name is its own run
        "sqlite": [  # SQLite cannot drop a constraint: the table is rebuilt (foreign keys off: db.py)
            "CREATE TABLE runs_v2 (id {id}, run_id TEXT NOT NULL, host TEXT NOT NULL, testbed TEXT NOT NULL "
            "REFERENCES testbeds(name), label TEXT NOT NULL, ord {real} NOT NULL, added TEXT NOT NULL, "
            "git_commit TEXT, start TEXT, content TEXT NOT NULL DEFAULT '', UNIQUE (run_id, host, content), "
            "UNIQUE (testbed, label))",
            "INSERT INTO runs_v2 (id, run_id, host, testbed, label, ord, added, git_commit, start) "
            "SELECT id, run_id, host, testbed, label, ord, added, git_commit, start FROM runs",
            "DROP TABLE runs",
            "ALTER TABLE runs_v2 RENAME TO runs",
            "CREATE INDEX runs_testbed ON runs (testbed, ord, id)",
        ],
        "postgresql": [
            "ALTER TABLE runs ADD COLUMN content TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE runs DROP CONSTRAINT runs_run_id_host_key",
            "ALTER TABLE runs ADD CONSTRAINT runs_key UNIQUE (run_id, host, content)",
        ],
    },
    [   # 3: the commit under test of each run (NULL: not known, as for every run added before)
        "ALTER TABLE runs ADD COLUMN tested_commit TEXT",
    ],
]

# Column types that differ between the engines.
TYPES = {"sqlite": {"id": "INTEGER PRIMARY KEY", "real": "REAL"},
         "postgresql": {"id": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"}}


def ddl(step, engine):
    """The statements of MIGRATIONS[step] for engine ('sqlite' or 'postgresql')."""
    step = MIGRATIONS[step]
    return [s.format(**TYPES[engine]) for s in (step[engine] if isinstance(step, dict) else step)]


assert len(MIGRATIONS) == VERSION, "one migration per schema version"
