"""KOReader progress sync's settings: the server and user while it is on (``kosync_settings``). Their SQL
lives here only (the book's text is read through ``core.library.text_reads``)."""

from __future__ import annotations

import sqlite3


def keep(conn: sqlite3.Connection, url: str, user: str) -> None:
    conn.execute("INSERT OR REPLACE INTO kosync_settings VALUES (1, ?, ?)", (url, user))


def settings(conn: sqlite3.Connection) -> dict[str, str] | None:
    """{"url", "user"} while KOReader sync is on, else None."""
    row = conn.execute("SELECT url, user FROM kosync_settings").fetchone()
    return {"url": str(row[0]), "user": str(row[1])} if row else None


def forget(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM kosync_settings")
