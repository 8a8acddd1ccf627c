"""How big a book Quire takes: file size, text size, chapters, paragraphs and contents entries.

Each limit is far above any real book and low enough that an import stays within a phone's memory and
finishes in seconds; a file past one is refused with a message that says which limit and by how much.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import BookFormatError

if TYPE_CHECKING:
    from core.books.model import Book

MIB = 1024 * 1024
MAX_FILE_BYTES = 256 * MIB  # any book file (an illustrated EPUB can be large)
MAX_TEXT_BYTES = 32 * MIB  # a TXT, Markdown or HTML book (the longest web novels are 10-20 MB); ~12x in memory
MAX_SECTIONS = 10_000  # chapters, or spine items of an EPUB
MAX_SEGMENTS = 500_000  # paragraphs, headings, list items... (a long novel has 10,000-50,000)
MAX_LINES = 1_500_000  # lines of a TXT, Markdown or HTML file, counted before parsing (32 MB hard-wrapped: 500,000)
MAX_TOC_ENTRIES = 20_000
TEXT_FORMATS = ("txt", "markdown", "html")


def _size(count: int) -> str:
    return f"{count / MIB:.0f} MB" if count >= MIB else f"{count / 1024:.0f} KB"


def check_file_size(size: int, format_name: str) -> None:
    """Refuse a file larger than its format's limit."""
    limit = MAX_TEXT_BYTES if format_name in TEXT_FORMATS else MAX_FILE_BYTES
    if size > limit:
        raise BookFormatError(
            f"this {format_name} file is {_size(size)}, more than the {_size(limit)} Quire takes for one book: "
            "split it into volumes and import those"
        )


def check_text_shape(data: bytes, format_name: str) -> None:
    """Refuse, before parsing, a text file with more lines than any book (parsing them would take minutes)."""
    if format_name in TEXT_FORMATS:
        check_count("lines", data.count(b"\n"), MAX_LINES)


def check_count(what: str, count: int, limit: int) -> None:
    """Refuse a book with more ``what`` than ``limit``."""
    if count > limit:
        raise BookFormatError(
            f"this book has more than {limit:,} {what} ({count:,}): too many to be a book Quire can open safely"
        )


def check_book(book: Book) -> None:
    """Refuse a parsed book past the limits on chapters, paragraphs and contents entries."""
    check_count("chapters", len(book.sections), MAX_SECTIONS)
    check_count("paragraphs", book.segment_count, MAX_SEGMENTS)
    check_count("contents entries", sum(1 for _ in book.toc_entries()), MAX_TOC_ENTRIES)
