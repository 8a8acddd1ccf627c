"""Where this library syncs: its target, user and book-file choices (the ``sync_settings`` table). The settings'
SQL lives here only; sync's own bookkeeping is ``core.sync.store``'s."""

from __future__ import annotations

import sqlite3

SETTINGS = ("target", "user", "book_files", "max_book_mb")


def keep(conn: sqlite3.Connection, settings: dict[str, str]) -> None:
    """Keep these settings (names from ``SETTINGS``), inside the caller's transaction."""
    conn.executemany("INSERT OR REPLACE INTO sync_settings VALUES (?, ?)", settings.items())


def is_set_up(conn: sqlite3.Connection) -> bool:
    """Whether a target is set (one small read)."""
    return conn.execute("SELECT 1 FROM sync_settings WHERE name = 'target'").fetchone() is not None


def settings(conn: sqlite3.Connection) -> dict[str, str]:
    """The settings kept (a name absent: never set)."""
    return dict(conn.execute("SELECT name, value FROM sync_settings").fetchall())
