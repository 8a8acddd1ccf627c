"""Reads of a book's stored text that other domains make in bulk (X-Ray, recaps, summaries): the library owns the
``segments`` and ``sections`` tables, so their SQL is here, each query named for what it gives."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from core.books.locator import Locator

EVERYTHING = 1 << 62  # an ordinal past any book's last


def body_segments(
    conn: sqlite3.Connection, book_id: int, after: int, through: int
) -> Iterator[tuple[int, int, int, str]]:
    """(ordinal, section, index in it, text) of the paragraphs after ordinal ``after`` up to ``through``, in reading
    order: the book's running text, without its headings and pictures."""
    yield from conn.execute(
        "SELECT ordinal, section_idx, idx, text FROM segments WHERE book_id = ? AND kind NOT IN ('heading', 'image') "
        "AND ordinal > ? AND ordinal <= ? ORDER BY ordinal",
        (book_id, after, through),
    )


def spoken_segments(conn: sqlite3.Connection, book_id: int, start: int) -> Iterator[tuple[int, int, int, str]]:
    """(ordinal, section, index in it, text) of every segment from ordinal ``start`` on, headings included (they
    are read aloud), pictures not."""
    yield from conn.execute(
        "SELECT ordinal, section_idx, idx, text FROM segments WHERE book_id = ? AND ordinal >= ? "
        "AND kind != 'image' ORDER BY ordinal",
        (book_id, start),
    )


def body_segments_holding(
    conn: sqlite3.Connection, book_id: int, through: int, word: str
) -> list[tuple[int, int, int, str]]:
    """The running-text paragraphs up to ``through`` whose text holds ``word`` (any case), as ``body_segments``."""
    return conn.execute(
        "SELECT ordinal, section_idx, idx, text FROM segments WHERE book_id = ? AND ordinal <= ? "
        "AND instr(lower(text), lower(?)) > 0 AND kind NOT IN ('heading', 'image') ORDER BY ordinal",
        (book_id, through, word),
    ).fetchall()


def section_body(conn: sqlite3.Connection, book_id: int, section: int, through: int) -> list[tuple[int, int, str]]:
    """(ordinal, index, text) of one section's running text up to ordinal ``through``."""
    return conn.execute(
        "SELECT ordinal, idx, text FROM segments WHERE book_id = ? AND section_idx = ? AND kind NOT IN "
        "('heading', 'image') AND ordinal <= ? ORDER BY ordinal",
        (book_id, section, through),
    ).fetchall()


def ordinal_at(conn: sqlite3.Connection, book_id: int, place: Locator) -> int | None:
    """The ordinal of the segment a place is in (None: no such segment)."""
    row = conn.execute(
        "SELECT ordinal FROM segments WHERE book_id = ? AND section_idx = ? AND idx = ?",
        (book_id, place.section, place.segment),
    ).fetchone()
    return None if row is None else int(row[0])


def file_place(conn: sqlite3.Connection, book_id: int, ordinal: int) -> tuple[str, str]:
    """(the file its section came from, its text) of the segment at ``ordinal``: where a reader of the EPUB finds it."""
    href, text = conn.execute(
        "SELECT s.href, g.text FROM segments g JOIN sections s ON s.book_id = g.book_id AND s.idx = g.section_idx "
        "WHERE g.book_id = ? AND g.ordinal = ?",
        (book_id, ordinal),
    ).fetchone()
    return str(href), str(text)


def segment_in_file(conn: sqlite3.Connection, book_id: int, place: Locator) -> tuple[str, str, str] | None:
    """(its section's file, the section's title, its text) of the segment a place is in (None: no such segment)."""
    row = conn.execute(
        "SELECT s.href, s.title, g.text FROM sections s JOIN segments g ON g.book_id = s.book_id"
        " AND g.section_idx = s.idx WHERE s.book_id = ? AND s.idx = ? AND g.idx = ?",
        (book_id, place.section, place.segment),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]), str(row[2]))


def section_of_file(conn: sqlite3.Connection, book_id: int, href: str) -> tuple[int, int, int] | None:
    """(index, first ordinal, segment count) of the section read from the book's file ``href`` (None: none)."""
    row = conn.execute(
        "SELECT idx, first_ordinal, segment_count FROM sections WHERE book_id = ? AND href = ?", (book_id, href)
    ).fetchone()
    return None if row is None else (int(row[0]), int(row[1]), int(row[2]))


def section_rows(conn: sqlite3.Connection, book_id: int, section: int) -> list[tuple[int, int, str]]:
    """(ordinal, index, text) of every segment of a section, headings and pictures included."""
    return conn.execute(
        "SELECT ordinal, idx, text FROM segments WHERE book_id = ? AND section_idx = ? ORDER BY ordinal",
        (book_id, section),
    ).fetchall()


def worded_segments(conn: sqlite3.Connection, book_id: int, section: int | None) -> list[tuple[int, int, int, str]]:
    """(ordinal, section, index, text) of every segment with words (no pictures), of one section or the book."""
    query = "SELECT ordinal, section_idx, idx, text FROM segments WHERE book_id = ? AND kind != 'image'"
    return conn.execute(
        query + (" AND section_idx = ?" if section is not None else "") + " ORDER BY ordinal",
        (book_id, section) if section is not None else (book_id,),
    ).fetchall()


def texts_up_to(conn: sqlite3.Connection, book_id: int, through: int) -> list[str]:
    """Every segment's text up to ordinal ``through``, in reading order."""
    return [t for (t,) in conn.execute(
        "SELECT text FROM segments WHERE book_id = ? AND ordinal <= ? ORDER BY ordinal", (book_id, through))]  # fmt: skip


def texts_at(conn: sqlite3.Connection, book_id: int, ordinals: list[int]) -> dict[int, str]:
    """The texts of these segments, by ordinal, read in a few queries (not one per ordinal)."""
    wanted = sorted(set(ordinals))
    texts: dict[int, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        texts.update(conn.execute(
            f"SELECT ordinal, text FROM segments WHERE book_id = ? AND ordinal IN ({marks})", (book_id, *chunk)
        ).fetchall())  # fmt: skip
    return texts


def characters_up_to(conn: sqlite3.Connection, book_id: int, through: int) -> int:
    """How many characters the text up to ordinal ``through`` holds (at least 1)."""
    row = conn.execute(
        "SELECT SUM(LENGTH(text)) FROM segments WHERE book_id = ? AND ordinal <= ?", (book_id, through)
    ).fetchone()
    return max(1, row[0] or 0)


def section_titles(conn: sqlite3.Connection, book_id: int) -> list[tuple[int, str | None]]:
    """(index, title) of each section."""
    return [(int(idx), title) for idx, title in conn.execute(
        "SELECT idx, title FROM sections WHERE book_id = ?", (book_id,))]  # fmt: skip


def section_ordinals(conn: sqlite3.Connection, book_id: int, section: int) -> dict[int, int]:
    """Each segment's ordinal in the book, by its index in the section."""
    return dict(conn.execute(
        "SELECT idx, ordinal FROM segments WHERE book_id = ? AND section_idx = ?", (book_id, section)).fetchall())  # fmt: skip


def section_spans(conn: sqlite3.Connection, book_id: int, through: int) -> list[tuple[int, str | None, int, int]]:
    """(index, title, first ordinal, last ordinal) of each section begun at or before ordinal ``through``, in reading
    order."""
    return conn.execute(
        "SELECT s.idx, s.title, MIN(g.ordinal), MAX(g.ordinal) FROM sections s JOIN segments g "
        "ON g.book_id = s.book_id AND g.section_idx = s.idx WHERE s.book_id = ? GROUP BY s.idx "
        "HAVING MIN(g.ordinal) <= ? ORDER BY MIN(g.ordinal)",
        (book_id, through),
    ).fetchall()


def section_head(conn: sqlite3.Connection, book_id: int, section: int) -> tuple[int, str]:
    """(first ordinal, title) of a section."""
    first, title = conn.execute(
        "SELECT first_ordinal, title FROM sections WHERE book_id = ? AND idx = ?", (book_id, section)
    ).fetchone()
    return int(first), str(title)


def page_anchors(conn: sqlite3.Connection, starts: list[tuple[int, int]]) -> Iterator[tuple[int, int, str]]:
    """(book, ordinal, anchors as stored) of each (book, ordinal) paragraph that has anchors (a PDF's pages)."""
    marks = " OR ".join("(book_id = ? AND ordinal = ?)" for _ in starts)
    yield from conn.execute(
        f"SELECT book_id, ordinal, anchors FROM segments WHERE anchors IS NOT NULL AND ({marks})",
        [value for pair in starts for value in pair],
    )
