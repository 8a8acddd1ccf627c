"""One book opened for reading (``quire.open``): named once, then its text, places and X-Ray read by its id."""

from __future__ import annotations

from core.books.locator import Locator, parse_locator
from core.companion.xray import XrayEntry
from core.library import Annotations, BookId, BookRecord, Library, Position, SegmentRecord, TocRow
from core.parts.companion import Companion
from core.parts.stats import Stats
from core.parts.text import BookText


class OpenBook:
    """A handle on one book, made by ``quire.open(book)``: the book (a title, a hash prefix, an id) is
    resolved there, once; each call after it is by the book's ``BookId``, which the library only checks is still
    there (one index row), so a book removed by another window is a ``BookNotFoundError``, as before.

    It holds what the reader reads as it turns pages: the text by place, the places (where the reader is, the
    furthest read), the minutes left and X-Ray. Notes, search and the chat stay with their parts.
    """

    def __init__(
        self,
        record: BookRecord,
        library: Library,
        text: BookText,
        annotations: Annotations,
        companion: Companion,
        stats: Stats,
    ) -> None:
        self.record = record  # the book as it was when opened (its title, format, size)
        self.id = BookId(record.id)
        self._library = library
        self._text = text
        self._annotations = annotations
        self._companion = companion
        self._stats = stats
        self._printed_pages: int | None = None

    def _still_there(self) -> BookId:
        """The id, once the library has checked the book is still in it (another window may have removed it)."""
        return self._library.book_id(self.id)

    # -- the text -------------------------------------------------------------------------------
    def toc(self) -> list[TocRow]:
        """The table of contents."""
        return self._text.toc(self.id)

    def segments(self, start_ordinal: int, count: int) -> list[SegmentRecord]:
        """``count`` segments in reading order from a global ordinal."""
        return self._text.segments(self.id, start_ordinal, count)

    def show(self, locator: str | Locator, count: int = 1) -> list[SegmentRecord]:
        """The segment at a locator and the ``count - 1`` that follow it."""
        return self._text.show(self.id, locator, count)

    def ordinal_of(self, locator: str | Locator) -> int:
        """The global ordinal of the segment a locator points at."""
        return self._text.ordinal_of(self.id, locator)

    def section(self, section: int) -> list[SegmentRecord]:
        """Every segment of one section."""
        return self._text.section(self.id, section)

    def printed_pages(self) -> int:
        """How many pages a text PDF's page view can draw (0: none); counted once, when first asked."""
        if self._printed_pages is None:
            self._printed_pages = self._text.printed_pages(self.id)
        return self._printed_pages

    def printed_label(self, page: int) -> str | None:
        """What a PDF page (from 0) calls itself ("13", "xii"); None when unknown."""
        return self._text.printed_label(self.id, page)

    def page_of(self, ordinal: int) -> int:
        """The PDF page (from 0) the segment at ``ordinal`` starts on."""
        return self._text.page_of(self.id, ordinal)

    def page_start(self, page: int) -> SegmentRecord | None:
        """The first segment of text on a PDF page, or None for a page without text."""
        return self._text.page_start(self.id, page)

    # -- the places -----------------------------------------------------------------------------
    def position(self) -> Position | None:
        """Where the reader left the book, and the furthest read (the spoiler bound)."""
        return self._annotations.position(self._still_there())

    def save_position(
        self, locator: str | Locator, read_seconds: float = 0.0, *, reading: bool = True, read_chars: int | None = None
    ) -> Position:
        """Remember where the reader is; ``reading`` raises the furthest place read as well (see
        ``Quire.save_position``)."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._annotations.save_position(
            self._still_there(), locator, read_seconds, reading=reading, read_chars=read_chars
        )

    def set_furthest(self, locator: str | Locator | None = None) -> Position:
        """Move the furthest place read back on purpose; None: to the current place."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._annotations.set_furthest(self._still_there(), locator)

    # -- what the reader is shown beside the text -----------------------------------------------
    def minutes_left(self, ordinal: int) -> tuple[float, float] | None:
        """Minutes left in the chapter and in the book from ``ordinal``, at the reader's speed; None until known."""
        return self._stats.minutes_left(self.id, ordinal)

    def xray(self) -> list[XrayEntry]:
        """The people, places and terms named up to the furthest place read."""
        return self._companion.xray(self.id)

    def xray_needs_scan(self) -> bool:
        """Whether the next X-Ray must first find names in text read since the last (worth a progress note)."""
        return self._companion.xray_needs_scan(self.id)
