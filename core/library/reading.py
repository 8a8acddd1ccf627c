"""What counts as reading: the one rule by which the furthest place (the spoiler bound, "% read") rises.

Reading is moving on (a page turn, or scrolling forward) from a place the reader reached by reading, after the
text moved past was shown long enough to be read: at least ``MIN_DWELL_SECONDS``, and at least its length at
``MAX_CHARS_PER_SECOND`` (faster than anyone reads: text passed sooner was skimmed). Only such a move raises the
furthest place, to where it leads.

Nothing else moves it:
- a jump (the contents, Go to, a search hit, a citation, a link, a bookmark, a highlight, another device's place);
- closing the book, going to the library, the app pausing or quitting, a crash: they save the current place only;
- skimming (pages turned faster than the rule above);
- the first pages after a jump or a skim past the furthest place: there, reading resumes only after
  ``RESUME_PAGES`` moves that each pass the rule, so a reader who jumps ahead to look something up and leaves does
  not move the fence, while one who goes on reading there does.
Inside what was read (at or before the furthest place) the reader is always reading on: rereading is reading.
The reader moves the furthest place on purpose: "I've read up to here" raises it, "I haven't read past here"
lowers it (``Annotations.set_furthest``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

MIN_DWELL_SECONDS = 1.5
MAX_CHARS_PER_SECOND = 100.0  # about 1,100 English words a minute; Chinese is read at 5 to 20 characters a second
RESUME_PAGES = 2


class ReadingTracker:
    """Follows one open book, move by move, and says which moves are reading (the furthest place may follow)."""

    def __init__(self, current: int, furthest: int, clock: Callable[[], float] = time.monotonic) -> None:
        """``current`` and ``furthest``: ordinals of the place the book opens at and the furthest place read
        (-1: nothing read yet; the very start of a book is where reading starts)."""
        self.clock = clock
        self.furthest = furthest
        self.on_track = current <= max(furthest, 0)
        self.resumed = 0  # off track: moves that passed the rule since
        self.read_on = 0  # moves that passed the rule since the last jump (the way back is offered until a few)
        self.paced = False  # the last move on was at a reading pace (its text was read, wherever it was)
        self.shown_at = clock()

    def jumped(self, target: int) -> None:
        """A jump: reading goes on from there only inside what was read, or after ``RESUME_PAGES`` read on."""
        self.on_track = target <= max(self.furthest, 0)
        self.resumed = self.read_on = 0
        self.shown_at = self.clock()

    def moved_back(self, target: int) -> None:
        """A page or a scroll back: rereading (never raises the furthest place; the time starts again)."""
        if target <= max(self.furthest, 0):
            self.on_track, self.resumed = True, 0
        self.shown_at = self.clock()

    def moved_on(self, target: int, chars_passed: int) -> bool:
        """A move forward to ordinal ``target`` past ``chars_passed`` characters of text; True when it is reading
        (then the furthest place follows it)."""
        now = self.clock()
        read = now - self.shown_at >= max(MIN_DWELL_SECONDS, chars_passed / MAX_CHARS_PER_SECOND)
        self.shown_at, self.paced = now, read
        if not read:  # skimmed: past the furthest place, the reader is no longer reading on from it
            if target > max(self.furthest, 0):
                self.on_track, self.resumed = False, 0
            return False
        self.read_on += 1
        if not self.on_track:
            self.resumed += 1
            if self.resumed < RESUME_PAGES:
                return False
            self.on_track = True
        self.furthest = max(self.furthest, target)
        return True

    @property
    def settled(self) -> bool:
        """The reader has read on from the last jump's place (``RESUME_PAGES`` moves): "Back to where you were"
        has done its job and can go."""
        return self.read_on >= RESUME_PAGES

    def set_furthest(self, furthest: int) -> None:
        """The reader moved the furthest place on purpose (up or down): reading goes on from the current place."""
        self.furthest, self.on_track, self.resumed = furthest, True, 0
        self.shown_at = self.clock()
