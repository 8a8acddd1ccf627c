"""Where the reader is in the open book: saving the place with the reading time, the percentages, and moving the
furthest place read by hand ("I've read up to here", "I haven't read past here")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from core import Quire, ReadingTracker, SegmentRecord

IDLE_CAP_SECONDS = 300  # longer pauses do not count as reading time


class PlacedPage(Protocol):
    """What the place needs of the reader: the segment at the place, and the judge of what counts as reading."""

    current: SegmentRecord | None
    tracker: ReadingTracker


class ReadingPlace:
    """``reader.place``: the saved place of the open book (the spoiler fence moves only through ``save(reading=True)``
    and the two deliberate marks)."""

    def __init__(self, quire: Quire, book_id: int, page: PlacedPage, clock: Callable[[], float]) -> None:
        self.quire = quire
        self.book_id = book_id
        self.page = page
        self.clock = clock
        self.last_activity = clock()
        self.last_saved = float("-inf")  # when the place was last saved (scrolling saves at most once a second)

    def save(self, reading: bool = False) -> None:
        """Remember the place and add the reading time since the last activity (pauses capped).

        ``reading``: the move here was reading (``core.library.reading``), so the furthest place may rise. Closing
        the book, the app pausing and every jump save the place only.
        """
        now = self.clock()
        spent = min(now - self.last_activity, IDLE_CAP_SECONDS)
        self.last_activity = self.last_saved = now
        current = self.page.current
        if current is not None:
            self.quire.save_position(self.book_id, current.locator, read_seconds=max(0.0, spent), reading=reading)

    @property
    def percent(self) -> float:
        """How much of the book has been read: the furthest place, which a jump back does not lower."""
        return self.percents()[1]

    @property
    def current_percent(self) -> float:
        """Where the reader is now, as a percentage of the book."""
        return self.percents()[0]

    def percents(self) -> tuple[float, float]:
        """(where the reader is, how much is read) as percentages, from one read of the saved position."""
        position = self.quire.position(self.book_id)
        return (position.percent, position.furthest_percent) if position else (0.0, 0.0)

    def read_up_to_here(self) -> None:
        """ "I haven't read past here": the furthest place moves back to the current one."""
        self.quire.set_furthest(self.book_id, None)
        current = self.page.current
        self.page.tracker.set_furthest(current.ordinal if current else 0)

    def read_to_here(self) -> None:
        """ "I've read up to here": the furthest place moves on to the current one (after a jump, say)."""
        current = self.page.current
        assert current is not None
        self.quire.set_furthest(self.book_id, current.locator)
        self.page.tracker.set_furthest(current.ordinal)
