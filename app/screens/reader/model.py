"""View-model of the reader: a window of segments around the place, navigation, position and reading time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from app.screens.reader.images import BookImages
from app.screens.reader.notes import NAME, Mark, PageNotes
from app.screens.reader.pagination import PageBox, Pages, Slice, segment_height
from app.screens.reader.place import ReadingPlace
from app.screens.reader.search import BookSearch
from core import (
    Bookmark,
    Description,
    Locator,
    LocatorError,
    Quire,
    ReadingTracker,
    SearchHit,
    SegmentRecord,
    TocRow,
    XrayEntry,
    parse_locator,
    slices,
)

if TYPE_CHECKING:
    from app.screens.reader.intents import CorrectXray

WINDOW = 80  # segments rendered at once: long chapters never build thousands of controls
PAGE = 12  # segments per page in paginated mode
GROW = 40  # scroll mode: segments added below the window as the reader nears its end
SCROLL_PADDING = 16.0  # scroll mode: the list's padding above its first segment (reader_page)
PREVIOUSLY_AFTER = timedelta(days=3)  # a book reopened after this long offers "Previously…"
MAX_WINDOW = 600  # scroll mode: the window grows to this many segments, then "Continue reading" starts a new one


@dataclass(frozen=True, slots=True)
class Shown:
    """What the reader screen draws that lives in the library, read by ``refresh()`` before drawing."""

    marks: list[Mark]
    toc: list[TocRow]
    bookmark: Bookmark | None  # the bookmark on the current segment
    percents: tuple[float, float]  # (where the reader is, how much is read)
    left: tuple[float, float] | None = None  # minutes left in the chapter and the book, at the reader's speed


class ReaderViewModel:
    """One open book. Views render ``visible`` and call the navigation methods; nothing else."""

    def __init__(self, quire: Quire, book_id: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.quire = quire
        self.opened = quire.open(book_id)  # the book named once: its text, places and X-Ray read by its id
        self.book = self.opened.record
        self.clock = clock
        self.visible: list[SegmentRecord] = []
        self.current: SegmentRecord | None = None
        self.xray: list[XrayEntry] = []  # the X-Ray panel's entries, read by read_xray() when it is open
        self._xray_bound: int | None = None  # the furthest place they were read for
        self.xray_focus = ""  # the entry "Who is this?" opened (drawn first, open)
        self.xray_lines: dict[str, Description] = {}  # the AI's line per entry name, when asked for
        self.xray_scanning = False  # names are being found in the text read since (in the background)
        self.xray_hidden: list[str] = []  # the names the reader hid from X-Ray (each can be shown again)
        self.name_links = False  # the names X-Ray knows are underlined in the page (the reader's setting)
        self.reads_names = quire.companion.reads_names(self.book.id)  # X-Ray reads its language (not Japanese yet)
        self._name_marks: tuple[list[XrayEntry], dict[int, list[Mark]]] = ([], {})  # by segment, for these entries
        self.previously = False  # reopened after days away: "Previously…" offers the story so far
        self.search_marks: list[Mark] = []  # the words of the search hit or citation opened
        self.aloud: Mark | None = None  # the sentence being read aloud
        self.translations: dict[int, str] = {}  # ordinal -> its translation, drawn under the paragraph
        self.notes = PageNotes(quire, self.book.id, self)  # bookmarks, selection, highlights
        self.finder = BookSearch(quire, self.book.id)  # the reader's own search in this book
        self.return_to: Locator | None = None  # where the reader was before the last jump
        self.offset = 0  # paginated mode: the page starts this many characters into the current segment
        self.box: PageBox | None = None  # paginated mode: the measured text box (None: scroll mode)
        self.pages: Pages | None = None  # paginated mode: where pages start, for this box
        self.scroll_box: PageBox | None = None  # scroll mode: the text's width and typography (heights are measured)
        self._heights: dict[int, float] = {}  # scroll mode: ordinal -> drawn height, for ``_heights_for``
        self._heights_for: PageBox | None = None
        self._firsts: dict[int, int] = {}  # section -> its first ordinal
        self._toc: list[TocRow] | None = None
        self.in_part = quire.text.read_in_part(book_id)  # a long PDF's first pages only: (read, in all)
        self.rest_read: tuple[int, int] | None = None  # how far its rest is read now, as of the last refresh()
        self.printed_pages = self.opened.printed_pages()  # a text PDF's pages that page view can draw (0: none)
        self.page_view = False  # showing the PDF's page as printed instead of the reflowed text
        self.pdf_page = 0  # page view: the page shown (from 0)
        self.pdf_page_label: str | None = None  # page view: what the page shown calls itself ("13"), read in refresh
        self._paged: int | None = None  # the ordinal page view last moved to (another one: the reader jumped)
        self.shown = Shown([], [], None, (0.0, 0.0))
        self.tracker = ReadingTracker(0, -1, clock)  # replaced by open(), from the saved places
        self.place = ReadingPlace(self.opened, self, clock)  # saving the place, percentages, the fence
        self.images = BookImages(quire, self.book.id)  # pictures and printed pages, kept for the pages in view
        self._return_on_track = True  # whether the place "Back to where you were" leads to was reached by reading
        self._consulted: tuple[int, int] | None = None  # scroll mode: the place the tracker last judged

    # -- opening and moving -------------------------------------------------------------------
    def open(self) -> SegmentRecord:
        """Show the saved position (exactly), or the start of the book; after days away, offer the story so far."""
        position = self.opened.position()
        self.previously = position is not None and position.furthest_ordinal > 0 and _away(position.updated_at)
        shown = self.go_to(position.locator if position else Locator(0, 0), save=False)
        self.tracker = ReadingTracker(shown.ordinal, position.furthest_ordinal if position else -1, self.clock)
        return shown

    def go_to(self, locator: Locator | str, *, save: bool = True, jump: bool = True) -> SegmentRecord:
        """Go to a locator: a jump (the contents, a bookmark, a search hit, a citation) unless ``jump`` is False.

        A jump moves the current place only, never the furthest place read (so neither "% read" nor the spoiler
        bound drops), and remembers where the reader was, for "Back to where you were": the place before the
        first of several jumps, until the reader goes back.
        """
        place = parse_locator(locator) if isinstance(locator, str) else locator
        target = self.opened.show(place)[0]
        if jump and save and self.return_to is None and self.current is not None and self.current != target:
            self.return_to = self.current.locator  # kept through further jumps: back leads to where they were
            self._return_on_track = self.tracker.on_track
        before = self.page_start if self.current is not None else None
        # The window starts at the target, so it is at the top of the screen; earlier text is one tap away.
        self.visible = self.opened.segments(target.ordinal, WINDOW)
        self.current = target
        # A page that starts inside a paragraph (turning pages, reopening the book) keeps its offset; a jump shows
        # its paragraph from the start.
        self.offset = min(place.offset or 0, len(target.text)) if (not jump or not save) else 0
        if save:
            self.place.save(*self._reading(before, jump))
        self._consulted = self.page_start  # scroll mode judges later scrolling from here
        return target

    def _reading(self, before: tuple[int, int] | None, jump: bool) -> tuple[bool, int | None]:
        """Whether the move just made is reading (``core.library.reading``): only then may the furthest place rise;
        and the characters it went past when they were shown long enough to be read (None: not read)."""
        if before is None or self.current is None:
            return False, None
        if jump:
            self.tracker.jumped(self.current.ordinal)
            return False, None
        after = self.page_start
        if after <= before:
            self.tracker.moved_back(self.current.ordinal)
            return False, None
        passed = self._chars_between(before, after)
        reading = self.tracker.moved_on(self.current.ordinal, passed)
        self._settle()
        return reading, passed if self.tracker.paced else None

    def _settle(self) -> None:
        """Once the reader reads on from where a jump led, "Back to where you were" goes."""
        if self.return_to is not None and self.tracker.settled:
            self.return_to = None

    def _chars_between(self, start: tuple[int, int], end: tuple[int, int]) -> int:
        """How many characters of text lie from ``start`` to ``end`` ((ordinal, offset) each): what was passed."""
        (first, skip), (last, into) = start, end
        if last - first > 2_000:  # far beyond any page: more than anyone reads at once
            return 10**9
        passed = self.opened.segments(first, last - first) if last > first else []
        return max(0, sum(len(segment.text) for segment in passed) - skip + into)

    def go_back(self) -> SegmentRecord | None:
        """Back to where the reader was before the last jump (None: there was no jump)."""
        place, self.return_to = self.return_to, None
        if place is None:
            return None
        record = self.go_to(place, save=False, jump=False)
        self.tracker.jumped(record.ordinal)
        self.tracker.on_track = self.tracker.on_track or self._return_on_track  # reading on from where they were
        self.place.save(reading=False)
        return record

    def go_to_place(self, text: str) -> SegmentRecord:
        """Jump to what the reader typed: a percentage ("40%") or a locator ("12.3"); LocatorError if neither."""
        text = text.strip()
        if text.endswith("%"):
            try:
                percent = float(text[:-1])
            except ValueError:
                raise LocatorError(f"'{text}' is not a percentage: write it like 40%") from None
            ordinal = round(min(max(percent, 0.0), 100.0) / 100 * (self.book.segment_count - 1))
            return self.go_to(self.opened.segments(ordinal, 1)[0].locator)
        return self.go_to(text)

    def scrolled(self, fraction: float, pixels: float | None = None) -> None:
        """Scroll mode: the list was scrolled ``pixels`` down (``fraction`` of its length); remember the segment at
        the top of the screen.

        With ``pixels`` and the text's box, the segment is found by the measured heights of those above it; the
        fraction alone is a guess (a long list's length is an estimate until it is all drawn, and it grows as the
        reader reads on). Saved at most once a second, so a fling does not write to the database on every frame.
        """
        if not self.visible:
            return
        if pixels is not None and self.scroll_box is not None:
            self.current = self._segment_at(pixels, self.scroll_box)
        else:
            index = min(int(fraction * len(self.visible)), len(self.visible) - 1)
            self.current = self.visible[max(0, index)]
        self.offset = 0
        if self.clock() - self.place.last_saved >= 1.0:
            self._scrolled_to()

    def _segment_at(self, pixels: float, box: PageBox) -> SegmentRecord:
        """The segment at ``pixels`` down the scroll list (its padding and gaps as reader_page draws them)."""
        if self._heights_for != box:
            self._heights, self._heights_for = {}, box
        top = SCROLL_PADDING
        for segment in self.visible:
            if segment.ordinal not in self._heights:
                self._heights[segment.ordinal] = segment_height(segment, box, self.images.size)
            bottom = top + self._heights[segment.ordinal]
            if bottom > pixels + box.font_size:  # its last line is still on screen, below the top edge
                return segment
            top = bottom + box.spacing
        return self.visible[-1]

    def _scrolled_to(self) -> None:
        """Save the place scrolled to; scrolling forward at a reading pace from a place read is reading."""
        assert self.current is not None
        here = (self.current.ordinal, 0)
        before, self._consulted = self._consulted, here
        if before is None or here == before:
            self.place.save(still=before is not None)  # still in the paragraph: its time runs on
        elif here < before:
            self.tracker.moved_back(here[0])
            self.place.save()
        else:
            passed = self._chars_between(before, here)
            reading = self.tracker.moved_on(here[0], passed)
            self.place.save(reading, passed if self.tracker.paced else None)
            self._settle()

    # -- pages laid out by measured text --------------------------------------------------------
    def set_box(self, box: PageBox | None) -> None:
        """Paginated mode: the text box pages are laid out in (None: scroll mode). A new size lays out anew."""
        if box != self.box:
            self.box = box
            self.pages = None if box is None else Pages(box, self._fetch, self._first_ordinal, self.images.size)

    @property
    def page_start(self) -> tuple[int, int]:
        """Where the page shown starts: (ordinal, character offset)."""
        assert self.current is not None, "open() first"
        return self.current.ordinal, self.offset

    def page(self) -> list[Slice]:
        """The page that starts at the current place: what fits the box, ending at a line break."""
        return self._layout()[0]

    def _layout(self) -> tuple[list[Slice], tuple[int, int] | None]:
        """The current page and where the next starts (drawing and turning both need it)."""
        assert self.pages is not None and self.current is not None, "set_box() first"
        return self.pages.page(self.page_start, self.current.locator.section)

    def _fetch(self, ordinal: int, count: int) -> list[SegmentRecord]:
        return self.opened.segments(ordinal, count) if ordinal < self.book.segment_count else []

    def _turn_to(self, start: tuple[int, int]) -> SegmentRecord:
        ordinal, offset = start
        record = self.opened.segments(ordinal, 1)[0]
        self.go_to(record.locator.at(offset) if offset else record.locator, jump=False)
        return record

    def _first_ordinal(self, section: int) -> int:
        """Where a section starts in reading order (kept: a long chapter is not read again per page turn)."""
        if section not in self._firsts:
            self._firsts[section] = self.opened.section(section)[0].ordinal
        return self._firsts[section]

    def load_more(self, forward: bool) -> None:
        """Scroll mode: continue the window after its last segment (or before its first)."""
        if not self.visible:
            return
        edge = self.visible[-1] if forward else self.visible[0]
        if (forward and edge.ordinal >= self.book.segment_count - 1) or (not forward and edge.ordinal == 0):
            return
        start = edge.ordinal if forward else max(0, edge.ordinal - WINDOW + 1)
        self.visible = self.opened.segments(start, WINDOW)
        self.current = edge
        self.offset = 0
        self._scrolled_to()

    def extend(self) -> list[SegmentRecord]:
        """Scroll mode: the segments after the window, added to it (the reader scrolls on through chapters);
        [] at the book's end, or when the window is full (then "Continue reading" starts a new one)."""
        if not self.visible or len(self.visible) >= MAX_WINDOW or self.at_end:
            return []
        added = self.opened.segments(self.visible[-1].ordinal + 1, GROW)
        self.visible = self.visible + added
        for segment in added:
            if segment.kind == "image":
                self.images.of(segment)
        names = self.name_marks(s.ordinal for s in self.visible) if self.name_links else []
        self.shown = replace(self.shown, marks=self.notes.marks() + names)
        return added

    @property
    def window_full(self) -> bool:
        """Scroll mode: the window holds as many segments as it may (scrolling on needs "Continue reading")."""
        return len(self.visible) >= MAX_WINDOW

    @property
    def pictures(self) -> bool:
        """A book of pictures only (a comic, a scan): a step is one picture, and the words say "pages"."""
        return self.book.char_count == 0

    @property
    def at_start(self) -> bool:
        return bool(self.visible) and self.visible[0].ordinal == 0

    @property
    def at_end(self) -> bool:
        return bool(self.visible) and self.visible[-1].ordinal >= self.book.segment_count - 1

    # -- page view (text PDFs, where pages can be drawn) ---------------------------------------
    def set_page_view(self, on: bool) -> None:
        """Show the PDF's pages as printed (``on``) or its reflowed text; the place is kept either way."""
        self.page_view = on and self.printed_pages > 0
        self._paged = None
        self._follow_place()

    def _follow_place(self) -> None:
        """Page view shows the page the current place is on, unless page view itself moved there."""
        if self.page_view and self.current is not None and self.current.ordinal != self._paged:
            self.pdf_page = self.opened.page_of(self.current.ordinal)
            self._paged = self.current.ordinal

    def _turn_printed_page(self, step: int) -> SegmentRecord:
        assert self.current is not None
        self._follow_place()
        self.pdf_page = min(max(self.pdf_page + step, 0), self.printed_pages - 1)
        first = self.opened.page_start(self.pdf_page)
        if first is not None and first.ordinal != self.current.ordinal:  # a page without text keeps the place
            self.go_to(first.locator, jump=False)
        self._paged = self.current.ordinal
        return self.current

    def next_page(self) -> SegmentRecord:
        """The next page: where the measured page ends (paginated), or a run of segments further (scroll)."""
        if self.page_view:
            return self._turn_printed_page(1)
        if self.box is None:
            return self._move(1 if self.pictures else PAGE)
        _, following = self._layout()
        if following is None or following[0] >= self.book.segment_count:
            assert self.current is not None
            return self.current  # the last page
        return self._turn_to(following)

    def previous_page(self) -> SegmentRecord:
        if self.page_view:
            return self._turn_printed_page(-1)
        if self.box is None:
            return self._move(-1 if self.pictures else -PAGE)
        assert self.pages is not None and self.current is not None
        before = self.pages.before(self.page_start, self.current.locator.section)
        if before is None:
            assert self.current is not None
            return self._turn_to((0, 0)) if self.page_start != (0, 0) else self.current
        return self._turn_to(before)

    def _move(self, step: int) -> SegmentRecord:
        assert self.current is not None, "open() first"
        ordinal = min(max(0, self.current.ordinal + step), self.book.segment_count - 1)
        record = self.opened.segments(ordinal, 1)[0]
        return self.go_to(record.locator, jump=False)

    def refresh(self) -> Shown:
        """Read what the reader screen is about to draw (marks, contents, the bookmark here, the percentages,
        the page and its pictures), so that drawing reads nothing from the library."""
        if self.page_view:
            self._follow_place()
            self.images.printed_page(self.pdf_page)
            self.pdf_page_label = self.opened.printed_label(self.pdf_page)
        else:
            segments = [piece.segment for piece in self.page()] if self.box is not None else self.visible
            for segment in segments:
                if segment.kind == "image":
                    self.images.of(segment)
        if self.in_part is not None:
            self.rest_read = self.quire.text.reading_progress(self.book.id)
        marks = self.notes.marks() + ([self.aloud] if self.aloud is not None else [])
        if self.name_links and not self.page_view:
            marks += self.name_marks(segment.ordinal for segment in segments)
        left = self.opened.minutes_left(self.current.ordinal) if self.current else None
        self.shown = Shown(marks, self.toc(), self.notes.current_bookmark(), self.place.percents(), left)
        return self.shown

    # -- where the reader is ------------------------------------------------------------------
    @property
    def chapter_title(self) -> str:
        return self.current.section_title if self.current else ""

    def xray_waiting(self) -> bool:
        """Whether the X-Ray for the furthest place must first tag Chinese text read since (seconds a few chapters:
        the controller reads it in the background then, and the panel says it is finding the names). Other books'
        names are found in a blink (all of Moby-Dick: 0.3 s), and read at once."""
        if self.book.language.split("-")[0].lower() not in ("zh", "ja", "ko"):
            return False
        position = self.opened.position()
        bound = position.furthest_ordinal if position is not None else -1
        return bound != self._xray_bound and self.opened.xray_needs_scan()

    def read_xray(self) -> list[XrayEntry]:
        """The names the book has used up to the furthest place read (the X-Ray panel draws these); read again only
        when that place has moved (each page turn redraws the open panel)."""
        position = self.opened.position()
        bound = position.furthest_ordinal if position is not None else -1
        if bound != self._xray_bound:
            if self._xray_bound is None:  # the first X-Ray of this book opened, or a correction: what was hidden
                self.xray_hidden = [c.name for c in self.quire.companion.corrections(self.book.id) if c.hide]
            self.xray, self._xray_bound = self.opened.xray(), bound
            self.xray_lines = {}  # written from the sentences before the old place: asked again for the new one
        return self.xray

    def vertical(self, writing: str) -> bool:
        """Whether the book is drawn in vertical columns: a Chinese, Japanese or Korean book, as it is set
        (``writing`` "book": the EPUB says vertical-rl) or as the reader chose ("vertical"; "horizontal" never);
        never a comic, nor a PDF's printed pages."""
        if self.pictures or self.page_view or self.book.language.split("-")[0].lower() not in ("zh", "ja", "ko"):
            return False
        return writing == "vertical" or (writing == "book" and self.book.writing_mode == "vertical-rl")

    def name_marks(self, ordinals: Iterable[int]) -> list[Mark]:
        """Underlines for the names X-Ray knows in these segments: its entries' mentions, which stop at the
        furthest place read, so nothing past it is underlined (a name met before and used again past the place is
        not). None while a Chinese book's names are still to be found (that runs in the background)."""
        if self.xray_waiting():
            return []
        entries = self.read_xray()
        if self._name_marks[0] is not entries:  # X-Ray read again (the place moved, a correction): index it
            by_segment: dict[int, list[Mark]] = {}
            for entry in entries:
                for m in entry.places:
                    start = m.locator.offset or 0
                    by_segment.setdefault(m.ordinal, []).append(
                        Mark(m.ordinal, start, start + len(m.text), NAME, name=entry.name)
                    )
            self._name_marks = (entries, by_segment)
        by_segment = self._name_marks[1]
        return [mark for ordinal in ordinals for mark in by_segment.get(ordinal, [])]

    def correct_xray(self, said: CorrectXray) -> list[XrayEntry]:
        """Keep the reader's correction of X-Ray on one name, and read X-Ray again; XrayCorrectionError when it
        cannot be kept."""
        self.quire.companion.correct(
            self.book.id, said.name, hide=said.hide, into=said.into, rename=said.rename, kind=said.kind, add=said.add
        )
        self._xray_bound = None  # read again, with what is hidden now
        return self.read_xray()

    def forget_correction(self, name: str) -> list[XrayEntry]:
        """Take back what the reader said of a name, and read X-Ray again."""
        self.quire.companion.forget_correction(self.book.id, name)
        self._xray_bound = None
        return self.read_xray()

    def who_is(self, text: str) -> XrayEntry | None:
        """The X-Ray entry a selected name belongs to ("Holmes", "Mr. Holmes's"), up to the furthest place read;
        it becomes the panel's focus. None: the book has not named it so far."""
        wanted = " ".join(text.replace("’", "'").removesuffix("'s").split()).casefold()
        found = next(
            (
                e
                for e in self.read_xray()
                if any(wanted in (v.casefold(), v.casefold().split()[-1]) for v in e.variants)
            ),
            None,
        )
        self.xray_focus = found.name if found else ""
        return found

    def toc(self) -> list[TocRow]:
        if self._toc is None:  # a book's contents do not change while it is open
            self._toc = self.opened.toc()
        return self._toc

    # -- opening what was found or cited -------------------------------------------------------
    def open_citation(self, first: Locator, last: Locator) -> SegmentRecord:
        """Open the book at a cited passage and mark the quoted words (they may run over several segments)."""
        record = self.go_to(first.segment_locator)
        last_ordinal = self.opened.ordinal_of(last.segment_locator)
        found = slices(self.visible, first, last, record.ordinal, last_ordinal)
        self.search_marks = [Mark(segment.ordinal, a, b, "search") for segment, a, b in found]
        return record

    def open_hit(self, hit: SearchHit, query: str) -> SegmentRecord:
        """Jump to a search hit and mark every match in its paragraph, each whole."""
        record = self.go_to(hit.locator.segment_locator)
        offset = hit.locator.offset or 0
        spans = hit.spans or ((offset, offset + len(query)),)
        self.search_marks = [Mark(record.ordinal, a, b, "search") for a, b in spans]
        return record


def _away(updated_at: str, now: datetime | None = None) -> bool:
    """Whether the book was last read ``PREVIOUSLY_AFTER`` or longer ago (an unreadable time: no)."""
    try:
        then = datetime.fromisoformat(updated_at)
    except ValueError:
        return False
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return (now or datetime.now(UTC)) - then >= PREVIOUSLY_AFTER
