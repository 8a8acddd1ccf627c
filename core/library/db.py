"""Open the library's SQLite database: WAL, foreign keys, and migrations applied on open."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from core.errors import LibraryError
from core.library.migrations import MIGRATIONS


def connect(path: Path | str) -> sqlite3.Connection:
    """A connection to the database at ``path`` (created and migrated as needed)."""
    try:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA busy_timeout = 5000")
        migrate(conn)
    except sqlite3.DatabaseError as error:
        raise LibraryError(f"cannot open the library database at {path}: {error}") from error
    return conn


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
