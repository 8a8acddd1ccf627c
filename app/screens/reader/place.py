"""Where the reader is in the open book: saving the place with the reading time, the percentages, and moving the
furthest place read by hand ("I've read up to here", "I haven't read past here")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from core import OpenBook, ReadingTracker, SegmentRecord

IDLE_CAP_SECONDS = 300  # longer pauses do not count as reading time
SLOWEST_CHARS_PER_SECOND = 4.0  # a page is read in at most its length at this pace; longer, the reader was away
PICTURE_SECONDS = 60  # a page with no text (a picture) counts this much at most


class PlacedPage(Protocol):
    """What the place needs of the reader: the segment at the place, and the judge of what counts as reading."""

    current: SegmentRecord | None
    tracker: ReadingTracker


class ReadingPlace:
    """``reader.place``: the saved place of the open book (the spoiler fence moves only through ``save(reading=True)``
    and the two deliberate marks)."""

    def __init__(self, book: OpenBook, page: PlacedPage, clock: Callable[[], float]) -> None:
        self.book = book
        self.page = page
        self.clock = clock
        self.last_activity = clock()
        self.last_saved = float("-inf")  # when the place was last saved (scrolling saves at most once a second)
        self._banked = 0.0  # time on the page shown before the reader turned away from it (a panel, the background)
        self._away: set[str] = set()  # why the page is not being read now ("panel", "background")

    def away(self, reason: str, now_away: bool) -> None:
        """The reader turned from the page (``now_away``: a panel over it, the app in the background) or back to it:
        the time away is not reading time."""
        now = self.clock()
        if now_away and reason not in self._away:
            if not self._away:
                self._banked += now - self.last_activity
            self._away.add(reason)
        elif not now_away and reason in self._away:
            self._away.discard(reason)
            if not self._away:
                self.last_activity = now

    def save(self, reading: bool = False, passed: int | None = None, *, still: bool = False) -> None:
        """Remember the place; with ``passed``, add the time the page was read to the book's reading time.

        ``reading``: the move here was reading (``core.library.reading``), so the furthest place may rise.
        ``passed``: the characters of text the move went past at a reading pace (a page turned after it was shown
        long enough); its time (away from the page not counted) counts up to what a slow reader would need for
        them, and so the reader's speed comes from pages read only. Any other save (a jump, a page back, a skim,
        closing the book, the app pausing, reading aloud) counts no time and drops the time since the last one;
        ``still`` (a scroll inside one paragraph) keeps it running for the move that passes the paragraph.
        """
        now = self.clock()
        seconds = 0.0
        if not still:
            spent = self._banked + (0.0 if self._away else now - self.last_activity)
            self._banked, self.last_activity = 0.0, now
            if passed is not None:
                most = passed / SLOWEST_CHARS_PER_SECOND if passed > 0 else PICTURE_SECONDS
                seconds = max(0.0, min(spent, IDLE_CAP_SECONDS, most))
        self.last_saved = now
        current = self.page.current
        if current is not None:
            self.book.save_position(current.locator, read_seconds=seconds, reading=reading, read_chars=passed or 0)

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
        position = self.book.position()
        return (position.percent, position.furthest_percent) if position else (0.0, 0.0)

    def read_up_to_here(self) -> None:
        """ "I haven't read past here": the furthest place moves back to the current one."""
        self.book.set_furthest(None)
        current = self.page.current
        self.page.tracker.set_furthest(current.ordinal if current else 0)

    def read_to_here(self) -> None:
        """ "I've read up to here": the furthest place moves on to the current one (after a jump, say)."""
        current = self.page.current
        assert current is not None
        self.book.set_furthest(current.locator)
        self.page.tracker.set_furthest(current.ordinal)
