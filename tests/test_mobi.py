"""MOBI and AZW3 (calibre's conversions of the shared books): the chapters and text of the source, metadata,
cover and pictures; DRM, Huffman and damaged files refused with one typed error."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from conftest import book_path

from core.books.formats import parse_book, read_book
from core.errors import BookFormatError, DrmProtectedError
from core.services import Quire

FORMATS = book_path("formats/epubjs-alice.azw3").parent


def _paragraphs(book, title: str) -> list[str]:
    """A chapter's paragraphs, whitespace and case aside (MOBI 6 keeps the capitals a stylesheet asked for)."""
    section = next(s for s in book.sections if s.title.casefold() == title.casefold())
    return [re.sub(r"\s+", "", seg.text).casefold() for seg in section.segments if seg.kind != "image"]


def _same_text(source: list[str], converted: list[str]) -> bool:
    """The same text once the converted chapter's extra paragraphs (pictures' captions) are left out."""
    whole = "".join(source)
    return "".join(p for p in converted if p in whole) == whole


@pytest.mark.parametrize(("name", "source"), [
    ("epubjs-alice.azw3", "en/epubjs-alice.epub"),
    ("epubjs-alice.mobi", "en/epubjs-alice.epub"),
    ("idpf-moby-dick.azw3", "en/idpf-moby-dick.epub"),
    ("idpf-moby-dick.mobi", "en/idpf-moby-dick.epub"),
])  # fmt: skip
def test_mobi_and_azw3_have_the_chapters_and_text_of_the_epub(name: str, source: str) -> None:
    epub, kindle = read_book(book_path(source)), read_book(FORMATS / name)
    assert kindle.format == "mobi" and kindle.metadata.title == epub.metadata.title
    assert kindle.metadata.authors == epub.metadata.authors and kindle.metadata.language == "en"
    assert kindle.metadata.cover and kindle.metadata.cover[:3] == b"\xff\xd8\xff"
    chapters = [s.title for s in epub.sections if s.title.startswith("Chapter ") or s.title.istitle()]
    chapters = [title for title in chapters if "Contents" not in title]  # pages a converter writes anew
    titles = {s.title.casefold() for s in kindle.sections}
    found = [title for title in chapters if title.casefold() in titles]
    assert len(found) >= len(chapters) - 3, sorted(set(chapters) - set(found))  # front matter aside
    for title in found:
        assert _same_text(_paragraphs(epub, title), _paragraphs(kindle, title)), title


def test_a_chinese_azw3_made_from_a_text_file_finds_its_chapters() -> None:
    txt, kindle = read_book(book_path("zh/luxun_nahan.txt")), read_book(FORMATS / "luxun-nahan.azw3")
    assert (kindle.metadata.title, kindle.metadata.authors, kindle.metadata.language) == ("呐喊", ["鲁迅"], "zh")
    titles = [s.title for s in kindle.sections]
    assert len(titles) == len(txt.sections) and titles[1:] == [s.title for s in txt.sections][1:]  # (the front:
    # the text file's first line, a story's title, heads the first chapter; the book's title heads it here)


def test_kindle_books_import_search_and_show_their_pictures(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    results = quire.import_paths([FORMATS / "epubjs-alice.azw3", FORMATS / "epubjs-alice.mobi"])
    assert all(r.error is None for r in results) and len(quire.books()) == 2
    for result in results:
        book = result.book
        assert book.has_cover and quire.find(book.id, "pink eyes")
        pictures = [
            s for n in range(book.segment_count and 6) for s in quire.text.section(book.id, n) if s.kind == "image"
        ]
        assert pictures and quire.text.image(book.id, pictures[0].src)[:3] == b"\xff\xd8\xff"


def _with_record0(data: bytes, offset: int, value: bytes) -> bytes:
    start = struct.unpack(">I", data[78:82])[0]
    return data[: start + offset] + value + data[start + offset + len(value) :]


def test_drm_huffman_and_damaged_kindle_files_are_refused() -> None:
    whole = (FORMATS / "epubjs-alice.azw3").read_bytes()
    with pytest.raises(DrmProtectedError, match="DRM"):
        parse_book(_with_record0(whole, 12, b"\x00\x02"), "locked.azw3")  # encryption type 2 (Mobipocket DRM)
    with pytest.raises(BookFormatError, match="Huffman"):
        parse_book(_with_record0(whole, 0, struct.pack(">H", 17480)), "huff.azw3")
    for damaged in (whole[:100], whole[:5000], whole[:78] + b"\xff" * 400, whole.replace(b"BOOKMOBI", b"BOOKMOBX")):
        try:
            parse_book(damaged, "damaged.azw3")
        except BookFormatError as error:
            assert str(error).isprintable()


@pytest.mark.parametrize(
    "name", ["epubjs-alice.azw3", "idpf-moby-dick.azw3", "epubjs-alice.mobi", "idpf-moby-dick.mobi"]
)
def test_the_contents_are_the_books_own_ncx_as_the_epub_names_them(name: str) -> None:
    """Issue 25, item 6: War of the Worlds' parts were cut to "Part 1" and not nested: the contents came from
    each file's first heading, not from the book's NCX. Now each entry is the NCX's, at the file its text is in."""
    converted = read_book(FORMATS / name)
    source = read_book(book_path(f"en/{name.rsplit('.', 1)[0]}.epub"))
    assert [e.title for _, e in converted.toc_entries()] == [e.title for _, e in source.toc_entries()]
    fold = lambda text: re.sub(r"\W+", "", text.casefold())  # noqa: E731
    opened = [
        fold(" ".join(s.text for s in converted.sections[e.locator.section].segments[:3]))[:400]
        for _, e in converted.toc_entries()
    ]
    titled = [fold(e.title) in text for (_, e), text in zip(converted.toc_entries(), opened, strict=True)]
    assert sum(titled) >= 0.9 * len(titled)  # each entry opens where its title is (a title page's may differ)


def test_the_ncx_nests_as_the_book_nests() -> None:
    book = read_book(FORMATS / "luxun-nahan.azw3")
    nested = [(depth, entry.title) for depth, entry in book.toc_entries()]
    assert (0, "鸭的喜剧") in nested and (1, "注释") in nested
    assert all(depth == 1 for depth, title in nested if title.startswith("注释"))  # each story's notes, inside it
    assert [title for depth, title in nested if depth == 0][:3] == ["鸭的喜剧", "《呐喊》自序", "头发的故事"]


def test_kindle_formats_read_as_their_sources_do() -> None:
    from bench import fidelity

    rows = [row for row in fidelity.run(FORMATS.parent) if row.file.endswith((".azw3", ".mobi"))]
    assert len(rows) == 5
    for row in rows:
        assert row.similarity >= 0.98 and row.found == row.chapters and not row.missing and not row.extra, row
