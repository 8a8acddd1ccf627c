"""Format detection in one place: pick the reader for a file and run it, with one typed error."""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from core.books.limits import MAX_FILE_BYTES, check_book, check_file_size, check_text_shape
from core.books.model import Book, ReadProgress
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
    ".fb2": "fb2",
    ".fbz": "fb2",
    ".cbz": "cbz",
    ".pdf": "pdf",
    ".mobi": "mobi",
    ".azw3": "mobi",
    ".azw": "mobi",
    ".prc": "mobi",
}
"""The file suffixes Quire imports, each with the reader that parses it."""
ZIPPED = {"epub", "fb2", "cbz"}  # formats whose files may be ZIP archives
# How each format is named to readers, in the order it is listed (every value of SUPPORTED has a name here).
FORMAT_NAMES = {"epub": "EPUB", "mobi": "MOBI/AZW3", "pdf": "PDF", "fb2": "FB2", "cbz": "CBZ", "txt": "TXT",
                "markdown": "Markdown", "html": "HTML"}  # fmt: skip

log = logging.getLogger(__name__)


def formats_in_words(last: str = "or") -> str:
    """The formats Quire reads, for a sentence: "EPUB, MOBI/AZW3, …, Markdown or HTML"."""
    names = list(FORMAT_NAMES.values())
    return ", ".join(names[:-1]) + f" {last} {names[-1]}"


KNOWN = formats_in_words()


# The first bytes of files that are surely not text, whatever their name says.
BINARY_SIGNATURES = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"%PDF": "a PDF",
    b"PK\x03\x04": "a ZIP archive",
    b"\x7fELF": "a program",
    b"\x1f\x8b": "a gzip archive",
    b"Rar!": "a RAR archive",
    b"7z\xbc\xaf": "a 7-Zip archive",
    b"RIFF": "a media file",
    b"\x00\x00\x01\x00": "an icon",
}


def detect_format(name: str, data: bytes) -> str:
    """The format of a file from its name, confirmed by its first bytes where they are telling."""
    suffix = Path(name).suffix.lower()
    if name.lower().endswith(".fb2.zip"):
        suffix = ".fbz"
    if suffix in SUPPORTED:
        format_name = SUPPORTED[suffix]
        kind = next((what for magic, what in BINARY_SIGNATURES.items() if data.startswith(magic)), None)
        if (format_name in ZIPPED and kind == "a ZIP archive") or (format_name == "pdf" and kind == "a PDF"):
            kind = None
        if format_name not in ("epub",) and kind is not None:
            raise BookFormatError(f"'{name}' is {kind}, not a {format_name} book: it was not imported")
        return format_name
    if data[:4] == b"PK\x03\x04" and b"mimetypeapplication/epub+zip" in data[:100]:
        return "epub"
    if data.lstrip()[:200].lower().startswith(b"<?xml") and b"<fictionbook" in data[:2000].lower():
        return "fb2"
    if data.startswith(b"%PDF"):
        return "pdf"
    if data[60:68] == b"BOOKMOBI":
        return "mobi"
    if suffix in (".djvu", ".docx", ".cbr", ".cb7", ".kfx"):
        raise BookFormatError(f"{suffix} books are not supported yet: Quire reads {KNOWN}")
    raise BookFormatError(f"'{name}' is not a book format Quire knows: use {KNOWN}")


# format -> (module, function): readers are imported when first needed, so starting the app loads no parser
READERS = {
    "epub": ("core.books.epub", "read_epub"),
    "txt": ("core.books.text", "read_text"),
    "markdown": ("core.books.markdown", "read_markdown"),
    "html": ("core.books.html", "read_html"),
    "fb2": ("core.books.fb2", "read_fb2"),
    "cbz": ("core.books.cbz", "read_cbz"),
    "pdf": ("core.books.pdf", "read_pdf"),
    "mobi": ("core.books.mobi", "read_mobi"),
}


Reader = Callable[[bytes, str], Book]
PAGED = {"pdf"}  # readers slow enough on a long book (seconds a hundred pages) to say how far they are


def _reader(format_name: str, progress: ReadProgress | None, first_pages: int | None = None) -> Reader:
    """The format's reader. Every reader takes the file's bytes and a fallback title (its name, for a book that
    names itself nowhere); a paged one (PDF) also says how far it is and may stop after its first pages."""
    module, function = READERS[format_name]
    reader: Callable[..., Book] = getattr(importlib.import_module(module), function)
    if format_name in PAGED and (progress is not None or first_pages is not None):
        return functools.partial(reader, progress=progress, first_pages=first_pages)
    return reader


# Unicode's private-use areas: characters with no agreed meaning, which a file's own (unshipped) font drew.
PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
# What is shown instead: the geta mark, printers' sign for a character they lack; every CJK font has it.
PRIVATE_USE_MARK = "\u3013"


def replace_private_use(book: Book) -> None:
    """Show private-use characters (drawn by no font here: empty boxes) as one mark each, and say so.

    One character for one, so the inline styles' offsets stay right.
    """
    found: dict[str, int] = {}
    for section in book.sections:
        for segment in section.segments:
            if PRIVATE_USE.search(segment.text):
                for char in PRIVATE_USE.findall(segment.text):
                    found[char] = found.get(char, 0) + 1
                segment.text = PRIVATE_USE.sub(PRIVATE_USE_MARK, segment.text)
        section.title = PRIVATE_USE.sub(PRIVATE_USE_MARK, section.title)
    for entry in book.toc:
        entry.title = PRIVATE_USE.sub(PRIVATE_USE_MARK, entry.title)
    book.metadata.title = PRIVATE_USE.sub(PRIVATE_USE_MARK, book.metadata.title)
    if found:
        codes = ", ".join(f"U+{ord(c):04X}" for c in sorted(found, key=lambda c: -found[c])[:5])
        book.warnings.append(
            f"{sum(found.values())} private-use character(s) ({codes}) mean something only to the font of the file "
            f"they came from; they are shown as {PRIVATE_USE_MARK}"
        )


def parse_book(data: bytes, name: str, progress: ReadProgress | None = None, *, first_pages: int | None = None) -> Book:
    """Parse a book file's bytes; every failure becomes BookFormatError with a readable message.

    ``progress`` is told (pages read, pages in all) as a paged book (a PDF) is read. ``first_pages``: of a paged
    book, read no more than that many pages from its start (``Book.pages_read`` says when the rest is unread).
    """
    format_name = detect_format(name, data)
    if not data:
        raise BookFormatError("the file is empty: there is no book in it")
    check_file_size(len(data), format_name)
    check_text_shape(data, format_name)
    fallback_title = Path(name).stem.replace("_", " ").strip() or "Untitled"
    try:
        book = _reader(format_name, progress, first_pages)(data, fallback_title)
        check_book(book)
        replace_private_use(book)
        return book
    except BookFormatError as error:
        raise type(error)(readable(str(error))) from error  # same type, a message fit to show
    except QuireError:
        raise
    except RecursionError as error:
        raise BookFormatError("this book is nested too deeply to read safely") from error
    except MemoryError as error:
        raise BookFormatError("this book is too large to read on this device") from error
    except (zipfile.BadZipFile, zlib.error, UnicodeError, LookupError, ValueError, TypeError, AttributeError,
            OSError) as error:  # fmt: skip
        # A defect we did not foresee, in the file or in a reader: the reader gets one typed error, never a crash
        # and no Python internals; the log keeps the traceback, so a bug in Quire is seen, not hidden.
        log.warning("reading %r as %s failed with %s", name, format_name, type(error).__name__, exc_info=True)
        raise BookFormatError(
            f"could not read this {format_name} book: it is damaged or not really a {format_name} file"
        ) from error


def readable(message: str, limit: int = 240) -> str:
    """A refusal message fit to show: printable characters only, and not longer than ``limit``."""
    clean = "".join(c if c.isprintable() else " " for c in message)
    clean = " ".join(clean.split())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def read_file_bytes(path: str | Path) -> bytes:
    """A book file's bytes; a missing, unreadable, oversized or not regular file is a BookFormatError.

    Only regular files are read (a FIFO would block for ever, a link to /dev/zero never end), and never more
    than the largest book Quire takes, whatever the file claims.
    """
    path = Path(path)
    try:
        with open(path, "rb", opener=_open_without_blocking) as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(path)
            if not stat.S_ISREG(info.st_mode):
                raise BookFormatError(f"'{path}' is not a regular file (a device, pipe or socket): it was not read")
            check_file_size(info.st_size, SUPPORTED.get(path.suffix.lower(), "book"))
            data = _read_at_most(handle, info.st_size, MAX_FILE_BYTES + 1)
    except FileNotFoundError as error:
        raise BookFormatError(f"no file at '{path}': check the path") from error
    except IsADirectoryError as error:
        raise BookFormatError(f"'{path}' is a folder, not a book file") from error
    except OSError as error:
        raise BookFormatError(f"cannot read '{path}': {error.strerror or error}") from error
    check_file_size(len(data), SUPPORTED.get(path.suffix.lower(), "book"))  # it grew while being read
    return data


def _read_at_most(handle: BinaryIO, expected: int, limit: int) -> bytes:
    """The file's bytes, ``expected`` of them usually, never more than ``limit`` (one buffer, not a limit-sized one)."""
    parts = [handle.read(min(expected, limit))]
    total = len(parts[0])
    while total < limit:
        more = handle.read(min(1 << 20, limit - total))
        if not more:
            break
        parts.append(more)
        total += len(more)
    return b"".join(parts) if len(parts) > 1 else parts[0]


def _open_without_blocking(path: str, flags: int) -> int:
    """os.open that does not wait for a writer when the path is a FIFO (it is refused just after)."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def read_book(path: str | Path) -> Book:
    """Read a book file from disk."""
    return parse_book(read_file_bytes(path), Path(path).name)


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes: a book's identity in the library."""
    return hashlib.sha256(data).hexdigest()
