"""A MOBI or AZW3 book's contents placed at the paragraph each entry names, nested as the book nests them.

Each entry of a Kindle book's NCX names a byte position in the book's text (KF8: in the file as its skeleton and
fragments put it together; MOBI 6: the ``filepos`` its links use). An empty anchor is written into the text at
each such position before the HTML is parsed, so an entry lands on the paragraph its heading starts, not at its
file's start. calibre flattens a MOBI 6 book's NCX ("so that chapter to chapter jumps work"); its nesting is kept
only in the contents page the book's guide names, whose lines nest in blockquotes or lists: that page gives the
levels, and the headings it lists without a link (an author above their stories), when every NCX entry is on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml import html as lxml_html

from core.books.kf8_index import NcxEntry

ANCHOR = "quire-toc-"
NO_PLACE = -1  # an entry with no position of its own: it opens where its first child does
_GUIDE_TOC = re.compile(rb"<reference\b[^>]*>", re.I)
_FILEPOS = re.compile(rb"filepos\s*=\s*[\"']?0*(\d+)", re.I)
_CONTAINERS = {"blockquote", "ul", "ol", "li", "dl", "dd"}
_LINE_BLOCKS = _CONTAINERS | {"p", "div"}
MAX_CONTENTS_PAGE = 4 * 1024 * 1024


def mark(document: bytes, marks: Sequence[tuple[int, int]]) -> bytes:
    """``document`` with an empty anchor ``quire-toc-K`` at each (offset, K); an offset inside a tag moves to the
    tag's start, so the markup stays whole."""
    pieces, last = [], 0
    for offset, key in sorted(marks):
        offset = max(last, min(offset, len(document)))
        opening, closing = document.rfind(b"<", last, offset), document.rfind(b">", last, offset)
        if opening > closing:
            offset = opening
        pieces += [document[last:offset], b'<a id="%s%d"></a>' % (ANCHOR.encode(), key)]
        last = offset
    return b"".join(pieces) + document[last:]


def guide_contents_page(text: bytes) -> int | None:
    """Where a MOBI 6 book's guide says its contents page starts (``<reference type="toc" filepos=…>``)."""
    for reference in _GUIDE_TOC.finditer(text[:65536]):
        tag = reference.group()
        found = _FILEPOS.search(tag)
        if found and re.search(rb"type\s*=\s*[\"']?toc\b", tag, re.I):
            return int(found.group(1))
    return None


def nested_by_contents_page(entries: list[NcxEntry], page: bytes, encoding: str) -> list[NcxEntry]:
    """A flat NCX nested as the contents page ``page`` nests its lines; ``entries`` unchanged unless every entry's
    position is one of the page's links."""
    if not entries or any(entry.level for entry in entries) or len(page) > MAX_CONTENTS_PAGE:
        return entries
    try:
        root = lxml_html.document_fromstring(page.decode(encoding, errors="replace"))
    except (ValueError, lxml_html.etree.ParserError):
        return entries
    lines: list[tuple[int, str, int]] = []  # (depth, title, position or NO_PLACE)
    for element in root.iter("a", *_LINE_BLOCKS):
        depth = sum(1 for up in element.iterancestors() if up.tag in _CONTAINERS)
        if element.tag == "a":
            link = _FILEPOS.search(b"filepos=" + (element.get("filepos") or "").encode())
            title = " ".join(element.text_content().split())
            if link and title:
                lines.append((depth, title, int(link.group(1))))
        elif element.tag in _CONTAINERS and not element.xpath(".//a[@filepos] | .//blockquote | .//li"):
            title = " ".join(element.text_content().split())
            if title and lines:  # a heading with no link of its own, after the page's first link
                lines.append((depth + 1, title, NO_PLACE))
    linked = {position for _, _, position in lines if position != NO_PLACE}
    if not {entry.position for entry in entries} <= linked:
        return entries
    while lines and lines[-1][2] == NO_PLACE:  # what follows the last link is not contents
        lines.pop()
    levels = {depth: level for level, depth in enumerate(sorted({depth for depth, _, _ in lines}))}
    nested: list[NcxEntry] = []
    open_at: list[int] = []  # the index of the last entry at each level
    for depth, title, position in lines:
        level = levels[depth]
        del open_at[level:]
        parent = open_at[-1] if open_at else -1
        nested.append(NcxEntry(title, position, len(open_at), parent))
        open_at.append(len(nested) - 1)
    return nested


def placed(entries: list[NcxEntry]) -> list[NcxEntry]:
    """Each entry with a place: one with none of its own (no position, or one before its parent's, as calibre
    writes a heading that links nowhere) opens where its earliest child does, else where its parent does."""
    result = list(entries)
    parents = [e.parent if 0 <= e.parent < len(entries) and e.parent != i else -1 for i, e in enumerate(entries)]
    depths = []
    for index in range(len(entries)):
        depth, up = 0, parents[index]
        while up >= 0 and depth < len(entries):  # bounded: a damaged index may loop
            depth, up = depth + 1, parents[up]
        depths.append(depth)
    children: dict[int, list[int]] = {}
    for index, parent in enumerate(parents):
        children.setdefault(parent, []).append(index)
    for index in sorted(range(len(entries)), key=lambda i: -depths[i]):  # children first: one may borrow from its own
        entry, parent = result[index], parents[index]
        if entry.position != NO_PLACE and (parent < 0 or entry.position >= entries[parent].position):
            continue
        below = [result[child].position for child in children.get(index, []) if result[child].position != NO_PLACE]
        position = min(below) if below else entries[parent].position if parent >= 0 else NO_PLACE
        result[index] = NcxEntry(entry.title, position, entry.level, parent)
    return result
