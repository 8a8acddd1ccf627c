"""KOReader progress sync's settings: the server and user while it is on, kept as ``sync_meta`` rows. Their SQL
lives here only (the book's text is read through ``core.library.text_reads``)."""

from __future__ import annotations

import sqlite3


def keep(conn: sqlite3.Connection, url: str, user: str) -> None:
    conn.execute("INSERT OR REPLACE INTO sync_meta VALUES ('kosync_url', ?)", (url,))
    conn.execute("INSERT OR REPLACE INTO sync_meta VALUES ('kosync_user', ?)", (user,))


def settings(conn: sqlite3.Connection) -> dict[str, str] | None:
    """{"url", "user"} while KOReader sync is on, else None."""
    rows = dict(
        conn.execute("SELECT name, value FROM sync_meta WHERE name IN ('kosync_url', 'kosync_user')").fetchall()
    )
    return {"url": rows["kosync_url"], "user": rows.get("kosync_user", "")} if "kosync_url" in rows else None


def forget(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM sync_meta WHERE name IN ('kosync_url', 'kosync_user')")
