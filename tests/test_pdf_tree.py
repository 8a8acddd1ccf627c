"""A long PDF's page tree walked by its counts: the same pages, inherited entries and page numbers as pypdf's
flattening, on every shared PDF and on trees nested, inheriting and lying; a tree that does not add up is left to
pypdf, and the first part read either way is the same book."""

from __future__ import annotations

import io

import pypdf
import pytest
from conftest import book_path

from core.books import pdf
from core.books.model import Book
from core.books.pdf_tree import PageTree, Unwalkable
from core.errors import QuireError

SHARED = ["formats/epubjs-alice.pdf", "formats/idpf-moby-dick.pdf", "formats/luxun-nahan.pdf",
          "formats/libtasn1-manual-pdftex.pdf", "formats/alice-scanned.pdf"]  # fmt: skip


def _reader(data: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(data), strict=False)


def _same_page(walked: pypdf.PageObject, flattened: pypdf.PageObject) -> None:
    assert walked.indirect_reference == flattened.indirect_reference
    assert dict(walked) == dict(flattened)  # its own entries and what it inherits


@pytest.mark.parametrize("name", SHARED)
def test_each_shared_pdf_walked_by_its_counts_gives_pypdfs_pages_and_page_numbers(name: str) -> None:
    reader = _reader(book_path(name).read_bytes())
    tree = PageTree(reader)
    asked = sorted({0, 1, len(tree) // 3, len(tree) // 2, len(tree) - 1})
    walked = {number: (tree[number], tree[number].extract_text()) for number in asked}
    references = [page.indirect_reference for page in tree_pages(tree)]
    numbers = [tree.number_of(reference) for reference in references]
    assert reader.flattened_pages is None  # nothing above made pypdf read every page object
    assert len(tree) == len(reader.pages)  # now flattened, by pypdf's own walk
    for number, (page, text) in walked.items():
        _same_page(page, reader.pages[number])
        assert text == reader.pages[number].extract_text()
    assert references == [page.indirect_reference for page in reader.pages]
    assert numbers == list(range(len(tree)))
    with pytest.raises(IndexError):
        tree[len(tree)]


def tree_pages(tree: PageTree) -> list[pypdf.PageObject]:
    return [tree[number] for number in range(len(tree))]


def _pdf(objects: dict[int, str]) -> bytes:
    """A PDF of these numbered objects (1 is the catalog), with a correct cross-reference table."""
    out, offsets = b"%PDF-1.7\n", {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n{objects[number]}\nendobj\n".encode()
    start, size = len(out), max(objects) + 1
    out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
    out += b"".join((f"{offsets[n]:010d} 00000 n \n" if n in offsets else "0000000000 65535 f \n").encode()
                    for n in range(1, size))  # fmt: skip
    return out + f"trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{start}\n%%EOF\n".encode()


def _page(parent: int, content: int, extra: str = "") -> str:
    return f"<< /Type /Page /Parent {parent} 0 R /Contents {content} 0 R {extra} >>"


def _text(*lines: str) -> str:
    shown = " ".join(f"({line}) Tj 0 -14 Td" for line in lines)
    stream = f"BT /F1 12 Tf 72 300 Td {shown} ET"
    return f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream"


def _nested() -> dict[int, str]:
    """Seven pages in a tree three deep: a flat node, a mixed one holding a node, entries inherited on the way."""
    objects = {
        1: "<< /Type /Catalog /Pages 2 0 R >>",
        2: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 7 /Resources << /Font << /F1 5 0 R >> >> "
           "/MediaBox [0 0 300 400] >>",
        3: "<< /Type /Pages /Parent 2 0 R /Kids [10 0 R 11 0 R 12 0 R] /Count 3 /Rotate 90 >>",
        4: "<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 15 0 R 16 0 R] /Count 4 >>",
        5: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        6: "<< /Type /Pages /Parent 4 0 R /Kids [13 0 R 14 0 R] /Count 2 /MediaBox [0 0 200 200] >>",
    }  # fmt: skip
    parents = {10: 3, 11: 3, 12: 3, 13: 6, 14: 6, 15: 4, 16: 4}
    for number, parent in parents.items():
        extra = "/MediaBox [0 0 100 100]" if number == 14 else ""  # its own wins over what it would inherit
        objects[number] = _page(parent, number + 10, extra)
        objects[number + 10] = _text(f"page {number - 10}")
    return objects


def test_a_nested_tree_gives_each_page_with_what_it_inherits_and_its_number() -> None:
    reader = _reader(_pdf(_nested()))
    tree = PageTree(reader)
    for number in (6, 0, 4, 3, 5, 1, 2):  # any order: each page found from the root
        assert tree[number].extract_text().strip() == f"page {number}"
    assert reader.flattened_pages is None
    assert len(tree) == len(reader.pages) == 7
    for number, page in enumerate(reader.pages):
        _same_page(tree[number], page)
        assert tree.number_of(page.indirect_reference) == number
    assert tree[0]["/Rotate"] == 90 and list(tree[3]["/MediaBox"]) == [0, 0, 200, 200]
    assert list(tree[4]["/MediaBox"]) == [0, 0, 100, 100] and list(tree[5]["/MediaBox"]) == [0, 0, 300, 400]
    assert tree.number_of(6) is None and tree.number_of(None) is None  # a node is not a page


@pytest.mark.parametrize(
    ("change", "ask"),
    [
        ({2: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 9 >>"}, 0),  # counts that do not add up
        ({4: "<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 15 0 R] /Count 4 >>"}, 6),  # a node holding fewer
        ({3: "<< /Type /Pages /Parent 2 0 R /Kids [10 0 R 11 0 R 3 0 R] /Count 3 >>"}, 2),  # a loop
        ({3: "<< /Type /Pages /Parent 2 0 R /Kids [10 0 R 11 0 R 7] /Count 3 >>"}, 2),  # a kid that is a number
        ({12: "<< >>"}, 2),  # an empty kid: pypdf skips it, so its numbers differ from the counts'
        ({12: "<< /Type /Annot >>"}, 2),  # a kid of another type: pypdf skips it too
        ({2: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count -1 >>"}, None),  # no sensible count
    ],
)
def test_a_tree_whose_counts_cannot_be_trusted_is_unwalkable(change: dict[int, str], ask: int | None) -> None:
    data = _pdf({**_nested(), **change})
    with pytest.raises(Unwalkable):
        PageTree(_reader(data))[ask] if ask is not None else PageTree(_reader(data))


_NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo",
          "Kay", "Lou", "Mo", "Ned", "Oz", "Pip", "Quin", "Ray", "Sue", "Ty", "Uma", "Vi"]  # fmt: skip


def test_nodes_of_no_pages_are_passed_over_even_when_they_hold_themselves() -> None:
    objects = _nested()
    objects[2] = "<< /Type /Pages /Kids [8 0 R 3 0 R 4 0 R] /Count 7 /Resources << /Font << /F1 5 0 R >> >> >>"
    objects[8] = "<< /Type /Pages /Parent 2 0 R /Kids [8 0 R 8 0 R 8 0 R] /Count 0 >>"  # walked, a loop: Unwalkable
    reader = _reader(_pdf(objects))
    tree = PageTree(reader)
    assert [tree[n].extract_text().strip() for n in range(7)] == [f"page {n}" for n in range(7)]
    assert tree.number_of(reader.get_object(16).indirect_reference) == 6


def _long(pages: int, empty: int | None = None) -> bytes:
    """A flat tree of ``pages`` pages of text (the one numbered ``empty`` an empty dictionary, which pypdf skips)."""
    kids = " ".join(f"{100 + n} 0 R" for n in range(pages))
    objects = {
        1: "<< /Type /Catalog /Pages 2 0 R >>",
        2: f"<< /Type /Pages /Kids [{kids}] /Count {pages} /Resources << /Font << /F1 5 0 R >> >> "
           "/MediaBox [0 0 612 792] >>",
        5: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }  # fmt: skip
    for n in range(pages):
        objects[100 + n] = "<< >>" if n == empty else _page(2, 1000 + n)
        name = f"{_NAMES[n % 10]} {_NAMES[10 + n // 10]}"  # no line repeats, digits aside (a running head)
        objects[1000 + n] = _text(f"{name} walked down to the sea", f"and {name} came back home again.")
    return _pdf(objects)


def _first_part(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Book, list[bool]]:
    """``read_pdf``'s first part of 40 pages, and each read's ``walk`` (a second read: the walk gave up)."""
    walks: list[bool] = []
    own = pdf._read_pdf

    def counted(*args: object, walk: bool = False) -> Book:
        walks.append(walk)
        return own(*args, walk=walk)  # type: ignore[arg-type]

    monkeypatch.setattr(pdf, "_read_pdf", counted)
    return pdf.read_pdf(data, "long", first_pages=40), walks


@pytest.mark.parametrize("empty", [None, 52])  # 52: a sampled page (of 2, 7, ... 117), so the walk meets it
def test_a_long_pdfs_first_part_is_the_same_book_walked_or_numbered_by_pypdf(
    empty: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _long(120, empty)
    numbered = pdf._read_pdf(data, "long", None, 40, walk=False)
    walked, walks = _first_part(data, monkeypatch)
    assert walks == ([True] if empty is None else [True, False])
    assert walked == numbered and walked.pages_read == (40, 120 if empty is None else 119)
    texts = [segment.text for section in walked.sections for segment in section.segments]
    assert texts[0].startswith("Ann Kay walked down to the sea and Ann Kay came back home again.")
    assert "Ida Ned walked" in " ".join(texts) and "Ann Oz" not in " ".join(texts)  # pages 39 and 41


def test_an_encrypted_long_pdf_opened_with_its_empty_password_is_walked_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = pypdf.PdfWriter(clone_from=_reader(_long(120)))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    data = out.getvalue()
    assert _reader(data).is_encrypted
    numbered = pdf._read_pdf(data, "long", None, 40, walk=False)
    walked, walks = _first_part(data, monkeypatch)
    assert walks == [True] and walked == numbered and walked.pages_read == (40, 120)


@pytest.mark.parametrize("name", ["formats/idpf-moby-dick.pdf", "formats/luxun-nahan.pdf"])
def test_each_long_shared_pdfs_first_part_is_the_same_book_walked_or_numbered_by_pypdf(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = book_path(name).read_bytes()
    numbered = pdf._read_pdf(data, "long", None, 40, walk=False)
    walked, walks = _first_part(data, monkeypatch)
    assert walks == [True] and walked == numbered


@pytest.mark.parametrize(
    ("old", "new"),
    [(b"/Count 120", b"/Count " + count) for count in (b"-1", b"0", b"79", b"81", b"121", b"1000000000", b"(x)")]
    + [(b"[100 0 R", b"[" + kid) for kid in (b"2 0 R", b"1 0 R", b"5 0 R", b"9999 0 R", b"1000 0 R", b"(x)")]
    + [(b"/Kids [", b"/Kids 7 /Old ["), (b"/Type /Pages", b"/Type /Page"), (b"/Type /Pages", b"")],
)
def test_a_long_pdfs_page_tree_damaged_gives_a_first_part_or_a_typed_error(old: bytes, new: bytes) -> None:
    data = _long(120)
    assert old in data
    try:
        book = pdf.read_pdf(data.replace(old, new, 1), "long", first_pages=40)
    except QuireError:
        return  # refused, saying why
    assert isinstance(book, Book) and book.sections
