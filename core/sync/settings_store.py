"""Where this library syncs: its target, user and book-file choices, kept as ``sync_meta`` rows (the table the sync
engine keeps its own marks in too). The settings' SQL lives here only."""

from __future__ import annotations

import sqlite3

SETTINGS = ("target", "user", "book_files", "max_book_mb")


def keep(conn: sqlite3.Connection, settings: dict[str, str]) -> None:
    """Keep these settings (names from ``SETTINGS``), inside the caller's transaction."""
    for name, value in settings.items():
        conn.execute("INSERT OR REPLACE INTO sync_meta VALUES (?, ?)", (name, value))


def is_set_up(conn: sqlite3.Connection) -> bool:
    """Whether a target is set (one small read)."""
    return conn.execute("SELECT 1 FROM sync_meta WHERE name = 'target'").fetchone() is not None


def settings(conn: sqlite3.Connection) -> dict[str, str]:
    """The settings kept (a name absent: never set)."""
    marks = ",".join("?" * len(SETTINGS))
    return dict(conn.execute(f"SELECT name, value FROM sync_meta WHERE name IN ({marks})", SETTINGS).fetchall())
