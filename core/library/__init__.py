"""The library store: SQLite database of books, text, full-text index and reading state."""

from core.library.annotations import HIGHLIGHT_COLORS, Annotations
from core.library.reading import ReadingTracker
from core.library.records import (
    BookId,
    Bookmark,
    BookRecord,
    Highlight,
    Position,
    SearchHit,
    SegmentRecord,
    TocRow,
    slices,
)
from core.library.store import Library

__all__ = [
    "HIGHLIGHT_COLORS",
    "Annotations",
    "BookId",
    "BookRecord",
    "Bookmark",
    "Highlight",
    "Library",
    "Position",
    "ReadingTracker",
    "SearchHit",
    "SegmentRecord",
    "TocRow",
    "slices",
]
