"""FictionBook 2: calibre's conversions of the shared EPUB and TXT books read back with the same chapters and
text, metadata, cover and pictures; .fb2.zip; hostile files refused with one typed error."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from conftest import book_path

from core.books.formats import parse_book, read_book
from core.errors import BookFormatError
from core.services import Quire

FORMATS = book_path("formats/epubjs-alice.fb2").parent


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _chapters(book) -> dict[str, list[str]]:
    """Chapter title -> its paragraphs' text (pictures left out), for the chapters the contents name."""
    titles = {entry.locator.section: entry.title for _, entry in book.toc_entries() if entry.locator}
    return {
        titles[number]: [_words(s.text) for s in section.segments if s.kind != "image" and s.text.strip()]
        for number, section in enumerate(book.sections)
        if number in titles
    }


def _same_text(source: list[str], converted: list[str]) -> bool:
    """The same text, whitespace and paragraph breaks aside (calibre splits a poem into lines), once the
    converted chapter's extra paragraphs (pictures' captions, which the EPUB keeps with the picture) are left out."""
    whole = re.sub(r"\s+", "", "".join(source))
    kept = [p for p in converted if re.sub(r"\s+", "", p) in whole]
    return re.sub(r"\s+", "", "".join(kept)) == whole


@pytest.mark.parametrize("name", ["epubjs-alice", "idpf-moby-dick"])
def test_the_fb2_has_the_chapters_and_text_of_the_epub_it_was_made_from(name: str) -> None:
    epub, fb2 = read_book(book_path(f"en/{name}.epub")), read_book(FORMATS / f"{name}.fb2")
    assert fb2.format == "fb2" and fb2.metadata.title == epub.metadata.title
    assert fb2.metadata.authors == epub.metadata.authors and fb2.metadata.language == "en"
    assert fb2.metadata.cover and fb2.metadata.cover[:3] == b"\xff\xd8\xff"  # the cover, a JPEG
    source, converted = _chapters(epub), _chapters(fb2)
    missing = [title for title in source if title not in converted]
    assert set(missing) <= {"Title Page", "Moby-Dick", "Copyright Page"}  # front matter calibre leaves untitled
    for title in source:
        if title in converted:
            assert _same_text(source[title], converted[title]), title


def test_a_chinese_fb2_without_chapter_markup_finds_the_chapters_of_its_text() -> None:
    txt, fb2 = read_book(book_path("zh/luxun_nahan.txt")), read_book(FORMATS / "luxun-nahan.fb2")
    assert (fb2.metadata.title, fb2.metadata.authors, fb2.metadata.language) == ("呐喊", ["鲁迅"], "zh")
    chapters = [entry.title for _, entry in txt.toc_entries()]
    found = {entry.title for _, entry in fb2.toc_entries()}
    assert sum(title in found for title in chapters) >= len(chapters) - 2, sorted(set(chapters) - found)
    assert _words("".join(s.text for s in fb2.sections[-1].segments))[-20:] in _words(
        txt.sections[-1].segments[-1].text + ""
    )


def test_fb2_imports_searches_and_serves_its_pictures(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    [result] = quire.import_paths([FORMATS / "epubjs-alice.fb2"])
    book = result.book
    assert book.has_cover and [h.section_title for h in quire.find(book.id, "pink eyes")][:1] == [
        "Down The Rabbit-Hole"
    ]
    picture = next(s for s in quire.text.section(book.id, 3) if s.kind == "image")
    assert quire.text.image(book.id, picture.src)[:3] == b"\xff\xd8\xff"
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("alice.fb2", (FORMATS / "epubjs-alice.fb2").read_bytes())
    again = quire.import_bytes(zipped.getvalue(), "alice.fb2.zip")
    assert again.book.title == book.title and again.book.segment_count == book.segment_count
    assert quire.text.image(again.book.id, picture.src)[:3] == b"\xff\xd8\xff"  # from inside the .zip


HOSTILE = {
    "not FictionBook": b"<?xml version='1.0'?><html><body><p>hi</p></body></html>",
    "no body": b"<?xml version='1.0'?><FictionBook xmlns='http://www.gribuser.ru/xml/fictionbook/2.0'></FictionBook>",
    "external entity": b"<?xml version='1.0'?><!DOCTYPE f [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
    b"<FictionBook xmlns='http://www.gribuser.ru/xml/fictionbook/2.0'><body><section><p>&x;</p></section></body>"
    b"</FictionBook>",
    "zip without fb2": b"PK\x05\x06" + b"\x00" * 18,
    "cut short": (FORMATS / "epubjs-alice.fb2").read_bytes()[:300],
    "binary junk": bytes(range(256)) * 10,
}


REFUSED_BECAUSE = {
    "not FictionBook": "not a FictionBook",
    "no body": "no text in its body",
    "zip without fb2": "holds no .fb2 file",
    "cut short": "no text in its body",
    "binary junk": "not readable XML",
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_fb2_files_are_refused_with_one_typed_error(case: str) -> None:
    name = "x.fb2.zip" if case == "zip without fb2" else "x.fb2"
    if case == "external entity":  # read, with the entity left as written: no file is ever opened
        book = parse_book(HOSTILE[case], name)
        text = " ".join(s.text for section in book.sections for s in section.segments)
        assert "root:" not in text and "&x;" in text
        return
    with pytest.raises(BookFormatError, match=REFUSED_BECAUSE[case]) as refused:
        parse_book(HOSTILE[case], name)
    assert str(refused.value).isprintable() and len(str(refused.value)) <= 240


def test_deep_nesting_and_a_bad_picture_do_not_break_the_reader() -> None:
    deep = b"<section>" * 3000 + b"<p>deep</p>" + b"</section>" * 3000
    data = (b"<?xml version='1.0'?><FictionBook xmlns='http://www.gribuser.ru/xml/fictionbook/2.0'"
            b" xmlns:l='http://www.w3.org/1999/xlink'><body>" + deep + b"<section><p>shallow</p>"
            b"<image l:href='#bad'/></section></body><binary id='bad' content-type='image/png'>!!!not base64"
            b"</binary></FictionBook>")  # fmt: skip
    with pytest.raises(BookFormatError, match="nested too deeply"):  # once "no text in its body": misleading
        parse_book(data, "deep.fb2")
    shallow = data.replace(b"<section>" * 3000, b"<section>" * 50).replace(b"</section>" * 3000, b"</section>" * 50)
    book = parse_book(shallow, "deep.fb2")  # deep, not too deep: read, and the bad picture is only skipped
    assert any(s.text == "shallow" for section in book.sections for s in section.segments)
