"""Pages laid out by measured text: each page holds what fits its box, and the next starts where it ended.

A page is a run of segment slices; it may end inside a paragraph (at a line break) and the next page goes on
from there, so turning pages shows every character once. A chapter always starts a page. Heights come from
``text_metrics`` (the reading fonts' own widths, erring towards a line too many); the page stays scrollable, so
an estimate that is still short by a line hides nothing.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from app.screens.reader.text_metrics import Font, wrap
from app.screens.reader.vertical import CELL_HEIGHT, HANG, columns
from core import SegmentRecord

FETCH = 40  # segments read from the library at a time while laying out
IMAGE_SHARE = 0.6  # an image whose size is unknown (an SVG, a broken file) takes this share of a page
CAPTION = 1.5 * 15 + 4  # an image's caption line under it (reader_page: font size - 3) and the gap above it


@dataclass(frozen=True, slots=True)
class PageBox:
    """The text area a page fills, in pixels, and the typography that fills it."""

    width: float
    height: float
    font_size: float
    line_height: float  # the Settings multiplier
    family: str = "serif"
    vertical: bool = False  # vertical columns read right to left (Chinese, Japanese): ``vertical.columns``

    @property
    def per_column(self) -> int:
        """Vertical text: the cells a column holds, with room below for marks that hang (``vertical.HANG``)."""
        return max(2, math.floor(self.height / (self.font_size * CELL_HEIGHT)) - HANG)

    @property
    def column_pitch(self) -> float:
        """Vertical text: a column's width and the gap to the next (the line spacing, turned)."""
        return self.font_size * self.line_height

    @property
    def spacing(self) -> float:
        """The gap between two segments (the reader's list spacing)."""
        return max(8.0, self.font_size * 0.8)


@dataclass(frozen=True, slots=True)
class Slice:
    """The part of a segment a page shows: characters ``start``..``end`` of its text."""

    segment: SegmentRecord
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.segment.text[self.start : self.end]


def _geometry(segment: SegmentRecord, box: PageBox) -> tuple[Font, float, float]:
    """The font a segment is drawn in, its line height and the width its text wraps at (as reader_page draws)."""
    size = box.font_size
    if segment.kind == "heading":
        font = Font(box.family, {1: size + 10, 2: size + 6}.get(segment.level, size + 3), bold=True)
        return font, font.size * box.line_height, box.width
    if segment.kind == "preformatted":
        return Font("monospace", size - 2), (size - 2) * 1.2, box.width
    indent = 19.0 if segment.kind == "quote" else 24.0 if segment.kind == "list_item" else 0.0
    return Font(box.family, size), size * box.line_height, box.width - indent


def image_height(segment: SegmentRecord, size: tuple[int, int] | None, box: PageBox) -> float:
    """How tall an image segment is drawn: its own size, scaled down to the text width (never enlarged), at most
    a page; with its caption when it has one."""
    if size is None or size[0] <= 0 or size[1] <= 0:
        return box.height * IMAGE_SHARE
    width, height = size
    drawn = height * min(1.0, box.width / width)
    caption = CAPTION * box.font_size / 18 if segment.text else 0.0
    return min(box.height, drawn + caption)


def segment_height(
    segment: SegmentRecord, box: PageBox, image_size: Callable[[SegmentRecord], tuple[int, int] | None]
) -> float:
    """How tall a whole segment is drawn in the box's typography (as a page counts it)."""
    if segment.kind == "image":
        return image_height(segment, image_size(segment), box)
    font, line, width = _geometry(segment, box)
    return len(wrap(segment.text, font, width)) * line


def layout(
    start: tuple[int, int],
    fetch: Callable[[int, int], list[SegmentRecord]],
    box: PageBox,
    image_size: Callable[[SegmentRecord], tuple[int, int] | None] = lambda segment: None,
) -> tuple[list[Slice], tuple[int, int] | None]:
    """The page that starts at (ordinal, offset), and where the next one starts (None: the book ends here).

    ``image_size`` gives an image segment's pixel size (None when unknown)."""
    if box.vertical:
        return _vertical_layout(start, fetch, box)
    slices: list[Slice] = []
    used = 0.0
    last = None
    for segment, offset in _chapter(start, fetch):
        last = segment
        gap = box.spacing if slices else 0.0
        if segment.kind == "image":
            height = image_height(segment, image_size(segment), box)
            if slices and used + gap + height > box.height:
                return slices, (segment.ordinal, 0)
            slices.append(Slice(segment, 0, len(segment.text)))
            used += gap + height
            continue
        font, line, width = _geometry(segment, box)
        lines = wrap(segment.text[offset:], font, width)
        room = math.floor((box.height - used - gap) / line + 1e-9)
        if room >= len(lines):
            slices.append(Slice(segment, offset, len(segment.text)))
            used += gap + len(lines) * line
            continue
        if segment.kind == "heading" or room <= 0:
            if not slices:  # a page too small for even one line: show it anyway, so pages always advance
                room = max(1, room)
            else:
                if slices[-1].segment.kind == "heading" and len(slices) > 1:
                    moved = slices.pop()  # a heading is not left alone at the foot of a page
                    return slices, (moved.segment.ordinal, moved.start)
                return slices, (segment.ordinal, offset)
        cut = offset + lines[room - 1][1]
        slices.append(Slice(segment, offset, cut))
        return slices, (segment.ordinal, cut)
    return slices, _after(fetch, last) if last is not None else None


def _vertical_layout(
    start: tuple[int, int], fetch: Callable[[int, int], list[SegmentRecord]], box: PageBox
) -> tuple[list[Slice], tuple[int, int] | None]:
    """A page of vertical columns, from the right: each paragraph starts a column, and a page holds as many as its
    width does; a picture has a page of its own; a chapter starts a page."""
    slices: list[Slice] = []
    room = max(1, math.floor((box.width - 1) / box.column_pitch))  # a pixel spare: no overflow by rounding
    last = None
    for segment, offset in _chapter(start, fetch):
        last = segment
        if segment.kind == "image":
            if slices:
                return slices, (segment.ordinal, 0)
            return [Slice(segment, 0, len(segment.text))], _after(fetch, segment)
        spans = columns(segment.text[offset:], box.per_column) or [(0, 0)]
        if room >= len(spans):
            slices.append(Slice(segment, offset, len(segment.text)))
            room -= len(spans)
            if room == 0:
                return slices, _after(fetch, segment)
            continue
        if segment.kind == "heading" and slices:
            return slices, (segment.ordinal, offset)
        cut = offset + spans[room - 1][1]
        slices.append(Slice(segment, offset, cut))
        return slices, (segment.ordinal, cut)
    return slices, _after(fetch, last) if last is not None else None


def _chapter(
    start: tuple[int, int], fetch: Callable[[int, int], list[SegmentRecord]]
) -> Iterator[tuple[SegmentRecord, int]]:
    """The segments from (ordinal, offset) to the end of their chapter (a chapter always starts a page), each with
    the character a page starts from in it (``offset`` for the first, 0 after), read FETCH at a time."""
    ordinal, offset = start
    section: int | None = None
    while batch := fetch(ordinal, FETCH):
        for segment in batch:
            if section is not None and segment.locator.section != section:
                return
            section = segment.locator.section
            yield segment, offset
            offset = 0
        ordinal = batch[-1].ordinal + 1


def _after(fetch: Callable[[int, int], list[SegmentRecord]], segment: SegmentRecord) -> tuple[int, int] | None:
    """Where the page after one that ends with ``segment`` starts (None: the book ends with it)."""
    return (segment.ordinal + 1, 0) if fetch(segment.ordinal + 1, 1) else None


def clamp(slices: list[Slice], bound: tuple[int, int]) -> list[Slice]:
    """The slices that come before ``bound`` (ordinal, offset), the one it falls in cut there."""
    kept = []
    for piece in slices:
        ordinal = piece.segment.ordinal
        if ordinal > bound[0] or (ordinal == bound[0] and bound[1] <= piece.start):
            break
        end = min(piece.end, bound[1]) if ordinal == bound[0] else piece.end
        kept.append(Slice(piece.segment, piece.start, end))
    return kept


class Pages:
    """Where the pages of a book start, for one box: turning back shows the page that was turned from.

    Each chapter keeps a sorted list of page starts. It starts as the chapter's first line and grows with every
    place the reader arrived at (a saved place, a jump, a page laid out for another box): that place becomes a page
    start, the page before it is laid out forward from the last start known before it, and a page ends at the next
    known start (so the page just before a place reached mid-chapter may be short). Forward turns go from where
    the page shown ends; backward turns go to the start before. Both walk the same list, so Next, Next, Prev,
    Prev shows the pages it showed, at any size, font and spacing (a phone re-cut them, repeating lines, when
    the way back was laid out from the chapter's start and the way there from a place inside it).
    """

    CACHE = 64  # pages laid out and kept (a page is laid out once per turn; drawing and turning share it)

    def __init__(
        self,
        box: PageBox,
        fetch: Callable[[int, int], list[SegmentRecord]],
        first_of: Callable[[int], int],
        image_size: Callable[[SegmentRecord], tuple[int, int] | None] = lambda segment: None,
    ) -> None:
        self.box = box
        self._fetch = fetch
        self._first_of = first_of  # a chapter's first ordinal
        self._image_size = image_size
        self._starts: dict[int, list[tuple[int, int]]] = {}  # section -> known page starts, sorted
        self._complete: set[int] = set()  # sections laid out to their end
        self._laid: dict[
            tuple[tuple[int, int], tuple[int, int] | None], tuple[list[Slice], tuple[int, int] | None]
        ] = {}

    def page(self, start: tuple[int, int], section: int) -> tuple[list[Slice], tuple[int, int] | None]:
        """The page that starts at ``start`` in ``section`` and where the next one starts (None: the book ends).

        The place becomes one of the section's page starts: the reader arrived there (pages before it end there).
        """
        starts = self._known(section)
        if start not in starts:
            bisect.insort(starts, start)
        bound = next((s for s in starts if s > start), None)
        key = (start, bound)
        if key not in self._laid:
            slices, following = layout(start, self._fetch, self.box, self._image_size)
            if bound is not None and (following is None or following > bound):
                slices, following = clamp(slices, bound), bound
            if len(self._laid) >= self.CACHE:
                self._laid.clear()
            self._laid[key] = (slices, following)
        return self._laid[key]

    def before(self, start: tuple[int, int], section: int) -> tuple[int, int] | None:
        """Where the page before the one at ``start`` starts (None: this is the book's first page)."""
        starts = self._anchor(section, start)
        index = starts.index(start)
        if index > 0:
            return starts[index - 1]
        if starts[0][0] == 0:
            return None
        previous = self._section_of(starts[0][0] - 1)
        return self._to_end(previous)[-1]

    def _section_of(self, ordinal: int) -> int:
        return self._fetch(ordinal, 1)[0].locator.section

    def _within(self, place: tuple[int, int] | None, section: int) -> bool:
        if place is None:
            return False
        if place[1] > 0:
            return True  # inside a paragraph: the paragraph's chapter (a chapter always starts a page)
        found = self._fetch(place[0], 1)
        return bool(found) and found[0].locator.section == section

    def _known(self, section: int) -> list[tuple[int, int]]:
        if section not in self._starts:
            self._starts[section] = [(self._first_of(section), 0)]
        return self._starts[section]

    def _anchor(self, section: int, place: tuple[int, int]) -> list[tuple[int, int]]:
        """The section's starts with ``place`` among them and the pages before it laid out: forward, from the last
        start known before it, until a page ends at it."""
        starts = self._known(section)
        if place not in starts:
            bisect.insort(starts, place)
        index = starts.index(place)
        while index > 0:
            following = self.page(starts[index - 1], section)[1]
            if following is None or following >= place or not self._within(following, section):
                break
            bisect.insort(starts, following)
            index += 1
        return starts

    def _to_end(self, section: int) -> list[tuple[int, int]]:
        """The section's starts, laid out to its last page."""
        starts = self._known(section)
        if section not in self._complete:
            here = starts[-1]
            while True:
                following = self.page(here, section)[1]
                if not self._within(following, section):
                    break
                assert following is not None
                bisect.insort(starts, following)
                here = following
            self._complete.add(section)
        return starts
