"""The companion's own tables: the names found in a book (``name_scans``, ``name_mentions``), the reader's X-Ray
corrections (``xray_corrections``) and chapter summaries (``chapter_summaries``). Their SQL lives here only."""

from __future__ import annotations

import sqlite3
from typing import Any


def scan_state(conn: sqlite3.Connection, book_id: int) -> tuple[int, int | None] | None:
    """(finder version, ordinal scanned through; None: the whole book) of a book's last name scan, or None."""
    row = conn.execute("SELECT version, through FROM name_scans WHERE book_id = ?", (book_id,)).fetchone()
    return None if row is None else (row[0], row[1])


def save_scan(
    conn: sqlite3.Connection, book_id: int, rows: list[tuple[Any, ...]], version: int, through: int | None, fresh: bool
) -> None:
    """Store a scan's mentions (inside the caller's transaction): a fresh scan replaces the book's earlier ones."""
    if fresh:
        conn.execute("DELETE FROM name_mentions WHERE book_id = ?", (book_id,))
    conn.executemany("INSERT INTO name_mentions VALUES (?,?,?,?,?,?,?,?)", rows)
    conn.execute("INSERT OR REPLACE INTO name_scans VALUES (?, ?, ?)", (book_id, version, through))


def mention_rows(conn: sqlite3.Connection, book_id: int, through: int) -> list[tuple[Any, ...]]:
    """Every stored mention up to ordinal ``through``, in reading order: (ordinal, start, name, at_start, before,
    after, section, segment index, common)."""
    return conn.execute(
        "SELECT m.ordinal, m.start, m.name, m.at_start, m.before, m.after, g.section_idx, g.idx, m.common "
        "FROM name_mentions m JOIN segments g ON g.book_id = m.book_id AND g.ordinal = m.ordinal "
        "WHERE m.book_id = ? AND m.ordinal <= ? ORDER BY m.ordinal, m.start",
        (book_id, through),
    ).fetchall()


def put_correction(conn: sqlite3.Connection, content_hash: str, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO xray_corrections VALUES (?, ?, ?) ON CONFLICT (content_hash, name_key) DO UPDATE SET "
        "value = excluded.value",
        (content_hash, key, value),
    )


def drop_correction(conn: sqlite3.Connection, content_hash: str, key: str) -> bool:
    """Whether there was a correction to drop."""
    gone = conn.execute("DELETE FROM xray_corrections WHERE content_hash = ? AND name_key = ?", (content_hash, key))
    return bool(gone.rowcount)


def correction_values(conn: sqlite3.Connection, content_hash: str) -> list[str]:
    """The book's corrections as stored (JSON), in the order of their names."""
    rows = conn.execute(
        "SELECT value FROM xray_corrections WHERE content_hash = ? ORDER BY name_key", (content_hash,)
    ).fetchall()
    return [row[0] for row in rows]


def summary(conn: sqlite3.Connection, book_id: int, section: int, model: str) -> tuple[str, str] | None:
    """(text, cited places as JSON) of a chapter's summary this model wrote, or None."""
    row = conn.execute(
        "SELECT text, cited FROM chapter_summaries WHERE book_id = ? AND section_idx = ? AND model = ?",
        (book_id, section, model),
    ).fetchone()
    return None if row is None else (row[0], row[1])


def keep_summary(conn: sqlite3.Connection, book_id: int, section: int, model: str, text: str, cited: str) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO chapter_summaries (book_id, section_idx, model, text, cited) VALUES (?, ?, ?, ?, ?)",
        (book_id, section, model, text, cited),
    )
