"""The library's shelf read in SQL: one page of books, sorted, filtered by a tag and by words of a title or author."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from core.library.records import edition

_ORDER = {
    # "recent": the last place saved first (ISO 8601 text sorts in time order), then never-opened books, newest
    # import first; every order ends on the newest import, so two runs list the same books on the same pages.
    "recent": "p.updated_at IS NULL, p.updated_at DESC, b.id DESC",
    "title": "b.title_key, b.id DESC",
    "author": "b.authors_key = '', b.authors_key, b.id DESC",  # books with no author last
    "progress": "coalesce(p.furthest_percent, 0) DESC, b.id DESC",
}
SHELF_SORTS = tuple(_ORDER)
"""The orders the library screen offers: recently read, title, author, progress."""


@dataclass(frozen=True, slots=True)
class ShelfBook:
    """What a book's card shows: read for the cards drawn, not for the whole library."""

    id: int
    title: str
    authors: str  # joined with ", "; "" when the book names none
    edition: str  # "EPUB", "AZW3", "PDF"...
    has_cover: bool
    warnings: int  # how many import warnings the book has
    percent: float | None  # the furthest read; None when the book was never opened


@dataclass(frozen=True, slots=True)
class ShelfPage:
    """One page of the shelf, and whether more books pass the filter after it."""

    books: list[ShelfBook]
    more: bool


def shelf_keys(title: str, authors: list[str]) -> tuple[str, str]:
    """The folded title and authors a book is sorted and searched by (stored with the book, so SQL needs no
    Python function: Unicode case folding, which SQLite's ``lower`` does for ASCII only)."""
    return " ".join(title.split()).casefold(), ", ".join(" ".join(a.split()) for a in authors).casefold()


def shelf_page(
    conn: sqlite3.Connection, *, sort: str = "recent", words: str = "", tag: str | None = None,
    offset: int = 0, limit: int = 60,
) -> ShelfPage:  # fmt: skip
    """The books from ``offset``, at most ``limit``, that have ``tag`` and whose title or authors hold ``words``
    (case-folded), in the ``sort`` order."""
    if sort not in _ORDER:
        raise ValueError(f"sort the shelf by one of {', '.join(SHELF_SORTS)}, not {sort!r}")
    where, params = [], []
    if tag is not None:
        where.append("b.id IN (SELECT book_id FROM book_tags WHERE tag = ?)")
        params.append(tag)
    needle = " ".join(words.split()).casefold()
    if needle:
        where.append("(instr(b.title_key, ?) OR instr(b.authors_key, ?))")
        params += [needle, needle]
    # The page's ids first, from the sort keys alone; then the fields of those books only (a card's columns and
    # its cover's presence for every book before the sort cost more than the sort: bench.scale's library read).
    order = _ORDER[sort]
    chosen = (
        "SELECT b.id FROM books b LEFT JOIN positions p ON p.book_id = b.id "
        + ("WHERE " + " AND ".join(where) + " " if where else "")
        + f"ORDER BY {order} LIMIT ? OFFSET ?"
    )
    rows = conn.execute(
        "SELECT b.id, b.title, b.authors_key, b.authors, b.format, b.file_name, b.warnings, p.furthest_percent, "
        "EXISTS (SELECT 1 FROM book_covers c WHERE c.book_id = b.id) AS has_cover "
        f"FROM books b LEFT JOIN positions p ON p.book_id = b.id WHERE b.id IN ({chosen}) ORDER BY {order}",
        (*params, max(0, limit) + 1, max(0, offset)),  # one more than asked: whether there is a next page
    ).fetchall()
    return ShelfPage([_book(row) for row in rows[: max(0, limit)]], len(rows) > limit)


def _book(row: sqlite3.Row) -> ShelfBook:
    authors = ", ".join(json.loads(row["authors"])) if row["authors_key"] else ""
    warnings = len(json.loads(row["warnings"])) if row["warnings"] != "[]" else 0
    percent = row["furthest_percent"]
    return ShelfBook(row["id"], row["title"], authors, edition(row["file_name"], row["format"]),
                     bool(row["has_cover"]), warnings, None if percent is None else float(percent))  # fmt: skip


def shelf_size(conn: sqlite3.Connection) -> int:
    """How many books the library holds."""
    return int(conn.execute("SELECT count(*) FROM books").fetchone()[0])
