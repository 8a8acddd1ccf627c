"""CBZ comics: pages in name order with ComicInfo.xml metadata, served one by one; hostile archives refused."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from conftest import book_path

from core.books.formats import parse_book
from core.errors import BookFormatError
from core.services import Quire

COMIC = book_path("formats/alice-illustrations.cbz")


def _zip(files: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_comic_is_its_pages_in_order_with_its_comicinfo(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    [result] = quire.import_paths([COMIC])
    book = result.book
    assert (book.format, book.title, book.authors, book.language) == (
        "cbz", "Alice's Adventures in Wonderland: the illustrations", ["Lewis Carroll"], "en"
    )  # fmt: skip
    assert book.segment_count == 24 and book.char_count == 0 and book.has_cover
    pages = [quire.text.section(book.id, n)[0] for n in range(24)]
    assert [p.src for p in pages] == [f"page{n:03d}.jpg" for n in range(1, 25)]
    assert all(quire.text.image(book.id, p.src)[:3] == b"\xff\xd8\xff" for p in pages[:3])
    assert quire.cover(book.id)[0] == quire.text.image(book.id, "page001.jpg")
    assert quire.find(book.id, "Alice") == [] and quire.search(book.id, "Alice", mode="keyword") == []


def test_pages_sort_naturally_and_comicinfo_is_optional() -> None:
    jpeg = COMIC.read_bytes()
    page = zipfile.ZipFile(io.BytesIO(jpeg)).read("page001.jpg")
    data = _zip({"p10.jpg": page, "p2.jpg": page, "p1.png": page, "notes.txt": b"x", "__MACOSX/._p1.png": b"x"})
    book = parse_book(data, "My Comic.cbz")
    assert book.metadata.title == "My Comic" and [s.segments[0].src for s in book.sections] == ["p1.png", "p2.jpg",
                                                                                                "p10.jpg"]  # fmt: skip


HOSTILE = {
    "not a zip": b"this is not a comic",
    "no pages": _zip({"readme.txt": b"hello"}),
    "outside": _zip({"../../etc/page.jpg": b"\xff\xd8\xff" + b"0" * 100}),
    "bomb": _zip({"page.png": b"\x00" * (8 * 1024 * 1024)}, zipfile.ZIP_DEFLATED),
    "bad comicinfo": _zip({"ComicInfo.xml": b"<ComicInfo><Title>x", "p.jpg": b"\xff\xd8\xff"}),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_comics_are_refused_with_one_typed_error(case: str, tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    try:
        book = parse_book(HOSTILE[case], f"{case}.cbz")
    except BookFormatError as error:
        assert str(error).isprintable()
        [result] = quire.import_paths([_write(tmp_path, case)])
        assert result.error is not None and quire.books() == []  # nothing written
        return
    assert case == "bad comicinfo" and book.segment_count == 1  # a broken ComicInfo.xml is read as far as it goes


def _write(tmp_path: Path, case: str) -> Path:
    path = tmp_path / f"{case}.cbz"
    path.write_bytes(HOSTILE[case])
    return path
