"""Format detection in one place: pick the reader for a file and run it, with one typed error."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable
from pathlib import Path

from core.books.model import Book
from core.errors import BookFormatError, QuireError

SUPPORTED = {
    ".epub": "epub",
    ".txt": "txt",
    ".text": "txt",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
}


def detect_format(name: str, data: bytes) -> str:
    """The format of a file from its name, confirmed by its first bytes where they are telling."""
    suffix = Path(name).suffix.lower()
    if suffix in SUPPORTED:
        return SUPPORTED[suffix]
    if data[:4] == b"PK\x03\x04" and b"mimetypeapplication/epub+zip" in data[:100]:
        return "epub"
    if suffix in (".pdf", ".mobi", ".azw", ".azw3", ".fb2", ".djvu", ".docx"):
        raise BookFormatError(f"{suffix} books are not supported yet: Quire reads EPUB, TXT, Markdown and HTML")
    raise BookFormatError(f"'{name}' is not a book format Quire knows: use EPUB, TXT, Markdown or HTML")


def _reader(format_name: str) -> Callable[[bytes, str], Book]:
    # Readers are imported lazily so that starting the app does not load every parser.
    if format_name == "epub":
        from core.books.epub import read_epub

        return lambda data, _title: read_epub(data)
    if format_name == "txt":
        from core.books.text import read_text

        return read_text
    if format_name == "markdown":
        from core.books.markdown import read_markdown

        return read_markdown
    from core.books.html import read_html

    return read_html


def parse_book(data: bytes, name: str) -> Book:
    """Parse a book file's bytes; every failure becomes BookFormatError with a readable message."""
    format_name = detect_format(name, data)
    if not data:
        raise BookFormatError("the file is empty: there is no book in it")
    fallback_title = Path(name).stem.replace("_", " ").strip() or "Untitled"
    try:
        return _reader(format_name)(data, fallback_title)
    except QuireError:
        raise
    except RecursionError as error:
        raise BookFormatError("this book is nested too deeply to read safely") from error
    except (zipfile.BadZipFile, UnicodeError, LookupError, ValueError, TypeError, AttributeError, OSError) as error:
        # A reader bug or a defect we did not foresee: still one typed error, never a crash.
        raise BookFormatError(f"could not read this {format_name} book ({type(error).__name__}: {error})") from error


def read_file_bytes(path: str | Path) -> bytes:
    """A book file's bytes; a missing, unreadable or wrong kind of path is a BookFormatError."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError as error:
        raise BookFormatError(f"no file at '{path}': check the path") from error
    except IsADirectoryError as error:
        raise BookFormatError(f"'{path}' is a folder, not a book file") from error
    except OSError as error:
        raise BookFormatError(f"cannot read '{path}': {error.strerror or error}") from error


def read_book(path: str | Path) -> Book:
    """Read a book file from disk."""
    return parse_book(read_file_bytes(path), Path(path).name)


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes: a book's identity in the library."""
    return hashlib.sha256(data).hexdigest()
