"""FictionBook 2 (.fb2 and .fb2.zip): title-info metadata, sections as chapters, notes, embedded images.

Written from the FictionBook 2.0 schema: ``description/title-info`` holds the title, authors, language and the
cover's image link; ``body`` holds ``section``s (nested for parts and chapters) of ``title``, ``p``, ``poem``,
``cite``, ``epigraph``, ``subtitle``, ``table`` and ``image``; a second ``body name="notes"`` holds the notes;
``binary`` elements hold the pictures, base64-encoded, by id. lxml parses it, never resolving entities.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import io
import zipfile
from functools import lru_cache

from lxml import etree

from core.books.limits import MAX_FILE_BYTES, MAX_SECTIONS, check_count
from core.books.locator import Locator
from core.books.model import ALT_TEXT, Book, Metadata, Section, Segment, SegmentKind, Span, TocEntry
from core.books.safexml import local_name, parse_xml
from core.books.text import book_from_text, converted_lines
from core.errors import BookFormatError

XLINK = "{http://www.w3.org/1999/xlink}href"
MAX_IMAGE_BYTES = 32 * 1024 * 1024
TITLE_CHARS = 80  # a section's untitled first paragraph this short is its title
INLINE_STYLES = {"emphasis": "em", "strong": "strong", "code": "code", "a": "link", "strikethrough": "em"}


def unpack(data: bytes) -> bytes:
    """The FictionBook XML of a .fb2 file, or of the one .fb2 inside a .fb2.zip."""
    if not data.startswith(b"PK"):
        return data
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [m for m in archive.infolist() if m.filename.lower().endswith(".fb2")]
            if not members:
                raise BookFormatError("this .zip holds no .fb2 file")
            if members[0].file_size > MAX_FILE_BYTES:
                raise BookFormatError("the .fb2 inside this .zip is larger than any book Quire takes")
            with archive.open(members[0]) as member:
                xml = member.read(MAX_FILE_BYTES + 1)
    except zipfile.BadZipFile as error:
        raise BookFormatError(f"this .fb2.zip is not a readable ZIP archive ({error})") from error
    if len(xml) > MAX_FILE_BYTES:
        raise BookFormatError("the .fb2 inside this .zip is larger than it says: it was not read")
    return xml


def read_fb2(data: bytes, fallback_title: str) -> Book:
    """Parse a FictionBook file into the book model."""
    root = parse_xml(unpack(data), "this FictionBook file")
    if local_name(root) != "fictionbook":
        raise BookFormatError("this is XML, but not a FictionBook (.fb2) book")
    info = _child(_child(root, "description"), "title-info")
    warnings: list[str] = []
    metadata = Metadata(
        title=_text(_child(info, "book-title")) or fallback_title,
        authors=[name for name in (_person(a) for a in _children(info, "author")) if name],
        language=_text(_child(info, "lang")),
        publisher=_text(_child(_child(_child(root, "description"), "publish-info"), "publisher")),
        description=" ".join(_text(p) for p in _children(_child(info, "annotation"), "p")),
    )
    cover_id = _href(_child(_child(info, "coverpage"), "image"))
    if cover_id:
        picture = _binary(root, cover_id)
        if picture is not None:
            metadata.cover, metadata.cover_media_type = picture
    check_count("sections", sum(1 for _ in root.iter("{*}section", "section")), MAX_SECTIONS)  # before any walk
    sections: list[Section] = []
    toc: list[TocEntry] = []
    for body in _children(root, "body"):
        notes = body.get("name", "") in ("notes", "comments")
        tops = _children(body, "section") or [body]
        for top in tops:
            _read_section(top, sections, toc, notes=notes)
    toc = _valid(toc, sections)
    sections = [s for s in sections if s.segments]
    if not sections:
        raise BookFormatError("this FictionBook has no text in its body")
    if len(sections) == 1:  # one run of lines (a text file converted): find its chapters
        as_text = book_from_text(_lines(root), metadata.title, "fb2")
        sections, toc = as_text.sections, as_text.toc
        warnings.append("the book marks no chapters; they were found in its text as in a .txt file")
    for number, section in enumerate(sections, 1):
        section.title = section.title or f"{metadata.title} ({number})"
    if not toc:
        warnings.append("the book names no chapters")
    return Book("fb2", metadata, sections, toc, warnings)


def _read_section(element: etree._Element, sections: list[Section], toc: list[TocEntry], notes: bool) -> None:
    """One section and its subsections: a section with text of its own is a chapter, its subsections are too."""
    title = " ".join(_text(p) for p in _children(_child(element, "title"), "p")) or _text(_child(element, "title"))
    own = Section(title=title)
    number = len(sections)
    entry = TocEntry(title or "", Locator(number, 0)) if title else None
    sections.append(own)
    for child in element:
        name = local_name(child)
        if name == "section":
            children = entry.children if entry is not None else toc
            _read_section(child, sections, children, notes)
            continue
        own.segments.extend(_blocks(child, name))
    if not own.title and len(own.segments) > 1:  # no <title>: calibre writes it as a short first paragraph
        first = own.segments[0]
        if first.kind == SegmentKind.PARAGRAPH and len(first.text) <= TITLE_CHARS:
            first.kind, first.level, first.spans = SegmentKind.HEADING, 1, ()
            own.title = first.text
            entry = TocEntry(first.text, Locator(number, 0))
    if notes and not own.title:
        own.title = "Notes"
    if entry is not None and own.segments:
        entry.locator = Locator(number, 0)
        toc.append(entry)


def _lines(root: etree._Element) -> str:
    """The main body as the plain text it was made from: a line per paragraph, blank lines kept."""
    body = _child(root, "body")
    lines: list[str] = []
    for element in body.iter() if body is not None else []:
        name = local_name(element)
        if name == "p":
            lines.append("".join(element.itertext()).replace("\n", " ").strip())
        elif name == "empty-line":
            lines.append("")
    return converted_lines(lines)


def _blocks(element: etree._Element, name: str) -> list[Segment]:
    """The segments a block element of a section makes."""
    if name == "title":
        text = " ".join(_text(p) for p in _children(element, "p")) or _text(element)
        return [Segment(SegmentKind.HEADING, text, level=1)] if text else []
    if name == "subtitle":
        text = _text(element)
        return [Segment(SegmentKind.HEADING, text, level=3)] if text else []
    if name == "p":
        segment = _paragraph(element)
        return [segment] if segment is not None else []
    if name == "image":
        href = _href(element)
        return [_picture(element, href)] if href else []
    if name in ("poem", "stanza", "cite", "epigraph"):
        found: list[Segment] = []
        for child in element:
            child_name = local_name(child)
            if child_name == "v" or child_name in ("text-author", "date"):
                text = _text(child)
                if text:
                    found.append(Segment(SegmentKind.QUOTE, text))
            elif child_name == "p":
                paragraph = _paragraph(child)
                if paragraph is not None:
                    found.append(Segment(SegmentKind.QUOTE, paragraph.text, spans=paragraph.spans))
            else:
                found += _blocks(child, child_name)
        return found
    if name == "table":
        rows = []
        for row in element.iter("{*}tr"):
            cells = [_text(cell) for cell in row if local_name(cell) in ("td", "th")]
            if any(cells):
                rows.append(Segment(SegmentKind.TABLE_ROW, " | ".join(cells)))
        return rows
    return []


def _paragraph(element: etree._Element) -> Segment | None:
    """A paragraph's text, whitespace collapsed, with its emphasis as spans; an image inside becomes an image."""
    pieces: list[str] = []
    spans: list[Span] = []
    length = 0  # of the pieces so far (joining them at every child was quadratic in a paragraph's markup)

    def walk(node: etree._Element, style: str | None) -> None:
        nonlocal length
        if node.text:
            pieces.append(node.text)
            length += len(node.text)
        for child in node:
            name = local_name(child)
            start = length
            walk(child, INLINE_STYLES.get(name))
            if name in INLINE_STYLES and length > start:
                spans.append(Span(start, length, INLINE_STYLES[name]))
            if child.tail:
                pieces.append(child.tail)
                length += len(child.tail)

    images = [child for child in element if local_name(child) == "image"]
    if images and not "".join(element.itertext()).strip():
        href = _href(images[0])
        return _picture(images[0], href) if href else None
    walk(element, None)
    raw = "".join(pieces)
    if not spans:  # the offsets are needed only to move spans: collapse the whitespace in C
        text = " ".join(raw.split())
        return Segment(SegmentKind.PARAGRAPH, text) if text else None
    text, shift = _collapse(raw)
    if not text:
        return None
    moved = tuple(Span(shift[s.start], shift[s.end], s.style) for s in spans if shift[s.end] > shift[s.start])
    return Segment(SegmentKind.PARAGRAPH, text, spans=moved)


def _collapse(raw: str) -> tuple[str, list[int]]:
    """Whitespace runs as one space, trimmed; and where each raw offset lands in the result."""
    out: list[str] = []
    shift = []
    space = True
    for char in raw:
        shift.append(len(out))
        if char.isspace():
            if not space:
                out.append(" ")
                space = True
        else:
            out.append(char)
            space = False
    while out and out[-1] == " ":
        out.pop()
    shift.append(len(out))
    return "".join(out), [min(s, len(out)) for s in shift]


def _valid(toc: list[TocEntry], sections: list[Section]) -> list[TocEntry]:
    """The contents re-pointed at the sections kept (an empty section's entry points at the next one)."""
    kept = [number for number, section in enumerate(sections) if section.segments]
    where = {old: min(bisect.bisect_left(kept, old), len(kept) - 1) for old in range(len(sections))}

    def fix(entries: list[TocEntry]) -> list[TocEntry]:
        for entry in entries:
            if entry.locator is not None:
                entry.locator = Locator(where.get(entry.locator.section, 0), 0)
            entry.children = fix(entry.children)
        return entries

    return fix(toc)


def _child(element: etree._Element | None, name: str) -> etree._Element | None:
    if element is None:
        return None
    return next((c for c in element if local_name(c) == name), None)


def _children(element: etree._Element | None, name: str) -> list[etree._Element]:
    return [] if element is None else [c for c in element if local_name(c) == name]


def _text(element: etree._Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def _person(author: etree._Element) -> str:
    parts = [_text(_child(author, part)) for part in ("first-name", "middle-name", "last-name")]
    return " ".join(p for p in parts if p) or _text(_child(author, "nickname"))


def _href(image: etree._Element | None) -> str:
    if image is None:
        return ""
    href = image.get(XLINK) or image.get("href") or image.get("{http://www.w3.org/1999/xlink}href") or ""
    return href[1:] if href.startswith("#") else ""


def _binary(root: etree._Element, ident: str) -> tuple[bytes, str] | None:
    element = next((b for b in _children(root, "binary") if b.get("id") == ident), None)
    if element is None or not element.text or len(element.text) > MAX_IMAGE_BYTES * 4 // 3 + 4:
        return None
    try:
        return base64.b64decode(element.text, validate=False), element.get("content-type", "image/jpeg")
    except (binascii.Error, ValueError):
        return None


@lru_cache(maxsize=2)
def _pictures(data: bytes) -> dict[str, bytes]:
    """Every picture of a FictionBook file by id (the last two files asked about are kept)."""
    root = parse_xml(unpack(data), "this FictionBook file")
    found = {}
    for element in _children(root, "binary"):
        ident, text = element.get("id"), element.text or ""
        if ident and len(text) <= MAX_IMAGE_BYTES * 4 // 3 + 4:
            try:
                found[ident] = base64.b64decode(text, validate=False)
            except (binascii.Error, ValueError):
                continue
    return found


def image(data: bytes, src: str) -> bytes | None:
    """A picture of a FictionBook file by its binary id (an image segment's ``src``)."""
    return _pictures(data).get(src)


def _picture(element: etree._Element, href: str) -> Segment:
    """An image segment: its title is FictionBook's caption; its alt text names it for screen readers only."""
    title, alt = (element.get("title") or "").strip(), (element.get("alt") or "").strip()
    return Segment(SegmentKind.IMAGE, title or alt, level=0 if title or not alt else ALT_TEXT, src=href)
