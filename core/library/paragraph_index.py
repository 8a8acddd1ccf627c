"""The paragraphs' keyword index (``segments_fts``): written with a book's text, or, for a book opened at once,
noted as due at its import and written behind it; taken out before the text goes.

An import that opens the book at once (the app's) leaves this index out of its transaction: for 红楼梦, each run of
Chinese written as bigrams, it was two thirds of the time to the first page. The work behind the open book writes
it (``quire.text.prepare``), and a search that comes first writes what it needs before it searches
(``Library.find``). Which books are due is kept in the library (migration 23), so a session closed first writes it
in the next.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Protocol

from core.library.fts import index_text

_READ = "SELECT id, text FROM segments WHERE book_id = ? ORDER BY id"


def mark_due(conn: sqlite3.Connection, book_id: int) -> None:
    """Note, inside the import's transaction, that the book's paragraphs are still to be indexed."""
    conn.execute("INSERT OR IGNORE INTO paragraphs_to_index VALUES (?)", (book_id,))


def write_stored(conn: sqlite3.Connection, book_id: int) -> None:
    """Write the index of the book's paragraphs as stored, inside the caller's transaction (an import's, or a long
    PDF's made whole); nothing is due for the book after."""
    stored = conn.execute("SELECT id, text FROM segments WHERE book_id = ?", (book_id,))
    _write(conn, book_id, ((row[0], index_text(row[1])) for row in stored))  # a row at a time: memory stays flat


def clear(conn: sqlite3.Connection, book_id: int) -> None:
    """Take the book's paragraphs out of the index, inside the caller's transaction (before its segments go)."""
    conn.execute("DELETE FROM segments_fts WHERE rowid IN (SELECT id FROM segments WHERE book_id = ?)", (book_id,))


def _write(conn: sqlite3.Connection, book_id: int, texts: Iterable[tuple[int, str]]) -> None:
    conn.executemany("INSERT INTO segments_fts (rowid, body) VALUES (?,?)", texts)
    conn.execute("DELETE FROM paragraphs_to_index WHERE book_id = ?", (book_id,))


class Writable(Protocol):
    """What writing the index needs of the library (``core.library.store.Library``, which calls this module)."""

    @property
    def conn(self) -> sqlite3.Connection: ...

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


def write_due(library: Writable, book_id: int | None = None) -> int:
    """Write the index of the book if it is due, or of every book due (``book_id`` None); how many were written.

    The index texts are made outside the write transaction (红楼梦's take 0.4 s), so the reader's place is saved
    meanwhile; a book whose paragraphs changed in between (a long PDF made whole) has them made again inside it. A
    second caller waits for the first and then finds nothing due.
    """
    conn = library.conn
    clause, params = ("WHERE book_id = ?", (book_id,)) if book_id is not None else ("", ())
    due = [row[0] for row in conn.execute(f"SELECT book_id FROM paragraphs_to_index {clause}", params)]
    written = 0
    for book in due:
        rows = [(row[0], row[1]) for row in conn.execute(_READ, (book,))]
        texts = [(row_id, index_text(text)) for row_id, text in rows]
        with library.transaction() as held:
            if not held.execute("SELECT 1 FROM paragraphs_to_index WHERE book_id = ?", (book,)).fetchone():
                continue  # another caller wrote it meanwhile
            now = [(row[0], row[1]) for row in held.execute(_READ, (book,))]
            if now != rows:
                texts = [(row_id, index_text(text)) for row_id, text in now]
            # Rows already there are taken out first (a rebuild of the whole index may have written them): FTS5
            # keeps the words of both texts of a row written twice.
            clear(held, book)
            _write(held, book, texts)
        written += 1
    return written
