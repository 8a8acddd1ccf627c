"""MOBI and AZW3 (KF8) books: PalmDOC text records, EXTH metadata, the cover, pictures; DRM refused.

Written from the published format descriptions (MobileRead wiki: PDB, PalmDOC, MOBI header, EXTH, KF8):

- a Palm database whose record 0 holds the PalmDOC header (compression, text length, record count), the
  MOBI header (version, encryption, first picture record, the KF8 boundary) and the EXTH metadata;
- text records compressed with PalmDOC's LZ77 (type 2) or stored plain (1); each may end with "trailing
  entries" (sizes written backwards) that are not text;
- MOBI 6 text is one HTML document with ``<mbp:pagebreak/>`` between chapters and ``<img recindex="N">``;
- KF8 (AZW3, and the second half of a joint .mobi) stores each XHTML file as a skeleton followed by the
  fragments that go into its body; they are read back in that order, which for a skeleton with one insertion
  point (what calibre and Kindle tools write) is the file itself. Pictures are ``kindle:embed:XXXX``.

Huffman/CDIC-compressed books (type 17480, some Kindle Store files) are refused with a message.
"""

from __future__ import annotations

import bisect
import itertools
import re
import struct

from lxml import html as lxml_html

from core.books import mobi_contents
from core.books.html_blocks import document_title, extract_segments
from core.books.kf8_index import Fragment, NcxEntry, Skeleton, fragments, ncx_entries, skeletons
from core.books.locator import Locator
from core.books.model import Book, Metadata, Section, TocEntry
from core.books.text import book_from_text, converted_lines
from core.books.textutil import guess_language
from core.errors import BookFormatError, DrmProtectedError

MAX_TEXT_BYTES = 64 * 1024 * 1024
NO_INDEX = 0xFFFFFFFF
_PAGEBREAK = re.compile(rb"<mbp:pagebreak\s*/?>", re.I)
_KF8_FILE = re.compile(rb"(?:<\?xml[^>]*\?>\s*)?<html[\s>]", re.I)
_EMBED = re.compile(r"kindle:embed:([0-9A-V]{4})", re.I)
_XML_DECLARATION = re.compile(rb"<\?xml[^>]*\?>")
_SKELETON_END = re.compile(rb"</body>\s*</html>", re.I)
_RECINDEX = re.compile(rb'recindex="0*(\d+)"', re.I)


class _Records:
    """The records of a Palm database, each checked to lie inside the file."""

    def __init__(self, data: bytes) -> None:
        if len(data) < 78 + 8 or data[60:68] not in (b"BOOKMOBI", b"TEXtREAd"):
            raise BookFormatError("this is not a MOBI or AZW3 book (no BOOKMOBI header)")
        count = struct.unpack(">H", data[76:78])[0]
        if count < 2 or 78 + 8 * count > len(data):
            raise BookFormatError("this MOBI file's record list is damaged")
        starts = [struct.unpack(">I", data[78 + 8 * i : 82 + 8 * i])[0] for i in range(count)] + [len(data)]
        if any(a > b or b > len(data) for a, b in itertools.pairwise(starts)):
            raise BookFormatError("this MOBI file's records point outside it")
        self.data, self.starts, self.count = data, starts, count

    def __getitem__(self, index: int) -> bytes:
        if not 0 <= index < self.count:
            raise BookFormatError(f"this MOBI file refers to record {index}, which it does not have")
        return self.data[self.starts[index] : self.starts[index + 1]]


def palmdoc(data: bytes) -> bytes:
    """PalmDOC (LZ77) decompression of one text record."""
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i]
        i += 1
        if c == 0 or 9 <= c <= 0x7F:
            out.append(c)
        elif c <= 8:
            out += data[i : i + c]
            i += c
        elif c >= 0xC0:
            out += bytes((32, c ^ 0x80))
        else:
            if i >= len(data):
                break
            pair = (c << 8) | data[i]
            i += 1
            distance, length = (pair >> 3) & 0x7FF, (pair & 7) + 3
            if distance == 0 or distance > len(out):
                raise BookFormatError("this MOBI file's compressed text is damaged")
            for _ in range(length):
                out.append(out[-distance])
    return bytes(out)


def _trailing(record: bytes, flags: int) -> int:
    """How many bytes at the end of a text record are trailing entries, not text."""
    size = 0
    bits = flags >> 1
    while bits:
        if bits & 1:
            value, shift, end = 0, 0, len(record) - size
            while end > 0 and shift < 28:  # a size written backwards, 7 bits a byte, the first byte flagged
                byte = record[end - 1]
                value |= (byte & 0x7F) << shift
                shift += 7
                end -= 1
                if byte & 0x80:
                    break
            size += value
        bits >>= 1
    if flags & 1 and len(record) > size:
        size += (record[len(record) - size - 1] & 3) + 1
    return min(size, len(record))


def _exth(header: bytes) -> dict[int, list[bytes]]:
    found: dict[int, list[bytes]] = {}
    start = header.find(b"EXTH")
    if start < 0 or start + 12 > len(header):
        return found
    count = struct.unpack(">I", header[start + 8 : start + 12])[0]
    at = start + 12
    for _ in range(min(count, 10_000)):
        if at + 8 > len(header):
            break
        kind, size = struct.unpack(">II", header[at : at + 8])
        if size < 8 or at + size > len(header):
            break
        found.setdefault(kind, []).append(header[at + 8 : at + size])
        at += size
    return found


def _text(records: _Records, first: int) -> tuple[bytes, dict[int, list[bytes]], int, str]:
    """The decompressed text of the book whose record 0 is ``first``, its EXTH, first picture record, encoding."""
    head = records[first]
    if len(head) < 0x84 or head[16:20] != b"MOBI":
        raise BookFormatError("this MOBI file has no MOBI header")
    compression, _, length, count = struct.unpack(">HHIH", head[:10])
    encryption = struct.unpack(">H", head[12:14])[0]
    if encryption:
        raise DrmProtectedError("this book is locked with DRM (Kindle Store protection): Quire cannot open it")
    if compression not in (1, 2):
        raise BookFormatError("this MOBI book uses Huffman compression, which Quire does not read yet")
    header_length = struct.unpack(">I", head[20:24])[0]
    codepage = struct.unpack(">I", head[28:32])[0]
    first_image = struct.unpack(">I", head[0x6C:0x70])[0]
    flags = struct.unpack(">H", head[0xF2:0xF4])[0] if header_length >= 0xE4 and len(head) >= 0xF4 else 0
    exth = _exth(head[16 + header_length :]) if struct.unpack(">I", head[0x80:0x84])[0] & 0x40 else {}
    parts, total = [], 0
    for index in range(first + 1, first + 1 + count):
        record = records[index]
        record = record[: len(record) - _trailing(record, flags)]
        text = palmdoc(record) if compression == 2 else record
        total += len(text)
        if total > MAX_TEXT_BYTES:
            raise BookFormatError("this MOBI book's text is larger than any book Quire takes")
        parts.append(text)
    encoding = "cp1252" if codepage == 1252 else "utf-8"
    return b"".join(parts)[: max(length, 0) or None], exth, first + first_image, encoding


def read_mobi(data: bytes, fallback_title: str) -> Book:
    """Parse a MOBI 6, joint MOBI/KF8 or AZW3 book into the book model (KF8 when the file has it)."""
    records = _Records(data)
    text, exth, first_image, encoding = _text(records, 0)
    boundary = exth.get(121)
    kf8 = struct.unpack(">I", records[0][0x24:0x28])[0] == 8
    header = 0  # the record holding the header of the text read
    if boundary and not kf8:  # a joint file: read its KF8 half, which keeps the XHTML files apart
        start = struct.unpack(">I", boundary[0][:4])[0]
        if start != NO_INDEX and 0 < start < records.count:
            try:
                text, exth_kf8, first_image, encoding = _text(records, start)
                exth = {**exth, **exth_kf8}
                kf8, header = True, start
            except BookFormatError:
                pass  # the MOBI 6 half stays
    metadata = _metadata(exth, fallback_title, encoding)
    cover = exth.get(201)
    if cover:
        index = struct.unpack(">I", cover[0][:4])[0]
        if index != NO_INDEX and first_image + index < records.count:
            metadata.cover = records[first_image + index]
            metadata.cover_media_type = _image_type(metadata.cover)
    tables = (
        (skeletons(lambda n: records[header + n], _header_index(records[header], 0xFC)),
         fragments(lambda n: records[header + n], _header_index(records[header], 0xF8)))
        if kf8 else ([], [])
    )  # fmt: skip
    files = _files(text, kf8, tables)
    entries = _contents(records, header, encoding, text, tables[1] if len(files) == len(tables[0]) else [])
    starts = [start for start, _ in files]
    marks: dict[int, list[tuple[int, int]]] = {}  # file -> (offset in it, entry) for each entry of the contents
    for key, entry in enumerate(entries):
        file = max(0, bisect.bisect_right(starts, entry.position) - 1)
        marks.setdefault(file, []).append((max(0, entry.position - starts[file]), key))
    sections: list[Section] = []
    placed: dict[int, Locator] = {}  # entry -> where its anchor landed
    at_file: dict[int, int] = {}  # file -> the section it made (or the next one made after it)
    paragraphs: list[str] = []  # every paragraph's text, for a book that turns out to be one converted text
    for file, (_, document) in enumerate(files):
        at_file[file] = len(sections)
        document = mobi_contents.mark(document, marks.get(file, []))
        document = _XML_DECLARATION.sub(b"", document)
        document = _RECINDEX.sub(rb'src="\1"', document)  # MOBI 6 pictures: by record number
        if not document.strip():
            continue
        try:
            root = lxml_html.document_fromstring(
                document.decode(encoding, errors="replace"), parser=lxml_html.HTMLParser(no_network=True)
            )
        except (ValueError, lxml_html.etree.ParserError):
            continue
        segments = extract_segments(root, lambda href: _picture_src(href, first_image))
        for index, segment in enumerate(segments):
            ours = [a for a in segment.anchors if a.startswith(mobi_contents.ANCHOR)]
            for anchor in ours:
                placed[int(anchor[len(mobi_contents.ANCHOR) :])] = Locator(len(sections), index)
            if ours:
                segment.anchors = tuple(a for a in segment.anchors if not a.startswith(mobi_contents.ANCHOR))
        paragraphs += [" ".join("".join(p.itertext()).split()) for p in root.iter("p")]
        if segments:
            title = next((s.text for s in segments if s.kind == "heading"), "") or document_title(root)
            if not title and len(segments) > 1 and len(segments[0].text) <= 80:  # MOBI 6: a short first line
                title = segments[0].text
            sections.append(Section(title=title or f"{metadata.title} ({len(sections) + 1})", segments=segments))
    if not sections:
        raise BookFormatError("this MOBI book has no text in it")
    if len(sections) == 1:  # one run of lines (a text file converted): find its chapters as in a .txt
        converted = book_from_text(converted_lines(paragraphs), metadata.title, "mobi")
        sections, toc = converted.sections, converted.toc
        metadata.language = metadata.language or converted.metadata.language
        return Book("mobi", metadata, sections, toc, ["the book marks no chapters; they were found in its text"])
    metadata.language = metadata.language or guess_language(" ".join(s.text for s in sections[0].segments[:50]))
    for key, entry in enumerate(entries):  # an anchor lost (in a file's head, say): the start of its file
        file = max(0, bisect.bisect_right(starts, entry.position) - 1)
        placed.setdefault(key, Locator(min(at_file[file], len(sections) - 1), 0))
    ncx = _toc(entries, placed, sections)
    toc = ncx or [TocEntry(s.title, Locator(i, 0)) for i, s in enumerate(sections)]
    return Book(
        "mobi", metadata, sections, toc, [] if kf8 or ncx else ["chapters were found at the book's page breaks"]
    )


def _files(text: bytes, kf8: bool, tables: tuple[list[Skeleton], list[Fragment]]) -> list[tuple[int, bytes]]:
    """Each of the text's files, where it starts: a KF8 book's XHTML files put together from their skeletons and
    fragments (else cut at each ``<html``, the body's close taken out so the fragments stored after it are in
    it), a MOBI 6 book's runs between page breaks."""
    if kf8:
        assembled = _assembled(text, *tables)
        if assembled:
            return assembled
        cuts = [cut.start() for cut in _KF8_FILE.finditer(text)]
        bounds = [0, *cuts] if not cuts or cuts[0] else cuts
        return [(a, _SKELETON_END.sub(b"", text[a:b], count=1)) for a, b in itertools.pairwise([*bounds, len(text)])]
    breaks = list(_PAGEBREAK.finditer(text))
    ends = [*(b.start() for b in breaks), len(text)]
    return [(a, text[a:b]) for a, b in zip([0, *(b.end() for b in breaks)], ends, strict=True)]


def _assembled(text: bytes, skeletons: list[Skeleton], fragments: list[Fragment]) -> list[tuple[int, bytes]]:
    """A KF8 book's XHTML files as its tables put them together; [] when the tables do not fit the text."""
    files, used = [], 0
    for skeleton in skeletons:
        at = skeleton.start + skeleton.length
        if skeleton.fragments < 0 or used + skeleton.fragments > len(fragments) or at > len(text):
            return []
        document = text[skeleton.start : at]
        for fragment in fragments[used : used + skeleton.fragments]:
            cut = fragment.insert - skeleton.start
            if not 0 <= cut <= len(document) or at + fragment.length > len(text):
                return []
            document = document[:cut] + text[at : at + fragment.length] + document[cut:]
            at += fragment.length
        used += skeleton.fragments
        files.append((skeleton.start, document))
    return files


def _contents(records: _Records, header: int, encoding: str, text: bytes, fragments: list[Fragment]) -> list[NcxEntry]:
    """The book's own contents (its NCX; a MOBI 6 book's nested by its contents page), each entry placed."""
    head = records[header]
    entries = ncx_entries(lambda n: records[header + n], _header_index(head, 0xF4), encoding, fragments)
    page = None if fragments else mobi_contents.guide_contents_page(text)
    if entries and page is not None and page < len(text):
        after = _PAGEBREAK.search(text, page)
        entries = mobi_contents.nested_by_contents_page(
            entries, text[page : after.start() if after else None], encoding
        )
    return mobi_contents.placed(entries)


def _header_index(head: bytes, offset: int) -> int:
    """The first record of an index the MOBI header names at ``offset`` (NO_INDEX when it names none)."""
    return struct.unpack(">I", head[offset : offset + 4])[0] if len(head) >= offset + 4 else NO_INDEX


def _toc(entries: list[NcxEntry], placed: dict[int, Locator], sections: list[Section]) -> list[TocEntry]:
    """The contents as entries at their places, nested as ``entries`` nest; a section takes the title of the
    first entry that opens before its first heading ("Part 1" becomes "Book One: The Coming of the Martians").
    [] when the book has none."""
    toc: list[TocEntry] = []
    made: list[TocEntry] = []
    titled: set[int] = set()
    for key, entry in enumerate(entries):
        locator = placed[key]
        section = sections[locator.section]
        heading = next((i for i, s in enumerate(section.segments) if s.kind == "heading"), 0)
        if locator.section not in titled and entry.title and locator.segment <= heading:
            section.title = entry.title
            titled.add(locator.section)
        node = TocEntry(entry.title or section.title, locator)
        parent = made[entry.parent] if 0 <= entry.parent < len(made) else None
        (parent.children if parent is not None else toc).append(node)
        made.append(node)
    for siblings in [toc, *(node.children for node in made)]:  # a KF8 index lists its entries level by level
        siblings.sort(key=lambda node: (node.locator.section, node.locator.segment) if node.locator else (0, 0))
    return toc


def _metadata(exth: dict[int, list[bytes]], fallback: str, encoding: str) -> Metadata:
    def text(kind: int) -> str:
        return " ".join(exth[kind][0].decode(encoding, errors="replace").split()) if kind in exth else ""

    return Metadata(
        title=text(503) or fallback,
        authors=[" ".join(v.decode(encoding, errors="replace").split()) for v in exth.get(100, [])],
        language=text(524),
        publisher=text(101),
        description=text(103)[:2000],
    )


def _picture_src(href: str, first_image: int) -> str:
    """A picture's reference as a record number: MOBI 6 ``recindex``, KF8 ``kindle:embed:XXXX`` (base 32)."""
    embedded = _EMBED.search(href)
    if embedded:
        return f"record:{first_image + int(embedded.group(1), 32) - 1}"
    return f"record:{first_image + int(href) - 1}" if href.isdigit() else href


def _image_type(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"GIF8"):
        return "image/gif"
    return "image/jpeg"


def image(data: bytes, src: str) -> bytes | None:
    """A picture of a MOBI/AZW3 book by the record its image segment names (``record:N``)."""
    if not src.startswith("record:") or not src[7:].isdigit():
        return None
    try:
        record = _Records(data)[int(src[7:])]
    except BookFormatError:
        return None
    return record if record[:4] in (b"\xff\xd8\xff\xe0", b"\x89PNG", b"GIF8") or record[:3] == b"\xff\xd8\xff" else None
