"""What Quire keeps of Readwise: its address while it is set up (``readwise_settings``) and the highlights sent, each
with the digest it had (``readwise_sent``). Their SQL lives here only."""

from __future__ import annotations

import sqlite3

from core.library.db import now


def set_url(conn: sqlite3.Connection, url: str) -> None:
    conn.execute("INSERT OR REPLACE INTO readwise_settings VALUES (1, ?)", (url,))


def url(conn: sqlite3.Connection) -> str | None:
    """Readwise's address, or None when it is off."""
    row = conn.execute("SELECT url FROM readwise_settings").fetchone()
    return str(row[0]) if row else None


def forget_url(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM readwise_settings")


def sent(conn: sqlite3.Connection) -> dict[str, str]:
    """Each highlight sent (by its uid), with the digest it had then."""
    return dict(conn.execute("SELECT uid, digest FROM readwise_sent").fetchall())


def mark_sent(conn: sqlite3.Connection, digests: list[tuple[str, str]]) -> None:
    """Highlights sent now, (uid, digest) each."""
    conn.executemany(
        "INSERT OR REPLACE INTO readwise_sent (uid, digest, sent_at) VALUES (?, ?, ?)",
        [(uid, digest, now()) for uid, digest in digests],
    )
