"""The catalogs the reader added (``catalogs``): their SQL lives here only."""

from __future__ import annotations

import sqlite3

from core.library.db import now


def put_catalog(conn: sqlite3.Connection, title: str, url: str, user: str) -> None:
    """Add a catalog, or give one already added (by its address) this title and user."""
    conn.execute(
        "INSERT INTO catalogs (title, url, username, added_at) VALUES (?, ?, ?, ?) ON CONFLICT (url) "
        "DO UPDATE SET title = excluded.title, username = excluded.username",
        (title, url, user, now()),
    )


def catalog_rows(conn: sqlite3.Connection) -> list[tuple[int, str, str, str]]:
    """(number, title, address, user) of each catalog, by title."""
    return conn.execute("SELECT id, title, url, username FROM catalogs ORDER BY title, id").fetchall()


def drop_catalog(conn: sqlite3.Connection, number: int) -> None:
    conn.execute("DELETE FROM catalogs WHERE id = ?", (number,))
