"""The reader's own data on a book: position, reading time, bookmarks, highlights with notes, tags."""

from __future__ import annotations

import sqlite3
import urllib.parse
from collections.abc import Sequence

from core.books.locator import Locator, parse_locator
from core.errors import LocatorError, QuireError
from core.library.db import inserted_id, now
from core.library.records import Bookmark, Highlight, PlacedText, Position, Spannable, slices
from core.library.stats import count_reading
from core.library.store import Library
from core.sync import store as sync_store

HIGHLIGHT_COLORS = ("yellow", "green", "blue", "pink", "purple")
"""The five colours a highlight can have."""
MAX_NOTE_CHARS = 100_000  # a note longer than a short story is refused (sync caps each record's size)
MAX_LABEL_CHARS = 1_000


class Annotations:
    """Reading state kept beside the books of a Library (same database, same transactions).

    Every edit is also recorded for sync (``core.sync.store``) in its own transaction, unless
    ``journal=False``: sync itself showing what another device did, which is not this reader's act.
    """

    def __init__(self, library: Library) -> None:
        self.library = library

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection to the library (``Library.conn``)."""
        return self.library.conn

    # -- position -----------------------------------------------------------------------------
    def save_position(
        self,
        book_id: int,
        locator: Locator,
        read_seconds: float = 0.0,
        *,
        reading: bool = True,
        journal: bool = True,
        read_chars: int | None = None,
    ) -> Position:
        """Record where the reader is; ``read_seconds`` is added to the book's reading time, and ``read_chars``
        (when the reader counted them) to the characters read (else the paragraphs passed count).

        ``reading``: the reader got here by reading (a page turn, scrolling), so the furthest place follows
        when this is past it. A jump (contents, search hit, citation, "go to") moves only the current place.
        """
        ordinal, percent = self.place(book_id, locator)
        furthest = (str(locator), ordinal, percent) if reading else (None, -1, 0.0)  # a jump reads nothing
        read_seconds = max(0.0, read_seconds)
        with self.library.transaction() as conn:
            row = conn.execute(
                "SELECT furthest_ordinal, ordinal FROM positions WHERE book_id = ?", (book_id,)
            ).fetchone()
            before = -1 if row is None or row[0] is None else int(row[0])
            was = row[1] if row is not None else None  # where the reader was: the paragraphs since are read
            day = count_reading(conn, book_id, was, ordinal, read_seconds, reading, read_chars) if journal else None
            conn.execute(
                """INSERT INTO positions (book_id, locator, ordinal, percent, reading_seconds, updated_at,
                                          furthest_locator, furthest_ordinal, furthest_percent)
                   VALUES (?,?,?,?,?,?,?,?,?)
                   ON CONFLICT(book_id) DO UPDATE SET locator = excluded.locator, ordinal = excluded.ordinal,
                   percent = excluded.percent, reading_seconds = reading_seconds + excluded.reading_seconds,
                   updated_at = excluded.updated_at,
                   furthest_locator = CASE WHEN excluded.furthest_ordinal > COALESCE(furthest_ordinal, -1)
                                      THEN excluded.furthest_locator ELSE furthest_locator END,
                   furthest_percent = CASE WHEN excluded.furthest_ordinal > COALESCE(furthest_ordinal, -1)
                                      THEN excluded.furthest_percent ELSE furthest_percent END,
                   furthest_ordinal = MAX(COALESCE(furthest_ordinal, -1), excluded.furthest_ordinal)""",
                (book_id, str(locator), ordinal, percent, read_seconds, now(), *furthest),
            )
            if journal:
                h = _content_hash(conn, book_id)
                sync_store.record(conn, f"place/{h}", {"locator": str(locator)})
                if reading and ordinal > before:
                    earlier = sync_store.pending(conn, f"furthest/{h}") or {}
                    moved: dict[str, object] = {"locator": str(locator), "ordinal": ordinal}
                    if earlier.get("reset"):  # read on after a move back that is not sent yet: still a move back
                        moved["reset"] = True
                    sync_store.record(conn, f"furthest/{h}", moved)
                if read_seconds > 0:  # this device's own share of the book's reading time
                    key = f"time/{h}/{sync_store.device_id(conn)}"
                    mine = float((sync_store.current(conn, key) or {}).get("seconds", 0.0))
                    sync_store.record(conn, key, {"seconds": round(mine + read_seconds, 1)})
                if day is not None:  # this device's reading that day, as it now stands
                    sync_store.record(conn, f"day/{h}/{sync_store.device_id(conn)}/{day.day}", day.record())
        return self._saved(book_id)

    def set_furthest(self, book_id: int, locator: Locator | None = None) -> Position:
        """Move the furthest place back on purpose ("I haven't read past here"); None: to the current place.

        The current place moves back with it when it was past the new furthest.
        """
        current = self.position(book_id)
        if current is None:
            raise LocatorError("this book has not been opened yet, so it has no furthest place to move")
        locator = locator if locator is not None else current.locator
        ordinal, percent = self.place(book_id, locator)
        with self.library.transaction() as conn:
            conn.execute(
                "UPDATE positions SET furthest_locator = ?, furthest_ordinal = ?, furthest_percent = ?,"
                " updated_at = ? WHERE book_id = ?",
                (str(locator), ordinal, percent, now(), book_id),
            )
            moved = conn.execute(
                "UPDATE positions SET locator = ?, ordinal = ?, percent = ? WHERE book_id = ? AND ordinal > ?",
                (str(locator), ordinal, percent, book_id, ordinal),
            ).rowcount
            h = _content_hash(conn, book_id)
            sync_store.record(conn, f"furthest/{h}", {"locator": str(locator), "ordinal": ordinal, "reset": True})
            if moved:
                sync_store.record(conn, f"place/{h}", {"locator": str(locator)})
        return self._saved(book_id)

    def place(self, book_id: int, locator: Locator) -> tuple[int, float]:
        """A locator's ordinal and the percentage of the book read when it is reached."""
        segments = self.library.book_value(book_id, "segment_count")  # its record is not needed
        ordinal = self.library.ordinal_of(book_id, locator)
        return ordinal, round(100.0 * (ordinal + 1) / max(1, segments), 2)

    def _saved(self, book_id: int) -> Position:
        position = self.position(book_id)
        if position is None:
            raise QuireError("the reading position was not saved; try again")
        return position

    def position(self, book_id: int) -> Position | None:
        """The saved position, or None when the book was never opened."""
        row = self.conn.execute("SELECT * FROM positions WHERE book_id = ?", (book_id,)).fetchone()
        return None if row is None else _position(row)

    def positions(self) -> dict[int, Position]:
        """Every opened book's position, by book id (one query: the library screen reads them all)."""
        return {row["book_id"]: _position(row) for row in self.conn.execute("SELECT * FROM positions")}

    # -- bookmarks ----------------------------------------------------------------------------
    def add_bookmark(
        self, book_id: int, locator: Locator, label: str = "", *, uid: str | None = None, journal: bool = True
    ) -> Bookmark:
        """Bookmark a place; the label defaults to the start of the segment's text."""
        segment = self.library.segment(book_id, locator)
        label = (label.strip() or segment.text[:60])[:MAX_LABEL_CHARS]
        uid = uid or sync_store.new_uid()
        with self.library.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO bookmarks (book_id, locator, ordinal, label, created_at, uid) VALUES (?,?,?,?,?,?)",
                (book_id, str(locator), segment.ordinal, label, now(), uid),
            )
            if journal:
                record = {"present": True, "locator": str(locator), "label": label}
                sync_store.record(conn, f"bookmark/{_content_hash(conn, book_id)}/{uid}", record)
        return self.bookmarks(book_id, inserted_id(cursor))[0]

    def bookmarks(self, book_id: int, bookmark_id: int | None = None) -> list[Bookmark]:
        """A book's bookmarks in reading order."""
        sql = (
            "SELECT * FROM bookmarks WHERE book_id = ?"
            + (" AND id = ?" if bookmark_id else "")
            + " ORDER BY ordinal, id"
        )
        params = (book_id, bookmark_id) if bookmark_id else (book_id,)
        return [
            Bookmark(r["id"], r["book_id"], parse_locator(r["locator"]), r["label"], r["created_at"], r["uid"] or "")
            for r in self.conn.execute(sql, params)
        ]

    def remove_bookmark(self, bookmark_id: int, *, journal: bool = True) -> None:
        """Delete a bookmark (a tombstone for sync, so other devices delete it too)."""
        with self.library.transaction() as conn:
            row = _take(conn, "bookmarks", bookmark_id)
            if row is not None and journal:
                record = {"present": False, "locator": row["locator"], "label": row["label"]}
                sync_store.record(conn, f"bookmark/{_content_hash(conn, row['book_id'])}/{row['uid']}", record)

    # -- highlights ---------------------------------------------------------------------------
    def add_highlight(
        self,
        book_id: int,
        start: Locator,
        end: Locator,
        color: str = "yellow",
        note: str = "",
        *,
        uid: str | None = None,
        journal: bool = True,
        created_at: str | None = None,
    ) -> Highlight:
        """Highlight the text from ``start`` to ``end`` (inclusive segments; offsets optional).

        Each highlight has its own identity (``uid``, random unless sync gives the one made elsewhere): two
        highlights of one passage stay two. ``created_at`` (ISO 8601) dates one made elsewhere (an e-reader's).
        """
        _check(color, note)
        _check_order(start, end)
        text = _check_text(self.passage_text(book_id, start, end), start, end)
        first = self.library.segment(book_id, start)
        stamp = now()
        made = created_at or stamp
        uid = uid or sync_store.new_uid()
        with self.library.transaction() as conn:
            cursor = conn.execute(
                _INSERT_HIGHLIGHT, (book_id, str(start), str(end), first.ordinal, color, note, text, made, stamp, uid)
            )
            if journal:
                self._journal_highlight(conn, book_id, uid, True, str(start), str(end), color, note)
        return self.highlight(inserted_id(cursor))

    def add_highlights(self, book_id: int, wanted: list[tuple[str, Locator, Locator, str, str]]) -> list[str]:
        """Many highlights made elsewhere, each ``(uid, start, end, color, note)``, as sync brings them: the book's
        text read once and one transaction for all (one by one, 10,000 took 2.5 s). Nothing is journaled (they
        are not this reader's act). Returns what could not be placed, one line each; the others are added."""
        read = self.conn.execute(  # a light read of the whole book: no section titles, no page labels
            "SELECT section_idx, idx, ordinal, text FROM segments WHERE book_id = ? ORDER BY ordinal", (book_id,)
        )
        segments = [PlacedText(Locator(section, idx), ordinal, text) for section, idx, ordinal, text in read]
        at = {(s.locator.section, s.locator.segment): s for s in segments}
        position = {s.ordinal: i for i, s in enumerate(segments)}
        rows, problems, stamp = [], [], now()
        for uid, start, end, color, note in wanted:
            try:
                _check(color, note)
                first, last = at.get((start.section, start.segment)), at.get((end.section, end.segment))
                for locator, segment in ((start, first), (end, last)):
                    if segment is None:
                        raise LocatorError(f"{locator} is outside this book")
                    if locator.offset is not None and locator.offset > len(segment.text):
                        raise LocatorError(f"locator {locator}: its segment has only {len(segment.text)} characters")
                assert first is not None and last is not None  # for mypy: checked just above
                _check_order(start, end)
                span = segments[position[first.ordinal] : position[last.ordinal] + 1]
                text = _check_text(_covered(span, start, end, first.ordinal, last.ordinal), start, end)
            except QuireError as error:
                problems.append(str(error))
                continue
            rows.append((book_id, str(start), str(end), first.ordinal, color, note, text, stamp, stamp, uid))
        with self.library.transaction() as conn:
            conn.executemany(_INSERT_HIGHLIGHT, rows)
        return problems

    def _journal_highlight(
        self,
        conn: sqlite3.Connection,
        book_id: int,
        uid: str,
        present: bool,
        start: str,
        end: str,
        color: str,
        note: str,
    ) -> None:
        value = {"present": present, "start": start, "end": end, "color": color, "note": note}
        sync_store.record(conn, f"highlight/{_content_hash(conn, book_id)}/{uid}", value)

    def passage_text(self, book_id: int, start: Locator, end: Locator) -> str:
        """The text between two locators, segments joined by newlines."""
        first = self.library.segment(book_id, start)
        last = self.library.segment(book_id, end)
        segments = self.library.segments(book_id, first.ordinal, last.ordinal - first.ordinal + 1)
        return _covered(segments, start, end, first.ordinal, last.ordinal)

    def highlight(self, highlight_id: int) -> Highlight:
        """One highlight by id."""
        row = self.conn.execute("SELECT * FROM highlights WHERE id = ?", (highlight_id,)).fetchone()
        if row is None:
            raise QuireError(f"no highlight with id {highlight_id}")
        return _highlight(row)

    def highlights(self, book_id: int | None = None) -> list[Highlight]:
        """Highlights of one book in reading order, or of the whole library."""
        if book_id is None:
            rows = self.conn.execute("SELECT * FROM highlights ORDER BY book_id, start_ordinal, id")
        else:
            rows = self.conn.execute(
                "SELECT * FROM highlights WHERE book_id = ? ORDER BY start_ordinal, id", (book_id,)
            )
        return [_highlight(r) for r in rows]

    def update_highlight(
        self, highlight_id: int, *, note: str | None = None, color: str | None = None, journal: bool = True
    ) -> Highlight:
        """Change a highlight's note or colour."""
        current = self.highlight(highlight_id)
        note = current.note if note is None else note
        color = color or current.color
        _check(color, note)
        with self.library.transaction() as conn:
            conn.execute(
                "UPDATE highlights SET note = ?, color = ?, updated_at = ? WHERE id = ?",
                (note, color, now(), highlight_id),
            )
            if journal:
                start, end = str(current.start), str(current.end)
                self._journal_highlight(conn, current.book_id, current.uid, True, start, end, color, note)
        return self.highlight(highlight_id)

    def remove_highlight(self, highlight_id: int, *, journal: bool = True) -> None:
        """Delete a highlight (a tombstone for sync, so other devices delete it too)."""
        with self.library.transaction() as conn:
            row = _take(conn, "highlights", highlight_id)
            if row is not None and journal:
                gone = _highlight(row)
                start, end = str(gone.start), str(gone.end)
                self._journal_highlight(conn, gone.book_id, gone.uid, False, start, end, gone.color, gone.note)

    # -- tags ---------------------------------------------------------------------------------
    def tag(self, book_id: int, tag: str, *, journal: bool = True) -> None:
        """Add a tag to a book."""
        self.library.get(book_id)
        if not tag.strip():
            raise QuireError("a tag cannot be empty")
        self._tagged(book_id, tag.strip(), True, journal)

    def untag(self, book_id: int, tag: str, *, journal: bool = True) -> None:
        """Remove a tag from a book."""
        self._tagged(book_id, tag.strip(), False, journal)

    def _tagged(self, book_id: int, tag: str, present: bool, journal: bool) -> None:
        with self.library.transaction() as conn:
            if present:
                changed = conn.execute("INSERT OR IGNORE INTO book_tags VALUES (?, ?)", (book_id, tag)).rowcount
            else:
                changed = conn.execute("DELETE FROM book_tags WHERE book_id = ? AND tag = ?", (book_id, tag)).rowcount
            if journal and changed:
                key = f"tag/{_content_hash(conn, book_id)}/{urllib.parse.quote(tag, safe='')}"
                sync_store.record(conn, key, {"present": present})

    def all_tags(self) -> list[str]:
        """Every tag used in the library."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT tag FROM book_tags ORDER BY tag")]


def _highlight(row: sqlite3.Row) -> Highlight:
    return Highlight(
        row["id"], row["book_id"], parse_locator(row["start_locator"]), parse_locator(row["end_locator"]),
        row["color"], row["note"], row["text"], row["created_at"], row["uid"] or "",
    )  # fmt: skip


def _take(conn: sqlite3.Connection, table: str, row_id: int) -> sqlite3.Row | None:
    """Delete one bookmark or highlight, returning the row it was (None when there was none)."""
    row: sqlite3.Row | None = conn.execute(f"SELECT * FROM {table} WHERE id = ?", (row_id,)).fetchone()
    if row is not None:
        conn.execute(f"DELETE FROM {table} WHERE id = ?", (row_id,))
    return row


def _content_hash(conn: sqlite3.Connection, book_id: int) -> str:
    row = conn.execute("SELECT content_hash FROM books WHERE id = ?", (book_id,)).fetchone()
    if row is None:
        raise QuireError(f"no book with id {book_id} in the library")
    return str(row[0])


_INSERT_HIGHLIGHT = """INSERT INTO highlights (book_id, start_locator, end_locator, start_ordinal, color, note, text,
    created_at, updated_at, uid) VALUES (?,?,?,?,?,?,?,?,?,?)"""


def _covered(segments: Sequence[Spannable], start: Locator, end: Locator, first: int, last: int) -> str:
    """The text from ``start`` to ``end`` in these segments (ordinals ``first`` to ``last``), joined by newlines."""
    return "\n".join(segment.text[a:b] for segment, a, b in slices(segments, start, end, first, last))


def _check_order(start: Locator, end: Locator) -> None:
    if end < start:
        raise LocatorError(f"the highlight ends ({end}) before it starts ({start})")


def _check_text(text: str, start: Locator, end: Locator) -> str:
    if not text.strip():
        raise LocatorError(f"nothing to highlight between {start} and {end}")
    return text


def _check(color: str, note: str) -> None:
    if color not in HIGHLIGHT_COLORS:
        raise QuireError(f"unknown colour '{color}': choose one of {', '.join(HIGHLIGHT_COLORS)}")
    if len(note) > MAX_NOTE_CHARS:
        raise QuireError(f"a note can hold up to {MAX_NOTE_CHARS:,} characters: split it, or keep it elsewhere")


def _position(row: sqlite3.Row) -> Position:
    furthest = row["furthest_locator"]
    return Position(
        parse_locator(row["locator"]),
        row["ordinal"],
        row["percent"],
        row["reading_seconds"],
        row["updated_at"],
        parse_locator(furthest) if furthest else None,
        row["furthest_ordinal"] if furthest else -1,
        row["furthest_percent"] if furthest else 0.0,
    )
