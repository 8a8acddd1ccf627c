"""A long PDF stored from its first pages, to read at once, completed when the rest of it has been read.

The whole file is read again, as an import reads it anywhere, so the finished book is the same on every device
and its locators are the ones other devices use. The first part is the finished book's beginning paragraph for
paragraph in every shared PDF (its last page is left out of it: a paragraph there may go on), and then nothing
written against it moves. Where it is not (a PDF without an outline whose chapters are found in its text, say),
the reading place, the bookmarks and the highlights made meanwhile are moved to the same paragraphs of the
finished book, found by aligning the two texts, and sync is told where they went. Sync holds a book read in part
back both ways (``partial_hashes``): nothing made on the first part is sent before it is
moved, and nothing another device made is placed on it (it is placed when the book is whole).
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.books.formats import parse_book, read_file_bytes
from core.books.locator import Locator, parse_locator
from core.books.model import Book, ReadProgress
from core.errors import BookFormatError
from core.library import paragraph_index
from core.library.store import Library
from core.sync import store as sync_store

TextHook = Callable[[sqlite3.Connection, int], None]
"""Drops what was made from a book's old text (its passages, their vectors), inside the completing transaction."""


@dataclass(frozen=True, slots=True)
class _Moved:
    """Where a paragraph of the first part is in the finished book, and whether its text is the same there."""

    ordinal: int
    section: int
    segment: int
    same: bool


def read_in_part(library: Library, book_id: int) -> tuple[int, int] | None:
    """(pages read, pages in all) of a long PDF stored from its first pages while the rest is read; else None."""
    row = library.conn.execute(
        "SELECT pages_read, pages FROM books_read_in_part WHERE book_id = ?", (book_id,)
    ).fetchone()
    return (row[0], row[1]) if row else None


def complete(
    library: Library, book_id: int, text_hooks: Sequence[TextHook], progress: ReadProgress | None = None
) -> bool:
    """Read the whole of a book stored in part and store it in place of its first part; True when it did.

    The parse runs outside the write transaction (a 2,916-page PDF takes most of a minute): the first part stays
    readable meanwhile, and a process killed before the commit leaves it as it was, to be completed next time.
    """
    if read_in_part(library, book_id) is None:
        return False
    record = library.get(book_id)
    try:
        book = parse_book(read_file_bytes(library.file_path(book_id)), record.file_name, progress)
    except BookFormatError as error:  # its first pages read, a later one does not: the first part is the book
        _keep_first_part(library, book_id, str(error))
        return True
    with library.transaction() as conn:
        if read_in_part(library, book_id) is None:
            return False  # another process finished it meanwhile
        stored = conn.execute(
            "SELECT ordinal, section_idx, idx, text FROM segments WHERE book_id = ? ORDER BY ordinal", (book_id,)
        ).fetchall()
        moves = _moves(stored, book)
        paragraph_index.clear(conn, book_id)
        for table in ("segments", "sections", "toc"):
            conn.execute(f"DELETE FROM {table} WHERE book_id = ?", (book_id,))
        for hook in text_hooks:
            hook(conn, book_id)
        library.insert_text(book_id, book)
        conn.execute(
            "UPDATE books SET segment_count = ?, char_count = ?, warnings = ? WHERE id = ?",
            (book.segment_count, book.char_count, json.dumps(book.warnings, ensure_ascii=False), book_id),
        )
        if moves is not None:
            _move_annotations(conn, book_id, stored, moves)
        conn.execute(  # the share read, of the whole book now
            "UPDATE positions SET percent = round(100.0 * (ordinal + 1) / ?, 2), furthest_percent = CASE WHEN "
            "furthest_ordinal IS NULL THEN furthest_percent ELSE round(100.0 * (furthest_ordinal + 1) / ?, 2) END "
            "WHERE book_id = ?",
            (max(1, book.segment_count), max(1, book.segment_count), book_id),
        )
        conn.execute("DELETE FROM books_read_in_part WHERE book_id = ?", (book_id,))
    return True


def _keep_first_part(library: Library, book_id: int, problem: str) -> None:
    """The rest of the file cannot be read: the first part stays the book, and its warnings say why."""
    with library.transaction() as conn:
        row = conn.execute(
            "SELECT b.warnings, p.pages_read, p.pages FROM books b JOIN books_read_in_part p ON p.book_id = b.id "
            "WHERE b.id = ?",
            (book_id,),
        ).fetchone()
        if row is None:
            return
        note = f"only the first {row[1]} of {row[2]} pages could be read: {problem}"
        warnings = [*json.loads(row[0] or "[]"), note]
        conn.execute("UPDATE books SET warnings = ? WHERE id = ?", (json.dumps(warnings, ensure_ascii=False), book_id))
        conn.execute("DELETE FROM books_read_in_part WHERE book_id = ?", (book_id,))


def _moves(stored: list[sqlite3.Row], book: Book) -> dict[int, _Moved] | None:
    """None when every stored paragraph is at the same place in the finished book with the same text (then
    nothing moves); else each stored ordinal's place in it, by an alignment of the two texts."""
    finished = [(loc.section, loc.segment, seg.text) for _, loc, _, seg in book.segments_with_locators()]
    if len(stored) <= len(finished) and all((row[1], row[2], row[3]) == finished[row[0]] for row in stored):
        return None  # (the stored ordinals run from 0 without a gap)
    window = finished[: 2 * len(stored) + 100]  # the first part is the finished book's beginning, give or take
    matcher = difflib.SequenceMatcher(None, [row[3] for row in stored], [text for *_, text in window], autojunk=False)
    moves: dict[int, _Moved] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i in range(i1, i2):
            j = j1 + (i - i1) if tag == "equal" else min(j1 + (i - i1), max(j1, j2 - 1), len(window) - 1)
            if j < 0:
                continue
            section, segment, text = window[j]
            moves[stored[i][0]] = _Moved(j, section, segment, tag == "equal" or text == stored[i][3])
    return moves


def _moved(locator: str, at: dict[tuple[int, int], int], moves: dict[int, _Moved]) -> tuple[str, int | None]:
    """A locator of the first part (``at``: its paragraphs' ordinals) as it reads in the finished book, with its
    ordinal there: the offset is kept where the paragraph's text is the same, else it points at its start."""
    place = parse_locator(locator)
    move = moves.get(at.get((place.section, place.segment), -1))
    if move is None:
        return locator, None
    return str(Locator(move.section, move.segment, place.offset if move.same else None)), move.ordinal


def _move_annotations(
    conn: sqlite3.Connection, book_id: int, stored: list[sqlite3.Row], moves: dict[int, _Moved]
) -> None:
    """The place, bookmarks and highlights made on the first part, moved to the finished book; sync is told of
    those whose locator changed (their ordinals are set again in any case)."""
    at = {(row[1], row[2]): row[0] for row in stored}
    digest = conn.execute("SELECT content_hash FROM books WHERE id = ?", (book_id,)).fetchone()[0]
    place = conn.execute(
        "SELECT locator, ordinal, furthest_locator, furthest_ordinal FROM positions WHERE book_id = ?", (book_id,)
    ).fetchone()
    if place is not None:
        locator, ordinal = _moved(place[0], at, moves)
        furthest, furthest_ordinal = _moved(place[2], at, moves) if place[2] is not None else (None, None)
        conn.execute(
            "UPDATE positions SET locator = ?, ordinal = coalesce(?, ordinal), furthest_locator = ?, "
            "furthest_ordinal = coalesce(?, furthest_ordinal) WHERE book_id = ?",
            (locator, ordinal, furthest, furthest_ordinal, book_id),
        )
        if locator != place[0]:
            sync_store.record(conn, f"place/{digest}", {"locator": locator})
        if furthest is not None and furthest_ordinal is not None and furthest != place[2]:
            sync_store.record(conn, f"furthest/{digest}", {"locator": furthest, "ordinal": furthest_ordinal})
    for row in conn.execute("SELECT id, locator, label, uid FROM bookmarks WHERE book_id = ?", (book_id,)).fetchall():
        locator, ordinal = _moved(row[1], at, moves)
        conn.execute(
            "UPDATE bookmarks SET locator = ?, ordinal = coalesce(?, ordinal) WHERE id = ?", (locator, ordinal, row[0])
        )
        if locator != row[1]:
            record = {"present": True, "locator": locator, "label": row[2]}
            sync_store.record(conn, f"bookmark/{digest}/{row[3]}", record)
    for row in conn.execute(
        "SELECT id, start_locator, end_locator, color, note, uid FROM highlights WHERE book_id = ?", (book_id,)
    ).fetchall():
        (start, ordinal), (end, _) = _moved(row[1], at, moves), _moved(row[2], at, moves)
        conn.execute(
            "UPDATE highlights SET start_locator = ?, end_locator = ?, start_ordinal = coalesce(?, start_ordinal) "
            "WHERE id = ?",
            (start, end, ordinal, row[0]),
        )
        if (start, end) != (row[1], row[2]):
            value = {"present": True, "start": start, "end": end, "color": row[3], "note": row[4]}
            sync_store.record(conn, f"highlight/{digest}/{row[5]}", value)


def partial_hashes(conn: sqlite3.Connection) -> set[str]:
    """The content hashes of long PDFs of which only a first part is in: their locators are not yet the whole
    book's, so sync neither sends this device's records of them nor places other devices' until the book is whole
    (then ``core.sync.records.restore`` places what came meanwhile)."""
    rows = conn.execute("SELECT b.content_hash FROM books_read_in_part p JOIN books b ON b.id = p.book_id")
    return {row[0] for row in rows}
