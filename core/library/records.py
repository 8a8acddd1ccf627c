"""Plain data records the library returns: books, TOC rows, segments, search hits, annotations."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, NewType, Protocol, TypeVar

from core.books.locator import Locator
from core.books.model import ALT_TEXT

# A file's format as readers know it, by its name (AZW3 and MOBI share a reader; FB2 may come zipped).
EDITIONS = {".azw3": "AZW3", ".azw": "AZW", ".mobi": "MOBI", ".prc": "MOBI", ".fbz": "FB2", ".zip": "FB2",
            ".md": "Markdown", ".markdown": "Markdown", ".htm": "HTML", ".xhtml": "HTML", ".text": "TXT"}  # fmt: skip


def edition(file_name: str, format_name: str) -> str:
    """What a reader calls a book's format: from its file's name where that says more ("AZW3"), else the format."""
    suffix = ("." + file_name.rsplit(".", 1)[-1].lower()) if "." in file_name else ""
    return EDITIONS.get(suffix, format_name.upper())


BookId = NewType("BookId", int)
"""A book's id as the library gave it (``Library.book_id``, ``quire.open``): a title, a hash prefix or digits typed by a
person are resolved to one once, where they enter, and the id travels from there."""


@dataclass(frozen=True, slots=True)
class BookRecord:
    """A book as stored in the library."""

    id: int
    content_hash: str
    format: str
    title: str
    authors: list[str]
    language: str
    publisher: str
    identifiers: list[str]
    description: str
    file_name: str
    file_size: int
    segment_count: int
    char_count: int
    warnings: list[str]
    imported_at: str
    has_cover: bool
    tags: list[str] = field(default_factory=list)
    writing_mode: str = ""  # "vertical-rl": set in vertical columns, read right to left (the book says so)

    @classmethod
    def from_row(cls, row: sqlite3.Row, tags: list[str]) -> BookRecord:
        return cls(
            id=row["id"],
            content_hash=row["content_hash"],
            format=row["format"],
            title=row["title"],
            authors=json.loads(row["authors"]),
            language=row["language"],
            publisher=row["publisher"],
            identifiers=json.loads(row["identifiers"]),
            description=row["description"],
            file_name=row["file_name"],
            file_size=row["file_size"],
            segment_count=row["segment_count"],
            char_count=row["char_count"],
            warnings=json.loads(row["warnings"]),
            imported_at=row["imported_at"],
            has_cover=bool(row["has_cover"]),
            tags=tags,
            writing_mode=row["writing_mode"],
        )

    @property
    def edition(self) -> str:
        """The book's format as its file's name says it ("AZW3" where ``format`` is the reader's "mobi")."""
        return edition(self.file_name, self.format)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "edition": self.edition}


@dataclass(frozen=True, slots=True)
class TocRow:
    """One TOC entry, flattened: depth and its target locator (None when unresolved)."""

    depth: int
    title: str
    locator: Locator | None

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, "title": self.title, "locator": str(self.locator) if self.locator else None}


@dataclass(frozen=True, slots=True)
class SegmentRecord:
    """A stored segment with its locator and global ordinal."""

    locator: Locator
    ordinal: int
    kind: str
    level: int
    text: str
    section_title: str
    src: str | None = None
    page: str | None = None  # the printed page it starts on (PDFs), as the page shows it: "12", "xii"

    @property
    def caption(self) -> str:
        """What is shown under a picture: the book's own caption; "" for alt text (a screen reader's name for the
        picture, "Illo2", never a caption) and for segments that are not pictures."""
        return self.text if self.kind == "image" and self.level != ALT_TEXT else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "locator": str(self.locator),
            "ordinal": self.ordinal,
            "kind": self.kind,
            "level": self.level,
            "text": self.text,
            "section": self.section_title,
            "src": self.src,
            "page": self.page,
        }


class Spannable(Protocol):
    """What :func:`slices` reads of a segment: its place in reading order and its text."""

    @property
    def ordinal(self) -> int: ...

    @property
    def text(self) -> str: ...


S = TypeVar("S", bound=Spannable)


@dataclass(frozen=True, slots=True)
class PlacedText:
    """A segment's locator, ordinal and text, and nothing else: what placing many highlights reads of a book."""

    locator: Locator
    ordinal: int
    text: str


def slices(segments: Iterable[S], start: Locator, end: Locator, first: int, last: int) -> Iterator[tuple[S, int, int]]:
    """The part of each segment that the span ``start``..``end`` covers, as (segment, begin, stop).

    ``first`` and ``last`` are the ordinals of the segments ``start`` and ``end`` point into; an offset of
    None means the whole segment. This is the one place a span over several segments is cut into pieces
    (a highlight's text, a citation's quote, the marks the reader draws).
    """
    for segment in segments:
        if not first <= segment.ordinal <= last:
            continue
        begin = start.offset or 0 if segment.ordinal == first else 0
        stop = end.offset if segment.ordinal == last and end.offset is not None else len(segment.text)
        yield segment, begin, stop


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A full-text match: where it is (locator at the match's character offset) and a snippet."""

    book_id: int
    locator: Locator
    ordinal: int
    section_title: str
    snippet: str  # with matches marked **like this**
    score: float  # higher is better
    spans: tuple[tuple[int, int], ...] = ()  # every match inside the segment's text, to mark them all

    def to_dict(self) -> dict[str, Any]:
        return {
            "book_id": self.book_id,
            "locator": str(self.locator),
            "ordinal": self.ordinal,
            "section": self.section_title,
            "snippet": self.snippet,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class Position:
    """Where the reader is in a book (current), the furthest they have read, and how long they have read it.

    ``locator``/``ordinal``/``percent`` are the current place: where the book opens. The furthest place only
    moves forward (unless the reader moves it back on purpose); it is the spoiler bound and the "% read".
    """

    locator: Locator
    ordinal: int
    percent: float
    reading_seconds: float
    updated_at: str
    furthest: Locator | None  # None: the reader has only jumped around, not read (-1 and 0% below)
    furthest_ordinal: int
    furthest_percent: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "current": str(self.locator),
            "current_percent": self.percent,
            "furthest": str(self.furthest) if self.furthest else None,
            "furthest_percent": self.furthest_percent,
            "locator": str(self.locator),
            "ordinal": self.ordinal,
            "percent": self.percent,
            "furthest_ordinal": self.furthest_ordinal,
            "reading_seconds": self.reading_seconds,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True, slots=True)
class Bookmark:
    """A saved place in a book."""

    id: int
    book_id: int
    locator: Locator
    label: str
    created_at: str
    uid: str = ""  # its identity in sync, the same on every device

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "book_id": self.book_id,
            "locator": str(self.locator),
            "label": self.label,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class Highlight:
    """A marked passage (start to end locator), its colour, the text it covers and a note."""

    id: int
    book_id: int
    start: Locator
    end: Locator
    color: str
    note: str
    text: str
    created_at: str
    uid: str = ""  # its identity in sync, the same on every device

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "book_id": self.book_id,
            "start": str(self.start),
            "end": str(self.end),
            "color": self.color,
            "note": self.note,
            "text": self.text,
            "created_at": self.created_at,
        }
