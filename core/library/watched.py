"""The folders the library watches for new books and the files it has offered (``watched_folders``,
``seen_files``): their SQL lives here only."""

from __future__ import annotations

import sqlite3

from core.library.db import now


def watch(conn: sqlite3.Connection, folder: str) -> None:
    conn.execute("INSERT OR IGNORE INTO watched_folders (folder, added_at) VALUES (?, ?)", (folder, now()))


def unwatch(conn: sqlite3.Connection, folder: str) -> bool:
    """Whether the folder was watched."""
    return bool(conn.execute("DELETE FROM watched_folders WHERE folder = ?", (folder,)).rowcount)


def watched(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT folder FROM watched_folders ORDER BY folder")]


def seen_stamp(conn: sqlite3.Connection, path: str) -> str | None:
    """The size and time a file had when it was last offered (None: never offered)."""
    row = conn.execute("SELECT stamp FROM seen_files WHERE path = ?", (path,)).fetchone()
    return None if row is None else str(row[0])


def mark_seen(conn: sqlite3.Connection, stamps: list[tuple[str, str]]) -> None:
    """Files offered now, (path, stamp) each."""
    conn.executemany(
        "INSERT INTO seen_files (path, stamp) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET stamp = excluded.stamp",
        stamps,
    )
