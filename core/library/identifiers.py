"""Books found by where they came from: the identifiers a file or its source gave (calibre's uuid above all)."""

from __future__ import annotations

import json

from core.library.records import BookRecord
from core.library.store import Library


def book_with_identifier(library: Library, *identifiers: str | None) -> BookRecord | None:
    """The book whose file or source named one of ``identifiers`` (compared without case): a calibre book downloaded
    over OPDS and the same book in calibre's folder share calibre's uuid, not their bytes."""
    wanted = [i.strip().lower() for i in identifiers if i and i.strip()]
    if not wanted:
        return None
    marks = ",".join("?" * len(wanted))
    row = library.conn.execute(
        f"SELECT id FROM books WHERE EXISTS (SELECT 1 FROM json_each(books.identifiers) "
        f"WHERE lower(trim(json_each.value)) IN ({marks})) ORDER BY id LIMIT 1",
        wanted,
    ).fetchone()
    return library.get(int(row[0])) if row else None


def add_identifier(library: Library, book_id: int, identifier: str) -> None:
    """Record another identifier for a book (where it came from: a catalog entry's, calibre's uuid)."""
    record = library.get(book_id)
    if identifier.lower() in (i.lower() for i in record.identifiers):
        return
    with library.transaction() as conn:
        conn.execute(
            "UPDATE books SET identifiers = ? WHERE id = ?",
            (json.dumps([*record.identifiers, identifier][:50], ensure_ascii=False), book_id),
        )
