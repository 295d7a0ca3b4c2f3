"""db.py - a connection to the history database: SQLite (Python's sqlite3) or PostgreSQL (psycopg2), one interface.

Always holds: every database error, at connect or later, becomes HistoryError with one line
saying what was wrong and what to do (the CLI prints it and exits 2), never a traceback;
SQL is written once with '?' placeholders and translated for psycopg2; a write happens only
inside write() (one transaction, rolled back whole on any error or interrupt): under SQLite in
WAL mode with a busy timeout and BEGIN IMMEDIATE, under PostgreSQL under a transaction-scoped
advisory lock, so concurrent writers queue instead of interleaving; the schema is created or
migrated to schema.VERSION in such a transaction, and a newer schema is refused. A read-only
Connection (the reading commands) never writes and never creates: SQLite opens the file with
mode=ro (immutable on a read-only file system, where WAL's shared memory cannot be made), a
missing file is refused, and the schema is only checked. Each SQLite failure gets its own
message (full disk, read-only, a directory, locked, I/O error); only a file SQLite finds
malformed or not a database is called damaged.
"""
import contextlib
import os
import re
import sqlite3
import urllib.parse

from heapbench import layout
from heapbench.history import schema
from heapbench.history import secret

BUSY_TIMEOUT_MS = 60000
LOCK_KEY = 260026  # the advisory lock every PostgreSQL writer of a history takes


class HistoryError(Exception):
    """A history that cannot be opened, read or written (the message says what to do)."""


def default_url():
    """$HEAPBENCH_HISTORY, else history.sqlite in the results location."""
    return os.environ.get("HEAPBENCH_HISTORY") or os.path.join(layout.results_dir(), "history.sqlite")


def is_postgresql(url):
    """True for a postgresql:// (or postgres://) URL."""
    return url.startswith(("postgresql://", "postgres://"))


_KEY_VALUE = re.compile(r"(^|\s)(host|hostaddr|dbname|user|password|passfile|port|sslmode)\s*=")


def check_location(url):
    """HistoryError when url is libpq's key=value connection string ('host=... dbname=...'), which
    would otherwise name an SQLite file (and write its password into a file name)."""
    if not is_postgresql(url) and "://" not in url and _KEY_VALUE.search(url):
        raise HistoryError(secret.mask(url, f"history {url}: this is libpq's key=value form, not a location "
                                            "heapbench reads; give a URL: postgresql://USER@HOST/DB?OPTION=VALUE "
                                            "(the password from PGPASSWORD or ~/.pgpass), or an SQLite file"))


def _sqlite_path(url):
    """The file of a sqlite:///PATH URL or a plain path."""
    return url[len("sqlite://"):] if url.startswith("sqlite://") else url


class Connection:
    """One open history database: engine ('sqlite' or 'postgresql'), where (for messages)."""

    def __init__(self, url, readonly=False):
        self.url, self.where = url, secret.mask(url)
        self.readonly = readonly
        check_location(url)
        try:
            if is_postgresql(url):
                self._open_postgresql(url)
            elif readonly:
                self._open_sqlite_readonly(_sqlite_path(url))
            else:
                self._open_sqlite(_sqlite_path(url))
            self._check_schema() if readonly else self._ensure_schema()
        except HistoryError:
            raise
        except Exception as err:  # the driver's errors: one line, never a traceback
            raise self.error(err) from None

    def _open_sqlite(self, path):
        """Opens (creates) an SQLite file in WAL mode with a busy timeout, autocommit (write() begins)."""
        self.engine = "sqlite"
        self.where = secret.mask(path)
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise HistoryError(secret.mask(path, f"{path}: directory {parent} does not exist; create it or give --db "
                                                 "another path (a PostgreSQL history is a postgresql:// URL)"))
        _not_a_directory(path)
        if _on_readonly_fs(path if os.path.exists(path) else parent):
            raise HistoryError(f"history {self.where}: {_sqlite_cause('read-only', self.where)}")
        self.conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA foreign_keys=ON")

    def _open_sqlite_readonly(self, path):
        """Opens an existing SQLite file for reading only (immutable on a read-only file system)."""
        self.engine = "sqlite"
        self.where = path
        if not os.path.exists(path):
            raise HistoryError(f"no history at {path} (nothing was created); give the right --db, or seed it with "
                               f"'heapbench history add --db {path} DIR' or 'heapbench ci --history {path} "
                               "--update-baseline'")
        _not_a_directory(path)
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
        try:
            self.conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            if not _on_readonly_fs(path):
                raise
            # WAL needs a -shm file beside the database; on a read-only file system nothing can
            # change it, so it is read as immutable (a -wal left with pages would then be unread).
            if os.path.exists(path + "-wal") and os.path.getsize(path + "-wal") > 0:
                raise HistoryError(f"history {path}: on a read-only file system with an unfinished write-ahead "
                                   f"log ({path}-wal); open it once where it is writable") from None
            self.conn = sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)
        self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    def _open_postgresql(self, url):
        """Connects with psycopg2 (transactions: psycopg2 begins one on the first statement)."""
        self.engine = "postgresql"
        try:
            import psycopg2
        except ImportError:
            raise HistoryError("a postgresql:// history needs psycopg2; install python3-psycopg2 (make deps)") from None
        self.conn = psycopg2.connect(url, connect_timeout=10)

    def error(self, err):
        """The HistoryError of a driver error: where, what, and what to do."""
        text = " ".join(str(err).split()) or type(err).__name__
        if getattr(self, "engine", None) == "sqlite":
            return HistoryError(f"history {self.where}: {_sqlite_cause(text, self.where)}")
        else:
            hint = "check the URL, that the server runs and accepts you (--db or HEAPBENCH_HISTORY)"
        return HistoryError(secret.mask(self.url, f"history {self.where}: {text}; {hint}"))

    def _sql(self, sql):
        """sql with '?' placeholders for this engine."""
        return sql.replace("?", "%s") if self.engine == "postgresql" else sql

    def query(self, sql, args=()):
        """All rows of a read (as tuples)."""
        try:
            cur = self.conn.cursor()
            cur.execute(self._sql(sql), args)
            rows = cur.fetchall()
            if self.engine == "postgresql":
                self.conn.rollback()  # end the read's implicit transaction
            return rows
        except HistoryError:
            raise
        except Exception as err:
            raise self.error(err) from None

    @contextlib.contextmanager
    def write(self):
        """One write transaction, serialised with every other writer; yields a Cursor.
        Commits at the end, rolls back on any exception (KeyboardInterrupt included)."""
        try:
            cur = self.conn.cursor()
            if self.engine == "sqlite":
                cur.execute("BEGIN IMMEDIATE")
            else:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        except Exception as err:
            raise self.error(err) from None
        try:
            yield Cursor(self, cur)
            self.conn.commit() if self.engine == "postgresql" else cur.execute("COMMIT")
        except BaseException as err:
            self._rollback()
            if isinstance(err, (HistoryError, KeyboardInterrupt, SystemExit)):
                raise
            if isinstance(err, Exception) and type(err).__module__.split(".")[0] in ("sqlite3", "psycopg2"):
                raise self.error(err) from None
            raise

    def _rollback(self):
        """Rolls the open transaction back (a failure to do so leaves it to the server/file lock)."""
        try:
            if self.engine == "sqlite":
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            else:
                self.conn.rollback()
        except Exception:
            pass

    def version(self, cur):
        """The schema version of the database (0 when it has no history tables yet)."""
        if self.engine == "sqlite":
            cur.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'hb_schema'")
        else:
            cur.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'hb_schema' "
                        "AND table_schema = current_schema()")
        if not cur.fetchone()[0]:
            return 0
        cur.execute("SELECT max(version) FROM hb_schema")
        return cur.fetchone()[0] or 0

    def _ensure_schema(self):
        """Creates or migrates the schema to schema.VERSION; refuses a newer one. Under SQLite the
        foreign keys are off while it runs (a migration rebuilds a referenced table, which SQLite
        allows only so) and checked whole before the commit."""
        if self.engine == "sqlite":
            self.conn.execute("PRAGMA foreign_keys=OFF")  # only outside a transaction
        try:
            with self.write() as cur:
                found = self.version(cur)
                if found > schema.VERSION:
                    raise HistoryError(f"history {self.where}: schema {found} was written by a newer heapbench "
                                       f"(this one reads schema {schema.VERSION}); use that heapbench or another --db")
                for step in range(found, schema.VERSION):
                    for statement in schema.ddl(step, self.engine):
                        cur.execute(statement)
                    if step:
                        cur.execute("UPDATE hb_schema SET version = ?", (step + 1,))
                if self.engine == "sqlite" and found < schema.VERSION and cur.execute("PRAGMA foreign_key_check").fetchone():
                    raise HistoryError(f"history {self.where}: its rows do not match each other after the migration "
                                       f"to schema {schema.VERSION}; nothing was changed: keep it and use another --db")
        finally:
            if self.engine == "sqlite":
                self.conn.execute("PRAGMA foreign_keys=ON")

    def _check_schema(self):
        """A read-only connection's schema check: a history of schema.VERSION, else HistoryError."""
        if self.engine == "sqlite":
            tables = self.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'hb_schema'")
        else:
            tables = self.query("SELECT count(*) FROM information_schema.tables WHERE table_name = 'hb_schema' "
                                "AND table_schema = current_schema()")
        found = self.query("SELECT max(version) FROM hb_schema")[0][0] or 0 if tables[0][0] else 0
        if found == 0:
            raise HistoryError(f"history {self.where}: holds no heapbench history (no hb_schema table); "
                               "give --db the history's file, or add runs to it with 'heapbench history add'")
        if found > schema.VERSION:
            raise HistoryError(f"history {self.where}: schema {found} was written by a newer heapbench "
                               f"(this one reads schema {schema.VERSION}); use that heapbench or another --db")
        if found < schema.VERSION:
            raise HistoryError(f"history {self.where}: schema {found} is older than this heapbench's "
                               f"{schema.VERSION}; a 'heapbench history add' with this heapbench migrates it")

    def close(self):
        """Closes the connection."""
        with contextlib.suppress(Exception):
            self.conn.close()


class Cursor:
    """A cursor of a write transaction taking '?' SQL."""

    def __init__(self, connection, cur):
        self.connection, self.cur = connection, cur

    def execute(self, sql, args=()):
        self.cur.execute(self.connection._sql(sql), args)
        return self

    def executemany(self, sql, rows):
        if self.connection.engine == "postgresql":
            from psycopg2.extras import execute_values
            head, _, tail = sql.partition("VALUES")
            execute_values(self.cur, head + "VALUES %s" + tail.split(")", 1)[1], rows, page_size=1000)
        else:
            self.cur.executemany(sql, rows)
        return self

    def fetchone(self):
        return self.cur.fetchone()

    def fetchall(self):
        return self.cur.fetchall()


def _not_a_directory(path):
    """HistoryError when path is a directory (--db names the history's file)."""
    if os.path.isdir(path):
        raise HistoryError(f"--db {path} is a directory; give the history's file (e.g. {path}/history.sqlite)")


def _on_readonly_fs(path):
    """True when path's file system is mounted read-only, or the file cannot be written."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY) or not os.access(path, os.W_OK)
    except OSError:
        return False


FULL_BELOW = 64 * 1024  # a file system with less free space than this is full to SQLite

# SQLite's messages (sqlite3 carries no error code before Python 3.11) -> what happened and what
# to do; anything else is quoted as it is, with no guess.
SQLITE_CAUSES = (
    (("database or disk is full", "disk is full"),
     "the disk holding it is full; nothing was written: free some space and run the command again"),
    (("readonly database", "read-only"),
     "it (or its directory) cannot be written (a read-only file, directory or mount); the reading commands (testbeds, changes, "
     "report, export, ci --history without --add) read it as it is, a write needs a writable copy"),
    (("database is locked",),
     f"another process held its lock for over {BUSY_TIMEOUT_MS // 1000} s; wait for it to end and run again"),
    (("disk i/o error",), "the disk reported an I/O error; check the disk (dmesg) before using the history"),
    (("unable to open database file",),
     "it cannot be opened (no permission to read it or to create files beside it?); check its permissions"),
    (("file is not a database", "malformed", "file is encrypted"),
     "it is not a heapbench history or it is damaged (SQLite cannot read it); give --db another file "
     "or move it away"),
)


def _free_bytes(path):
    """The bytes free for an unprivileged writer on path's file system (None when unknown)."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
        return st.f_bavail * st.f_frsize
    except OSError:
        return None


def _sqlite_cause(text, path):
    """SQLite's message text with what it means and what to do (SQLITE_CAUSES). A write SQLite
    could not make on a disk with (almost) no free block (WAL reports ENOSPC as an I/O error) is a
    full disk."""
    low = text.lower()
    free = _free_bytes(path) if "i/o error" in low else None
    if free is not None and free < FULL_BELOW:
        low = "disk is full"
        text += f" ({free} bytes free)"
    for needles, cause in SQLITE_CAUSES:
        if any(n in low for n in needles):
            return f"{text}: {cause}"
    return f"{text}; nothing was written ('sqlite3 {path} \"PRAGMA integrity_check\"' tells whether the file is whole)"

