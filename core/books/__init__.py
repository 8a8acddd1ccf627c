"""Books: the model, locators, and the format readers (EPUB, MOBI/AZW3, PDF, FB2, CBZ, TXT, Markdown and HTML)."""

from core.books.formats import SUPPORTED, content_hash, detect_format, parse_book, read_book
from core.books.locator import Locator, format_locator, parse_locator
from core.books.model import Book, Metadata, Section, Segment, SegmentKind, Span, TocEntry

__all__ = [
    "SUPPORTED",
    "Book",
    "Locator",
    "Metadata",
    "Section",
    "Segment",
    "SegmentKind",
    "Span",
    "TocEntry",
    "content_hash",
    "detect_format",
    "format_locator",
    "parse_book",
    "parse_locator",
    "read_book",
]
