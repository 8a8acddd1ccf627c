"""A calibre library folder read as it is: its metadata.db (read-only) and each book's best file and cover.

calibre keeps one folder per book (``Author/Title (id)/``) holding its formats and ``cover.jpg``, and everything
else in ``metadata.db``. Read with the standard library's sqlite3 in read-only mode (no FTS needed, so phones
can read it too); calibre's own SQL functions are only used by its triggers, which reading never fires.

A library folder comes from anywhere (a shared drive, a download): its database is read with a time bound
(a ``books`` view that never ends is stopped), every row's shape is checked, and a book's file or cover is taken
only from inside the library folder itself: a ``path`` of ``../..`` or ``/etc``, or a folder or file that is a
symbolic link, leaves that book out with a line saying why. A cover is taken only if it is a picture.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from core.errors import LibraryError

PREFERRED = ("EPUB", "AZW3", "MOBI", "PDF", "FB2", "CBZ", "TXT", "MD", "HTMLZ", "HTML")  # the format taken first
READ_SECONDS = 10.0  # calibre reads a 50,000-book metadata.db in well under a second
TABLES = ("books", "authors", "books_authors_link", "tags", "books_tags_link", "series", "books_series_link", "data")
PICTURES = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a")  # JPEG, PNG, GIF


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
    uuid: str | None = None  # calibre's own id of the book: the OPDS entry of calibre's server is urn:uuid:UUID


def is_calibre_library(folder: Path) -> bool:
    return (folder / "metadata.db").is_file()


def read_calibre_library(folder: Path) -> tuple[list[CalibreBook], list[str]]:
    """The books of the calibre library in ``folder`` (best format first: EPUB, AZW3, MOBI, PDF…), and a line
    for each book left out (no format Quire reads, or its file missing)."""
    uri = (folder / "metadata.db").resolve().as_uri() + "?mode=ro"
    deadline = time.monotonic() + READ_SECONDS
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)  # non-zero: stop the query
        try:
            books, skipped = _read(conn, folder.resolve())
        finally:
            conn.close()
    except sqlite3.Error as error:
        if time.monotonic() > deadline:
            raise LibraryError(
                f"{folder}'s metadata.db took more than {READ_SECONDS:g} s to read: not a calibre library Quire can"
                " import (calibre's own check_library may repair it)"
            ) from None
        raise LibraryError(f"{folder} has a metadata.db that calibre's tables are not in ({error})") from None
    return books, skipped


def picture(path: Path) -> bytes | None:
    """A cover file's bytes if it is a plain file (not a link) holding a picture, else None."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as handle:
            data = handle.read(8 * 1024 * 1024 + 1)
    except OSError:
        return None
    return data if len(data) <= 8 * 1024 * 1024 and data.startswith(PICTURES) else None


def _inside(base: Path, *parts: str) -> Path | None:
    """``base/parts…`` if it names a place inside ``base`` that no symbolic link leads to, else None."""
    if any(not part or os.path.isabs(part) or "\x00" in part for part in parts):
        return None
    candidate = base.joinpath(*parts)
    spelled = os.path.normpath(candidate)
    if spelled != str(candidate) or os.path.realpath(candidate) != spelled:  # ``..`` in it, or a link on the way
        return None
    return candidate if candidate.is_relative_to(base) else None


def _many(conn: sqlite3.Connection, sql: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for book, value in conn.execute(sql):
        found.setdefault(book, []).append(value)
    return found


def _read(conn: sqlite3.Connection, folder: Path) -> tuple[list[CalibreBook], list[str]]:
    kinds = dict(conn.execute(f"SELECT name, type FROM sqlite_master WHERE name IN ({','.join('?' * len(TABLES))})",
                              TABLES).fetchall())  # fmt: skip
    views = sorted(name for name, kind in kinds.items() if kind != "table")
    if views:  # calibre's are tables; a view may recurse without end and hold gigabytes before the time bound
        raise LibraryError(f"{folder}'s metadata.db has {', '.join(views)} as a view, where calibre has tables: "
                           "not a calibre library Quire can import")  # fmt: skip
    authors = _many(
        conn, "SELECT l.book, a.name FROM books_authors_link l JOIN authors a ON a.id = l.author ORDER BY l.id"
    )
    tags = _many(conn, "SELECT l.book, t.name FROM books_tags_link l JOIN tags t ON t.id = l.tag ORDER BY t.name")
    series = {
        b: n for b, n in conn.execute("SELECT l.book, s.name FROM books_series_link l JOIN series s ON s.id = l.series")
    }
    files: dict[int, dict[str, str]] = {}
    for book, kind, name in conn.execute("SELECT book, format, name FROM data"):
        if isinstance(book, int) and isinstance(kind, str) and isinstance(name, str):  # NULLs and odd types: not a file
            files.setdefault(book, {})[kind.upper()] = name
    books: list[CalibreBook] = []
    skipped: list[str] = []
    uuids = dict(_rows(conn, "SELECT id, uuid FROM books"))
    for number, title, path, has_cover, index in conn.execute(
        "SELECT id, title, path, has_cover, series_index FROM books ORDER BY id"
    ):
        if not isinstance(number, int):
            continue
        title = _text(title) or f"calibre book {number}"
        formats = files.get(number, {})
        chosen = next((kind for kind in PREFERRED if kind in formats), None)
        where = _inside(folder, path) if isinstance(path, str) else None
        if where is None:
            skipped.append(f"{title}: its folder is not inside the library folder (left out)")
            continue
        file = _inside(where, f"{formats[chosen]}.{chosen.lower()}") if chosen else None
        if file is None or not file.is_file():
            skipped.append(f"{title}: no file Quire reads ({', '.join(sorted(formats)) or 'none'})")
            continue
        cover = where / "cover.jpg"
        books.append(CalibreBook(
            number, title, _texts(authors.get(number, [])), _texts(tags.get(number, [])), _text(series.get(number)),
            _number(index) if number in series else None, file, cover if has_cover and picture(cover) else None,
            _text(uuids.get(number)),
        ))  # fmt: skip
    return books, skipped


def _rows(conn: sqlite3.Connection, sql: str) -> list[tuple[object, object]]:
    """Rows of an optional column: none when a hand-made database lacks it."""
    try:
        return [tuple(row) for row in conn.execute(sql)]
    except sqlite3.OperationalError as error:
        if "no such column" in str(error):
            return []
        raise


def _text(value: object) -> str | None:
    """A name from the database, without control characters (an escape sequence in a title is no part of it)."""
    if not isinstance(value, str):
        return None
    value = "".join(c for c in value if c.isprintable() or c == " ")
    return value if value.strip() else None


def _texts(values: list[str]) -> list[str]:
    return [v for v in values if _text(v) is not None]


def _number(value: object) -> float | None:
    """calibre's series index: a number; text or NULL (a hand-edited database) is no index."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and abs(value) < 1e9 else None
