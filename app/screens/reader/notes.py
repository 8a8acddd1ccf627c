"""The open book's bookmarks and highlights: what the reader selected or tapped, and the marks drawn on the page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core import Bookmark, Highlight, Locator, Quire, SegmentRecord, slices


@dataclass(frozen=True, slots=True)
class Mark:
    """A coloured range to draw over a segment's text (a highlight or a search hit)."""

    ordinal: int
    start: int
    end: int
    color: str
    highlight_id: int | None = None  # the highlight this mark draws (None: a search hit)
    name: str = ""  # colour NAME: the X-Ray entry this name belongs to (underlined; a tap opens its card)


NAME = "name"  # the colour of a mark that underlines a name X-Ray knows


@dataclass(frozen=True, slots=True)
class Selection:
    """Text the reader selected inside one segment (characters start to end)."""

    ordinal: int
    start: int
    end: int
    text: str
    joined: bool = False  # made of selections in columns one after another (vertical text)


class OpenPage(Protocol):
    """What the notes need of the reader: the segments drawn, the current one, and the search's own marks."""

    visible: list[SegmentRecord]
    current: SegmentRecord | None
    search_marks: list[Mark]


class PageNotes:
    """``reader.notes``: bookmark the place, select, highlight, and the menu of a tapped highlight."""

    def __init__(self, quire: Quire, book_id: int, page: OpenPage) -> None:
        self.quire = quire
        self.book_id = book_id
        self.page = page
        self.selection: Selection | None = None
        self._joined_to: Selection | None = None  # what a column's selection continues, while it is made
        self.tapped: Highlight | None = None  # the highlight the reader tapped: its menu is shown

    # -- bookmarks ------------------------------------------------------------------------------
    def add_bookmark(self) -> Bookmark:
        assert self.page.current is not None, "open() first"
        return self.quire.notes.add_bookmark(self.book_id, str(self.page.current.locator))

    def bookmarks(self) -> list[Bookmark]:
        return self.quire.notes.bookmarks(self.book_id)

    def current_bookmark(self) -> Bookmark | None:
        """The bookmark on the current segment, if there is one."""
        if self.page.current is None:
            return None
        here = self.page.current.locator.segment_locator
        return next((b for b in self.bookmarks() if b.locator.segment_locator == here), None)

    def toggle_bookmark(self) -> Bookmark | None:
        """Bookmark the current segment, or remove its bookmark; returns the new bookmark or None."""
        existing = self.current_bookmark()
        if existing is not None:
            self.quire.notes.remove_bookmark(existing.id)
            return None
        return self.add_bookmark()

    # -- selecting and highlighting ---------------------------------------------------------------
    def select(self, ordinal: int, start: int, end: int, run: tuple[int, int] | None = None) -> Selection | None:
        """The reader selected characters start..end of a segment (an empty range clears the selection).

        ``run``: the characters of the vertical column's text it was made in (each column is its own text, so a
        drag stops at its foot). One made from the head of its column where the selection ends, or to its foot
        where the selection begins, continues it: the two are one selection, across as many columns as the reader
        goes on into, in either order. One made inside a column is a new selection."""
        start, end = sorted((start, end))
        record = next((s for s in self.page.visible if s.ordinal == ordinal), None)
        if record is None or end <= start:
            self.selection = self._joined_to = None
            return None
        joined = False
        if run is not None and self.selection is not None:  # (cleared by a page turn: nothing to continue)
            head, foot = start == run[0], end == run[1]
            for base in (self._joined_to, self.selection):
                if (
                    base is not None
                    and base.ordinal == ordinal
                    and ((head and start == base.end) or (foot and end == base.start))
                ):
                    self._joined_to, joined = base, True
                    start, end = min(start, base.start), max(end, base.end)
                    break
        if not joined:
            self._joined_to = None
        end = min(end, len(record.text))
        self.selection = Selection(ordinal, start, end, record.text[start:end], joined)
        return self.selection

    def tap(self, ordinal: int, offset: int) -> Highlight | None:
        """The reader tapped (or clicked) character ``offset`` of a segment: the highlight there, if any, is
        ``tapped`` (its menu offers note, colour, copy and delete). A tap on an edge of a highlight is not on it."""
        hit = next(
            (
                m
                for m in self.marks()
                if m.highlight_id is not None and m.ordinal == ordinal and m.start < offset < m.end
            ),
            None,
        )
        self.tapped = None
        if hit is not None:
            self.tapped = next((h for h in self.quire.notes.highlights(self.book_id) if h.id == hit.highlight_id), None)
        return self.tapped

    def recolour_tapped(self, color: str) -> None:
        if self.tapped is not None:
            self.tapped = self.quire.notes.update_highlight(self.tapped.id, color=color)

    def note_tapped(self, note: str) -> None:
        if self.tapped is not None:
            self.tapped = self.quire.notes.update_highlight(self.tapped.id, note=note)

    def remove_tapped(self) -> None:
        if self.tapped is not None:
            self.quire.notes.remove_highlight(self.tapped.id)
            self.tapped = None

    def highlight_selection(self, color: str, note: str = "") -> Highlight:
        """Highlight what is selected (the current segment when nothing is) in one of the five colours."""
        if self.selection is not None:
            record = next(s for s in self.page.visible if s.ordinal == self.selection.ordinal)
            base = record.locator.segment_locator
            start = Locator(base.section, base.segment, self.selection.start)
            end = Locator(base.section, base.segment, self.selection.end)
        else:
            current = self.page.current
            assert current is not None, "open() first"
            start = current.locator.segment_locator
            end = Locator(start.section, start.segment, len(current.text))
        self.selection = None
        return self.highlight(start, end, color, note)

    def highlight(self, start: Locator, end: Locator, color: str = "yellow", note: str = "") -> Highlight:
        return self.quire.notes.add_highlight(self.book_id, str(start), str(end), color, note)

    def marks(self) -> list[Mark]:
        """Highlights and the current search hit, as ranges on the visible segments."""
        visible = self.page.visible
        if not visible:
            return []
        first, last = visible[0].ordinal, visible[-1].ordinal
        marks = []
        for h in self.quire.notes.highlights(self.book_id):
            start = self.quire.text.ordinal_of(self.book_id, h.start.segment_locator)
            end = self.quire.text.ordinal_of(self.book_id, h.end.segment_locator)
            marks += [Mark(s.ordinal, a, b, h.color, h.id) for s, a, b in slices(visible, h.start, h.end, start, end)]
        marks += [m for m in self.page.search_marks if first <= m.ordinal <= last]
        return marks
