"""A calibre library folder read as it is: its metadata.db (read-only) and each book's best file and cover.

calibre keeps one folder per book (``Author/Title (id)/``) holding its formats and ``cover.jpg``, and everything
else in ``metadata.db``. Read with the standard library's sqlite3 in read-only mode (no FTS needed, so phones
can read it too); calibre's own SQL functions are only used by its triggers, which reading never fires.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from core.errors import LibraryError

PREFERRED = ("EPUB", "AZW3", "MOBI", "PDF", "FB2", "CBZ", "TXT", "MD", "HTMLZ", "HTML")  # the format taken first


@dataclass(frozen=True, slots=True)
class CalibreBook:
    """One book of a calibre library: its best file, calibre's metadata and its cover file (if any)."""

    calibre_id: int
    title: str
    authors: list[str]
    tags: list[str]
    series: str | None
    series_index: float | None
    file: Path
    cover: Path | None


def is_calibre_library(folder: Path) -> bool:
    return (folder / "metadata.db").is_file()


def read_calibre_library(folder: Path) -> tuple[list[CalibreBook], list[str]]:
    """The books of the calibre library in ``folder`` (best format first: EPUB, AZW3, MOBI, PDF…), and a line
    for each book left out (no format Quire reads, or its file missing)."""
    uri = (folder / "metadata.db").resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            books, skipped = _read(conn, folder)
        finally:
            conn.close()
    except sqlite3.Error as error:
        raise LibraryError(f"{folder} has a metadata.db that calibre's tables are not in ({error})") from None
    return books, skipped


def _many(conn: sqlite3.Connection, sql: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for book, value in conn.execute(sql):
        found.setdefault(book, []).append(value)
    return found


def _read(conn: sqlite3.Connection, folder: Path) -> tuple[list[CalibreBook], list[str]]:
    authors = _many(
        conn, "SELECT l.book, a.name FROM books_authors_link l JOIN authors a ON a.id = l.author ORDER BY l.id"
    )
    tags = _many(conn, "SELECT l.book, t.name FROM books_tags_link l JOIN tags t ON t.id = l.tag ORDER BY t.name")
    series = {
        b: n for b, n in conn.execute("SELECT l.book, s.name FROM books_series_link l JOIN series s ON s.id = l.series")
    }
    files: dict[int, dict[str, str]] = {}
    for book, kind, name in conn.execute("SELECT book, format, name FROM data"):
        files.setdefault(book, {})[kind.upper()] = name
    books: list[CalibreBook] = []
    skipped: list[str] = []
    for number, title, path, has_cover, index in conn.execute(
        "SELECT id, title, path, has_cover, series_index FROM books ORDER BY id"
    ):
        where = folder / path
        formats = files.get(number, {})
        chosen = next((kind for kind in PREFERRED if kind in formats), None)
        file = where / f"{formats[chosen]}.{chosen.lower()}" if chosen else None
        if file is None or not file.is_file():
            skipped.append(f"{title}: no file Quire reads ({', '.join(sorted(formats)) or 'none'})")
            continue
        cover = where / "cover.jpg"
        books.append(CalibreBook(
            number, title, authors.get(number, []), tags.get(number, []), series.get(number),
            float(index) if number in series and index is not None else None, file,
            cover if has_cover and cover.is_file() else None,
        ))  # fmt: skip
    return books, skipped
