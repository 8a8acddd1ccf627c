"""A PDF's printed pages in its stored text: the page a paragraph starts on, a page's first paragraph, its label.

Each paragraph of a PDF carries ``page-N`` anchors for the pages it starts and runs onto (``core.books.pdf``).
"""

from __future__ import annotations

import json
import sqlite3

from core.books.model import page_label


def page_of(conn: sqlite3.Connection, book_id: int, ordinal: int) -> int | None:
    """The PDF page (from 0) a segment starts on: its own ``page-N`` anchor or the nearest one before it."""
    row = conn.execute(
        "SELECT anchors FROM segments WHERE book_id = ? AND ordinal <= ? AND anchors LIKE '%\"page-%' "
        "ORDER BY ordinal DESC LIMIT 1",
        (book_id, ordinal),
    ).fetchone()
    pages = [int(a[5:]) for a in json.loads(row[0]) if a.startswith("page-") and a[5:].isdigit()] if row else []
    return pages[0] - 1 if pages else None


def page_start(conn: sqlite3.Connection, book_id: int, page: int) -> int | None:
    """The ordinal of the first segment on a PDF page (from 0), or None when no text is on it."""
    row = conn.execute(
        "SELECT ordinal FROM segments WHERE book_id = ? AND anchors LIKE ? ORDER BY ordinal LIMIT 1",
        (book_id, f'%"page-{page + 1}"%'),
    ).fetchone()
    return row[0] if row else None


def printed_label(conn: sqlite3.Connection, book_id: int, page: int) -> str | None:
    """What a PDF page (from 0) calls itself ("13", "xii"): the label of a paragraph that starts on it, or one
    counted on from a numbered paragraph that runs onto it; None when no text says."""
    rows = conn.execute(
        "SELECT anchors FROM segments WHERE book_id = ? AND anchors LIKE ? ORDER BY ordinal LIMIT 8",
        (book_id, f'%"page-{page + 1}"%'),
    ).fetchall()
    for anchors in (json.loads(row[0]) for row in rows):
        if anchors[0] == f"page-{page + 1}":
            return page_label(anchors)
    if rows:
        anchors = json.loads(rows[0][0])
        label, first = page_label(anchors), anchors[0].removeprefix("page-")
        if label and label.isdigit() and first.isdigit():
            return str(int(label) + page + 1 - int(first))
    return None
