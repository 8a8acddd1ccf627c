"""The book model every format reader produces: metadata, table of contents, sections, segments."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from core.books.locator import Locator


class SegmentKind(enum.StrEnum):
    """The block-level kinds a segment can be."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    QUOTE = "quote"
    LIST_ITEM = "list_item"
    PREFORMATTED = "preformatted"
    IMAGE = "image"
    TABLE_ROW = "table_row"


ALT_TEXT = 1  # an IMAGE segment's level when its text is the picture's alt text (for screen readers), no caption
ReadProgress = Callable[[int, int], None]
"""Called with (pages read, pages in all) while a long book is parsed."""
PAGE_LABEL = "quire-page:"  # an anchor naming the printed page a paragraph starts on (PDFs): "quire-page:12"


def page_label(anchors: tuple[str, ...] | list[str]) -> str | None:
    """The printed page a paragraph starts on, from its anchors; None for books without pages."""
    return next((a[len(PAGE_LABEL) :] for a in anchors if a.startswith(PAGE_LABEL)), None) or None


@dataclass(frozen=True, slots=True)
class Span:
    """Inline emphasis over ``text[start:end]`` of a segment (style: em, strong, code, link)."""

    start: int
    end: int
    style: str


@dataclass(slots=True)
class Segment:
    """One block of text; its text is what search, chunking and citations see."""

    kind: SegmentKind
    text: str
    level: int = 0  # heading level 1-6, list nesting depth; for IMAGE, ALT_TEXT when ``text`` is not a caption
    spans: tuple[Span, ...] = ()
    src: str | None = None  # image path inside the book, for IMAGE segments
    anchors: tuple[str, ...] = ()  # element ids that resolve to this segment (TOC and note links)


@dataclass(slots=True)
class Section:
    """A chapter-like unit in reading order: one spine item, or one top-level heading's span."""

    title: str
    segments: list[Segment] = field(default_factory=list)
    href: str = ""  # source document inside the book file (EPUB spine item), "" for single-file books
    linear: bool = True  # False for EPUB spine items marked linear="no" (kept, but marked)


@dataclass(slots=True)
class TocEntry:
    """A table-of-contents entry pointing at a locator (None when its target was not found)."""

    title: str
    locator: Locator | None
    children: list[TocEntry] = field(default_factory=list)


@dataclass(slots=True)
class Metadata:
    """Descriptive data about a book."""

    title: str
    authors: list[str] = field(default_factory=list)
    language: str = ""
    publisher: str = ""
    identifiers: list[str] = field(default_factory=list)
    description: str = ""
    cover: bytes | None = None
    cover_media_type: str = ""
    writing_mode: str = ""  # "vertical-rl": the book is set in vertical columns, read right to left (CJK)


@dataclass(slots=True)
class Book:
    """A parsed book: what a reader returns and the library stores."""

    format: str  # "epub", "txt", "markdown", "html"
    metadata: Metadata
    sections: list[Section]
    toc: list[TocEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # (pages read, pages in all) when only a long PDF's first pages were read, to show while the rest is read
    pages_read: tuple[int, int] | None = None

    def segments_with_locators(self) -> Iterator[tuple[int, Locator, Section, Segment]]:
        """Yield ``(ordinal, locator, section, segment)`` for every segment in reading order."""
        ordinal = 0
        for s_index, section in enumerate(self.sections):
            for g_index, segment in enumerate(section.segments):
                yield ordinal, Locator(s_index, g_index), section, segment
                ordinal += 1

    @property
    def segment_count(self) -> int:
        """How many segments the book has."""
        return sum(len(section.segments) for section in self.sections)

    @property
    def char_count(self) -> int:
        """How many characters its segments hold."""
        return sum(len(segment.text) for section in self.sections for segment in section.segments)

    def toc_entries(self) -> Iterator[tuple[int, TocEntry]]:
        """Yield ``(depth, entry)`` for every TOC entry, depth-first in order."""
        stack = [(0, entry) for entry in reversed(self.toc)]
        while stack:
            depth, entry = stack.pop()
            yield depth, entry
            stack.extend((depth + 1, child) for child in reversed(entry.children))
