"""Reading statistics by book: time, characters, sessions, days and weeks (every device), speeds and time left."""

from __future__ import annotations

from core.library import Library
from core.library.stats import StatsReport, minutes_left, report, section_chars


class Stats:
    """``quire.stats``: what the reader's reading adds up to, in every book or in one."""

    def __init__(self, library: Library) -> None:
        self._library = library
        self._sections: dict[str, dict[int, int]] = {}  # content hash -> characters per section (text never changes)

    def report(self, book: int | None = None, *, weeks: int = 12) -> StatsReport:
        """Totals by book, by day (the reader's local dates) and by week, from every device synced; for one book
        when ``book`` names one. Each book's speed and the time left in it and in its chapter, at that speed."""
        book = self._library.book_id(book) if book is not None else None
        return report(self._library.conn, book, weeks)

    def minutes_left(self, book: int, ordinal: int) -> tuple[float, float] | None:
        """Minutes left in the chapter and in the book from the segment at ``ordinal``, at the reader's own speed
        in this book; None until there is enough reading (two minutes) to tell."""
        book = book if isinstance(book, int) else self._library.book_id(book)
        digest = self._library.book_value(book, "content_hash")  # also the check that it is there: one read
        conn = self._library.conn
        if digest not in self._sections:  # read once per book: the reader asks on every page and scroll
            self._sections[digest] = section_chars(conn, book)
        return minutes_left(conn, book, ordinal, self._sections[digest])
