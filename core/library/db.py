"""Open the library's SQLite database: WAL, foreign keys, and migrations applied on open.

Where the ``sqlean`` driver (a drop-in ``sqlite3`` that can load extensions) and ``sqlite-vec`` are
installed, the database is opened through it with sqlite-vec loaded; otherwise (this Python's own
``sqlite3`` cannot load extensions, nor can phones) through ``sqlite3``, and vector search falls back
to numpy. Both read and write the same file.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

from core.errors import LibraryError
from core.library.migrations import MIGRATIONS


def _extension_driver() -> ModuleType | None:
    try:
        driver = importlib.import_module("sqlean")
        importlib.import_module("sqlite_vec")
    except ImportError:
        return None
    return driver


_DRIVER = _extension_driver()
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.DatabaseError,) + (
    (_DRIVER.DatabaseError,) if _DRIVER is not None else ()
)


def _load_sqlite_vec(conn: sqlite3.Connection) -> bool:
    import sqlite_vec

    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except (AttributeError, *DATABASE_ERRORS):
        return False
    return True


def has_vector_extension(conn: sqlite3.Connection) -> bool:
    """True when sqlite-vec is loaded in this connection."""
    try:
        conn.execute("SELECT vec_version()")
    except DATABASE_ERRORS:
        return False
    return True


def connect(path: Path | str, *, vector_extension: bool = True) -> sqlite3.Connection:
    """A connection to the database at ``path`` (created and migrated as needed).

    ``vector_extension=False`` forces the plain ``sqlite3`` driver, as on a phone.
    """
    driver = _DRIVER if vector_extension and _DRIVER is not None else sqlite3
    try:
        conn = driver.connect(str(path), check_same_thread=False, isolation_level=None)
        conn.row_factory = driver.Row
        if driver is not sqlite3:
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
    """Apply every pending migration, each in its own transaction with its record; return the version."""
    current = schema_version(conn)
    known = MIGRATIONS[-1][0]
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
    return current


def now() -> str:
    """The current UTC time as ISO 8601 text."""
    return datetime.now(UTC).isoformat(timespec="seconds")
