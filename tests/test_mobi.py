"""MOBI and AZW3 (calibre's conversions of the shared books): the chapters and text of the source, metadata,
cover and pictures; DRM, Huffman and damaged files refused with one typed error."""

from __future__ import annotations

import re
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import book_path, debian_file

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

    rows = fidelity.run(FORMATS.parent, ".azw3") + fidelity.run(FORMATS.parent, ".mobi")  # not the PDFs: 40 s of it
    assert len(rows) == 5
    for row in rows:
        assert row.similarity >= 0.98 and row.found == row.chapters and not row.missing and not row.extra, row


@pytest.fixture(scope="module")
def story_collection(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A story collection whose contents nest three deep with stories inside one file (I–IV of "A Four-Leaved
    Clover"), converted by calibre's ebook-convert to AZW3 (KF8) and to MOBI 6 (calibre writes its NCX flat)."""
    convert = debian_file("/usr/bin/ebook-convert", "calibre")
    source = book_path("en/idpf-childrens-literature.epub")
    folder = tmp_path_factory.mktemp("converted")
    made = {"azw3": folder / "stories.azw3", "mobi": folder / "stories.mobi"}
    for kind, target in made.items():
        extra = ["--mobi-file-type", "old"] if kind == "mobi" else []
        subprocess.run([str(convert), str(source), str(target), *extra], check=True, capture_output=True, timeout=300)
    return made


def _first_words(book, locator) -> str:
    """The first words read from a place: page numbers (a printed page's "169") and pictures skipped, on into the
    next file where a converter cut a section just before its heading."""
    section, segment = locator.section, locator.segment
    while section < len(book.sections):
        for seg in book.sections[section].segments[segment:]:
            words = re.sub(r"\W+", "", seg.text.casefold())
            if seg.kind != "image" and words and not words.isdigit():
                return words[:9]
        section, segment = section + 1, 0
    return ""


@pytest.mark.parametrize("kind", ["azw3", "mobi"])
def test_every_contents_entry_of_a_converted_book_opens_where_the_epub_opens_it(
    story_collection: dict[str, Path], kind: str
) -> None:
    """Issue 39, item 1: every entry inside a chapter pointed at the chapter's start ("A Four-Leaved Clover" › I,
    II, III, IV all at 9.0), and the MOBI 6 contents were not nested. Now each entry lands on the paragraph its
    heading starts (the NCX's kindle:pos fragment and offset, MOBI 6's filepos), nested as the EPUB nests them
    (MOBI 6: by the book's own contents page); an author heading with no link of its own opens at its first story."""
    epub, kindle = read_book(book_path("en/idpf-childrens-literature.epub")), read_book(story_collection[kind])
    tree = [(depth, entry.title) for depth, entry in kindle.toc_entries()]
    assert tree == [(depth, entry.title) for depth, entry in epub.toc_entries()]
    assert max(depth for depth, _ in tree) == 3
    for (_, source), (_, converted) in zip(epub.toc_entries(), kindle.toc_entries(), strict=True):
        assert _first_words(kindle, converted.locator) == _first_words(epub, source.locator), converted.title
    clover = next(entry for _, entry in kindle.toc_entries() if entry.title == "190 A FOUR-LEAVED CLOVER")
    parts = [(entry.locator.section, entry.locator.segment) for entry in clover.children]
    assert len(parts) == 4 and parts == sorted(set(parts)) and len({section for section, _ in parts}) == 1
    assert all(segment > 0 for _, segment in parts)  # inside the story's file, not at its start


def test_a_contents_anchor_never_splits_the_markup_it_goes_into() -> None:
    """Wherever a position in the body falls (inside a tag, an attribute, at its close), the marked file parses to
    the same text and the anchor is on one paragraph (one past the body's close is lost: its entry opens at its
    file's start)."""
    from lxml import html as lxml_html

    from core.books.html_blocks import extract_segments
    from core.books.mobi_contents import ANCHOR, mark

    document = b'<html><body><h2 id="x">One</h2><p class="a">Two <b>three</b></p><p>Four</p></body></html>'
    plain = [s.text for s in extract_segments(lxml_html.document_fromstring(document))]
    for offset in range(document.index(b"</body>") + 3):
        segments = extract_segments(lxml_html.document_fromstring(mark(document, [(offset, 7)])))
        assert [s.text for s in segments] == plain, offset
        assert sum(f"{ANCHOR}7" in s.anchors for s in segments) == 1, offset


def test_damaged_kindle_tables_fall_back_without_a_wrong_place() -> None:
    """A skeleton or fragment table that does not fit the text puts nothing together (the files are cut at each
    <html> as before); an NCX whose parents loop still gets every entry a place, and an entry that links nowhere
    takes its first child's."""
    from core.books.kf8_index import Fragment, NcxEntry, Skeleton
    from core.books.mobi import _assembled
    from core.books.mobi_contents import NO_PLACE, placed

    text = b"<html><body></body></html><p>x</p>"
    assert _assembled(text, [Skeleton(0, 26, 1)], [Fragment(12, 8)]) == [(0, b"<html><body><p>x</p></body></html>")]
    assert _assembled(text, [Skeleton(0, 26, 2)], [Fragment(12, 8)]) == []  # more fragments than the table has
    assert _assembled(text, [Skeleton(0, 26, 1)], [Fragment(99, 8)]) == []  # inserted outside its file
    assert _assembled(text, [Skeleton(0, 26, 1)], [Fragment(12, 999)]) == []  # longer than the text
    looped = [NcxEntry("a", 5, 0, 1), NcxEntry("b", 3, 0, 0)]
    assert len(placed(looped)) == 2
    unlinked = [NcxEntry("part", 10, 0, -1), NcxEntry("author", NO_PLACE, 1, 0), NcxEntry("story", 40, 2, 1)]
    assert [entry.position for entry in placed(unlinked)] == [10, 40, 40]
