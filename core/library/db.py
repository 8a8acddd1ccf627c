"""Open the library's SQLite database: WAL, foreign keys, and migrations applied on open.

The driver is picked once, at start-up (``choose_driver``): where the ``sqlean`` driver (a drop-in
``sqlite3`` that can load extensions) and ``sqlite-vec`` are installed (desktops), the database is opened
through it with sqlite-vec loaded; otherwise through apsw (phones: it bundles a SQLite with FTS5, which
Android's lacks), else this Python's own ``sqlite3`` if it has FTS5 and is 3.43 or later (the full-text tables
are index-only, see migration 9); vector search then falls back to numpy.
All of them read and write the same file. ``QUIRE_SQLITE=sqlean|apsw|stdlib`` forces one.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

from core.errors import LibraryError
from core.library.migrations import COMPACT_AFTER, MIGRATIONS

BACKEND_ENV = "QUIRE_SQLITE"  # sqlean, apsw or stdlib: force one (tests run the suite under each)


def _extension_driver() -> ModuleType | None:
    try:
        driver = importlib.import_module("sqlean")
        importlib.import_module("sqlite_vec")
    except ImportError:
        return None
    return driver


def _apsw_driver() -> ModuleType | None:
    try:
        return importlib.import_module("core.library.apsw_driver")
    except ImportError:  # apsw is not installed
        return None


def _has_fts5(driver: ModuleType) -> bool:
    """Whether this SQLite has FTS5 with deletes from an index-only table (3.43 and later), as the library needs."""
    try:
        probe = driver.connect(":memory:")
        try:
            probe.execute("CREATE VIRTUAL TABLE temp.probe USING fts5(body, content = '', contentless_delete = 1)")
        finally:
            probe.close()
    except driver.DatabaseError:
        return False
    return True


def choose_driver(forced: str | None = None) -> tuple[str, ModuleType]:
    """The SQLite driver for this device: sqlean (desktops, loads sqlite-vec) → apsw (phones) → the standard
    library's sqlite3 when it has FTS5; LibraryError when none can hold a library here."""
    forced = (forced if forced is not None else os.environ.get(BACKEND_ENV, "")).strip().lower()
    candidates: dict[str, Callable[[], ModuleType | None]] = {
        "sqlean": _extension_driver,
        "apsw": _apsw_driver,
        "stdlib": lambda: sqlite3,
    }
    if forced and forced not in candidates:
        raise LibraryError(f"{BACKEND_ENV}={forced!r} is not a SQLite backend: use sqlean, apsw or stdlib")
    for name in [forced] if forced else list(candidates):
        driver = candidates[name]()
        if driver is not None and (name != "stdlib" or _has_fts5(driver)):
            return name, driver
    raise LibraryError(
        "this device's SQLite has no full-text search (FTS5), or is older than 3.43, and apsw is not installed, "
        "so the library cannot be opened: install apsw (pip install apsw)"
        + (f", or unset {BACKEND_ENV}" if forced else "")
    )


_BACKEND, _DRIVER = choose_driver()
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.DatabaseError,) + (
    (_DRIVER.DatabaseError,) if _DRIVER is not sqlite3 else ()
)


def _load_sqlite_vec(conn: sqlite3.Connection) -> bool:
    import sqlite_vec

    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except (AttributeError, *DATABASE_ERRORS):  # type: ignore[misc]  # mypy cannot unpack a tuple here
        return False
    return True


def has_vector_extension(conn: sqlite3.Connection) -> bool:
    """True when sqlite-vec is loaded in this connection."""
    try:
        conn.execute("SELECT vec_version()")
    except DATABASE_ERRORS:
        return False
    return True


Wall = Callable[[], float]  # seconds since the epoch, as time.time gives them
WALL_CLOCK = "wall_clock"  # the SQL function each connection answers with its library's wall clock
STATEMENTS_CACHED = 4096


def connect(path: Path | str, *, vector_extension: bool = True, wall: Wall = time.time) -> sqlite3.Connection:
    """A connection to the database at ``path`` (created and migrated as needed).

    ``vector_extension=False`` leaves sqlite-vec unloaded, as on a phone (vector search then runs on numpy).
    ``wall`` is the clock the journal stamps the reader's edits by, as SQL's ``wall_clock()`` (the system's; a
    test gives two devices one clock it moves itself).
    """
    driver = _DRIVER
    try:
        # One connection serves the UI and the worker threads. Python's statement cache is a bounded LRU whose
        # eviction raced between two threads (a KeyError naming the SQL, seen when an answer read the contents while
        # a PDF was prepared behind it). Quire's statements, those with lists of places of varying length included,
        # number in the hundreds: with room for thousands, nothing is evicted in a session.
        conn: sqlite3.Connection = driver.connect(
            str(path), check_same_thread=False, isolation_level=None, cached_statements=STATEMENTS_CACHED
        )
        conn.row_factory = driver.Row
        conn.create_function(WALL_CLOCK, 0, wall)
        if _BACKEND == "sqlean" and vector_extension:
            _load_sqlite_vec(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA busy_timeout = 5000")
        migrate(conn)
    except DATABASE_ERRORS as error:
        raise LibraryError(f"cannot open the library database at {path}: {error}") from error
    return conn


def scratch() -> sqlite3.Connection:
    """A private in-memory database on the library's driver (the same SQLite: its FTS5 and tokenizers), without
    the library's schema, in autocommit."""
    conn: sqlite3.Connection = _DRIVER.connect(":memory:", check_same_thread=False, isolation_level=None)
    return conn


BUSY_MESSAGE = "the library is busy: another Quire (the app or a quire command) is writing to it. Try again in a moment"


@contextmanager
def busy_is_library_error() -> Iterator[None]:
    """Turn SQLite's "database is locked" (another process kept writing past the busy timeout) into LibraryError."""
    try:
        yield
    except DATABASE_ERRORS as error:
        text = str(error).lower()
        if "locked" in text or "busy" in text:
            raise LibraryError(BUSY_MESSAGE) from error
        raise


def schema_version(conn: sqlite3.Connection) -> int:
    """The highest migration applied (0 for a new database)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return row[0] or 0


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every pending migration, each in its own transaction with its record; return the version.

    After one that frees much of the file (``COMPACT_AFTER``), the file is compacted, unless another process holds
    it then (the space is then only reused, not returned)."""
    current = schema_version(conn)
    known = MIGRATIONS[-1][0]
    started, compact = current, False
    if current > known:
        raise LibraryError(
            f"this library was written by a newer version of Quire (schema {current}; this one knows up to "
            f"{known}): update Quire to open it. Nothing was changed"
        )
    for version, name, apply in MIGRATIONS:
        if version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            apply(conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, now()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        current = version
        compact = compact or version in COMPACT_AFTER
    if compact and started > 0:  # a new file has nothing to give back
        # the freed pages go back to the disk; when another process holds the file, they are reused by later imports
        with contextlib.suppress(*DATABASE_ERRORS):
            conn.execute("VACUUM")
    return current


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The id of the row an INSERT just made."""
    if cursor.lastrowid is None:
        raise LibraryError("the library database did not report the new row's id")
    return cursor.lastrowid


def now() -> str:
    """The current UTC time as ISO 8601 text."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def book_exists(conn: sqlite3.Connection, book_id: int) -> bool:
    """Whether the book is still in the library (asked inside a transaction that is about to write for it)."""
    return conn.execute("SELECT 1 FROM books WHERE id = ?", (book_id,)).fetchone() is not None


def unedited_hashes(conn: sqlite3.Connection) -> set[str]:
    """The content hashes of books whose title and authors are still their file's (never edited here)."""
    return {row[0] for row in conn.execute("SELECT content_hash FROM books WHERE edited_at IS NULL")}


def book_rows(conn: sqlite3.Connection, table: str, book_id: int) -> tuple[int, int] | None:
    """The first and last row id of a book's rows in ``table`` ("segments", "chunks"); None when it has none.

    A book's rows are written together, so their ids are one run: a full-text search limited to that rowid range
    reads one book's matches, not the whole library's (the FTS tables' book_id is not indexed)."""
    first, last = conn.execute(f"SELECT min(id), max(id) FROM {table} WHERE book_id = ?", (book_id,)).fetchone()
    return None if first is None else (first, last)
