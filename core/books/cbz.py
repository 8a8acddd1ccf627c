"""CBZ comics: a ZIP of page images read in name order, with ComicInfo.xml metadata when there is one.

Each page is a chapter of one picture, so the reader shows one page at a time, fitted to the window. A comic
has no text: search and chat say so instead of finding nothing. The archive gets the same checks as an EPUB's
(entry count, sizes, compression ratio, paths), and nothing but the metadata and the first page is read here.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path, PurePosixPath

from core.books.epub_archive import MAX_ENTRIES, MAX_ENTRY_RATIO, RATIO_FLOOR
from core.books.locator import Locator
from core.books.model import Book, Metadata, Section, Segment, SegmentKind, TocEntry
from core.books.safexml import local_name, parse_xml
from core.errors import BookFormatError

PAGE_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
              ".webp": "image/webp"}  # fmt: skip
MAX_PAGE_BYTES = 64 * 1024 * 1024


def _natural(name: str) -> list[object]:
    """Sort key: page2 before page10."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def pages(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The page images, in reading (natural name) order, after the archive's safety checks."""
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BookFormatError(f"this comic has more than {MAX_ENTRIES:,} files: too many to be a book")
    found = []
    for info in infos:
        name = PurePosixPath(info.filename)
        if info.is_dir() or name.name.startswith(".") or "__MACOSX" in name.parts:
            continue
        if name.suffix.lower() not in PAGE_TYPES:
            continue
        if ".." in name.parts or name.is_absolute():
            raise BookFormatError(f"'{info.filename}' points outside the comic: refused")
        if info.file_size > MAX_PAGE_BYTES:
            raise BookFormatError(f"a page of this comic is {info.file_size // (1024 * 1024)} MB: too large to show")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_ENTRY_RATIO * max(1, info.compress_size):
            raise BookFormatError(f"'{info.filename}' is compressed too well to be a picture: refused as a ZIP bomb")
        found.append(info)
    return sorted(found, key=lambda info: _natural(info.filename))


def read_cbz(data: bytes, fallback_title: str) -> Book:
    """A comic as a book of pictures: one chapter per page."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise BookFormatError(f"this .cbz is not a readable ZIP archive ({error})") from error
    with archive:
        listed = pages(archive)
        if not listed:
            raise BookFormatError("this comic has no page images (JPEG, PNG, GIF or WebP) in it")
        metadata = _comic_info(archive, fallback_title)
        first = listed[0]
        metadata.cover = archive.read(first)
        metadata.cover_media_type = PAGE_TYPES[PurePosixPath(first.filename).suffix.lower()]
    sections = [
        Section(title=f"{number}", segments=[Segment(SegmentKind.IMAGE, "", src=info.filename)], href=info.filename)
        for number, info in enumerate(listed, 1)
    ]
    toc = [TocEntry(f"{number}", Locator(number - 1, 0)) for number in range(1, len(sections) + 1)]
    return Book("cbz", metadata, sections, toc, [])


def _comic_info(archive: zipfile.ZipFile, fallback_title: str) -> Metadata:
    """Title, writers, language and summary from ComicInfo.xml (the ComicRack schema), when the comic has one."""
    name = next((i for i in archive.infolist() if i.filename.lower().endswith("comicinfo.xml")), None)
    if name is None or name.file_size > 1024 * 1024:
        return Metadata(title=fallback_title)
    root = parse_xml(archive.read(name), "this comic's ComicInfo.xml")
    fields = {local_name(child): " ".join("".join(child.itertext()).split()) for child in root}
    title = fields.get("title") or fields.get("series") or fallback_title
    if fields.get("series") and fields.get("number") and not fields.get("title"):
        title = f"{fields['series']} #{fields['number']}"
    people = [p.strip() for role in ("writer", "penciller", "artist") for p in fields.get(role, "").split(",")]
    return Metadata(
        title=title,
        authors=list(dict.fromkeys(p for p in people if p)),
        language=fields.get("languageiso", ""),
        publisher=fields.get("publisher", ""),
        description=fields.get("summary", ""),
    )


def page(source: Path, src: str) -> bytes | None:
    """One page's picture by its name in the archive (only that entry is read)."""
    try:
        with zipfile.ZipFile(source) as archive:
            info = next((i for i in pages(archive) if i.filename == src), None)
            return archive.read(info) if info is not None else None
    except (zipfile.BadZipFile, BookFormatError, OSError):
        return None
