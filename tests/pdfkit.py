"""Small text PDFs written by hand for the PDF reader's tests: runs of text placed at given positions and sizes.

A real layout (calibre's, Chromium's) is what the shared PDFs test; these place one thing at a time (a drop cap,
small capitals) where the shared files have none. Helvetica, one of the standard 14 fonts, needs no embedding.
"""

from __future__ import annotations

from collections.abc import Callable


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _page_object(add: Callable[[bytes], int], stream: bytes, pages_id: int, font: int) -> int:
    """A page's content stream and its page object (one font, a Letter page); the page object's number."""
    content = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
               b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font))  # fmt: skip


def _file(objects: list[bytes], catalog: int) -> bytes:
    """The objects written as a PDF file: header, numbered objects, cross-reference table, trailer."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    return bytes(out)


def text_pdf(pages: list[list[tuple[float, float, float, str]]], outline: list[tuple[str, int]] = ()) -> bytes:
    """A PDF whose pages draw runs ``(x, y, size, text)`` (y from the page's foot, 612 x 792 points); ``outline``
    entries (title, page index) go to the document outline."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    pages_id = len(objects) + 2 * len(pages) + (len(outline) + 1 if outline else 0) + 1
    page_ids = []
    for runs in pages:
        stream = b"".join(
            b"BT /F1 %.1f Tf %.1f %.1f Td (%s) Tj ET\n" % (size, x, y, _escape(text).encode("cp1252"))
            for x, y, size, text in runs
        )
        page_ids.append(_page_object(add, stream, pages_id, font))
    root_extra = b""
    if outline:
        first = len(objects) + 2
        items = []
        for index, (title, page) in enumerate(outline):
            links = b""
            if index:
                links += b" /Prev %d 0 R" % (first + index - 1)
            if index + 1 < len(outline):
                links += b" /Next %d 0 R" % (first + index + 1)
            items.append(b"<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]%s >>"
                         % (_escape(title).encode("cp1252"), first - 1, page_ids[page], links))  # fmt: skip
        outlines = add(b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>"
                       % (first, first + len(outline) - 1, len(outline)))  # fmt: skip
        for item in items:
            add(item)
        root_extra = b" /Outlines %d 0 R" % outlines
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    assert add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R%s >>" % (pages_id, root_extra))
    return _file(objects, catalog)


def cjk_pdf(pages: list[list[tuple[float, float, float, str]]]) -> bytes:
    """A PDF whose pages draw runs ``(x, y, size, text)`` in any Unicode (Chinese, a private-use footnote mark) as
    a converter writes them: a Type0 font by glyph ids (Identity-H, each glyph one em wide) with a ToUnicode map
    saying which character each is. The font is not embedded: the text layer is what the reader reads."""
    chars = sorted({ch for runs in pages for *_, text in runs for ch in text})
    cid = {ch: number for number, ch in enumerate(chars, 1)}
    pairs = "".join(f"<{cid[ch]:04X}> <{ord(ch):04X}>\n" for ch in chars)
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CIDSystemInfo << /Registry (Adobe) "
            "/Ordering (UCS) /Supplement 0 >> def /CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
            "1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
            f"{len(chars)} beginbfchar\n{pairs}endbfchar\n"
            "endcmap CMapName currentdict /CMap defineresource pop end end").encode()  # fmt: skip
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    unicode_map = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap))
    descendant = add(b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /QuireTest /CIDSystemInfo << /Registry "
                     b"(Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 >>")  # fmt: skip
    font = add(b"<< /Type /Font /Subtype /Type0 /BaseFont /QuireTest /Encoding /Identity-H /DescendantFonts "
               b"[%d 0 R] /ToUnicode %d 0 R >>" % (descendant, unicode_map))  # fmt: skip
    pages_id = len(objects) + 2 * len(pages) + 1
    page_ids = []
    for runs in pages:
        stream = b"".join(
            b"BT /F1 %.1f Tf %.1f %.1f Td <%s> Tj ET\n"
            % (size, x, y, "".join(f"{cid[ch]:04X}" for ch in text).encode())
            for x, y, size, text in runs
        )
        page_ids.append(_page_object(add, stream, pages_id, font))
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    assert add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    return _file(objects, catalog)
