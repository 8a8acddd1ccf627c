"""Pages laid out by measured text: each page holds what fits its box, and the next starts where it ended.

A page is a run of segment slices; it may end inside a paragraph (at a line break) and the next page goes on
from there, so turning pages shows every character once. A chapter always starts a page. Heights come from
``text_metrics`` (the reading fonts' own widths, erring towards a line too many); the page stays scrollable, so
an estimate that is still short by a line hides nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from app.text_metrics import Font, wrap
from core.library import SegmentRecord

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


def layout(
    start: tuple[int, int],
    fetch: Callable[[int, int], list[SegmentRecord]],
    box: PageBox,
    image_size: Callable[[SegmentRecord], tuple[int, int] | None] = lambda segment: None,
) -> tuple[list[Slice], tuple[int, int] | None]:
    """The page that starts at (ordinal, offset), and where the next one starts (None: the book ends here).

    ``image_size`` gives an image segment's pixel size (None when unknown)."""
    slices: list[Slice] = []
    used = 0.0
    ordinal, offset = start
    section: int | None = None
    while True:
        batch = fetch(ordinal, FETCH)
        if not batch:
            return slices, None
        for segment in batch:
            if section is not None and segment.locator.section != section:
                return slices, (segment.ordinal, 0)  # a chapter starts a page
            section = segment.locator.section
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
                offset = 0
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
        ordinal = batch[-1].ordinal + 1
        offset = 0
