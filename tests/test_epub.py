"""EPUB reading on the shared real books and on small crafted ones."""

import re

import pytest
from conftest import book_path
from epubkit import make_epub

from core.books import Locator, SegmentKind, parse_book, read_book


def test_moby_dick_has_135_chapters_and_its_front_and_back_matter_in_spine_order() -> None:
    book = read_book(book_path("en/idpf-moby-dick.epub"))
    titles = [s.title for s in book.sections]
    chapters = [i for i, t in enumerate(titles) if re.match(r"Chapter \d+\.", t)]
    assert len(chapters) == 135
    numbers = [int(re.match(r"Chapter (\d+)", titles[i]).group(1)) for i in chapters]
    assert numbers == list(range(1, 136))
    assert chapters == list(range(chapters[0], chapters[0] + 135))  # contiguous, in order
    front, back = titles[: chapters[0]], titles[chapters[-1] + 1 :]
    assert "ETYMOLOGY." in front and any("EXTRACTS" in t for t in front)
    assert "Epilogue" in back
    assert book.metadata.title == "Moby-Dick"
    assert book.metadata.authors == ["Herman Melville"]
    assert book.metadata.language.startswith("en")
    assert book.metadata.cover and book.metadata.cover_media_type.startswith("image/")
    assert any(not s.linear for s in book.sections), "linear='no' items are kept and marked"


def test_moby_dick_toc_entries_point_at_their_chapter_headings() -> None:
    book = read_book(book_path("en/idpf-moby-dick.epub"))
    entries = [e for _, e in book.toc_entries() if e.title.startswith("Chapter ")]
    assert len(entries) == 135
    for entry in entries:
        segment = book.sections[entry.locator.section].segments[entry.locator.segment]
        assert segment.kind == SegmentKind.HEADING
        assert segment.text.split(".")[0] == entry.title.split(".")[0]
    first = book.sections[entries[0].locator.section]
    assert any(s.text.startswith("Call me Ishmael.") for s in first.segments)


def test_alice_epub2_ncx_toc_and_chapter_titles() -> None:
    book = read_book(book_path("en/epubjs-alice.epub"))
    assert book.metadata.title == "Alice's Adventures in Wonderland"
    toc_titles = [e.title for _, e in book.toc_entries()]
    assert "Down The Rabbit-Hole" in toc_titles and "Alice's Evidence" in toc_titles
    assert all(e.locator is not None for _, e in book.toc_entries())
    assert book.warnings == []


def test_childrens_literature_keeps_its_large_single_file_as_many_segments() -> None:
    book = read_book(book_path("en/idpf-childrens-literature.epub"))
    assert book.metadata.title == "Children's Literature"
    assert max(len(s.segments) for s in book.sections) > 1000


def test_kusamakura_japanese_text_and_missing_audio_are_warnings() -> None:
    book = read_book(book_path("ja/idpf-kusamakura-japanese-vertical-writing.epub"))
    assert book.metadata.title == "草枕"
    assert book.metadata.language.startswith("ja")
    text = " ".join(s.text for section in book.sections for s in section.segments)
    assert "山路を登りながら" in text
    assert " " not in "".join(s.text for s in book.sections[3].segments)[:200], "no stray spaces inside Japanese"
    missing = [w for w in book.warnings if "audio" in w]
    assert len(missing) == 2


def test_minimal_epubs_open() -> None:
    for name in ("minimal/epubcheck-minimal.epub", "minimal/epubcheck-epub2-minimal.epub"):
        book = read_book(book_path(name))
        assert len(book.sections) == 1 and book.segment_count >= 1
        assert book.metadata.title.startswith("Minimal EPUB")


def test_reimport_gives_identical_locators() -> None:
    data = book_path("en/epubjs-alice.epub").read_bytes()
    first = [(str(loc), seg.text) for _, loc, _, seg in parse_book(data, "a.epub").segments_with_locators()]
    second = [(str(loc), seg.text) for _, loc, _, seg in parse_book(data, "b.epub").segments_with_locators()]
    assert first == second


def test_blocks_become_typed_segments_with_spans_and_anchors() -> None:
    body = (
        '<p id="p1">Plain <em>emphasised</em> and <strong>bold</strong> text<a href="#n1"><sup>1</sup></a>.</p>'
        "<blockquote><p>A quoted line.</p></blockquote>"
        "<ul><li>First item<ul><li>Nested item</li></ul></li></ul>"
        "<pre>  keep   spacing\n  here</pre>"
        '<figure><img src="img/fig.png" alt="alt text"/><figcaption>The caption</figcaption></figure>'
        "<table><tr><th>Name</th><th>Age</th></tr><tr><td>Ahab</td><td>58</td></tr></table>"
        '<aside id="n1"><p>1. The footnote text.</p></aside>'
        "<p>中文段落\n  第二行</p>"
    )
    book = parse_book(make_epub([("Forms", body)], extra={"OEBPS/img/fig.png": b"\x89PNG"}), "f.epub")
    segments = book.sections[0].segments
    kinds = [(s.kind, s.text) for s in segments]
    assert kinds[0] == (SegmentKind.HEADING, "Forms")
    paragraph = segments[1]
    assert paragraph.text == "Plain emphasised and bold text1."  # the note link survives as text
    assert {(paragraph.text[s.start : s.end], s.style) for s in paragraph.spans} >= {
        ("emphasised", "em"),
        ("bold", "strong"),
    }
    assert paragraph.anchors == ("p1",)
    assert (SegmentKind.QUOTE, "A quoted line.") in kinds
    items = [(s.text, s.level) for s in segments if s.kind == SegmentKind.LIST_ITEM]
    assert items == [("First item", 1), ("Nested item", 2)]
    assert (SegmentKind.PREFORMATTED, "  keep   spacing\n  here") in kinds
    image = next(s for s in segments if s.kind == SegmentKind.IMAGE)
    assert (image.src, image.text) == ("OEBPS/img/fig.png", "The caption")
    assert [s.text for s in segments if s.kind == SegmentKind.TABLE_ROW] == ["Name | Age", "Ahab | 58"]
    assert any(s.text == "1. The footnote text." and "n1" in s.anchors for s in segments)
    assert segments[-1].text == "中文段落第二行"
    assert book.warnings == []


def test_missing_image_is_a_warning_and_toc_fragment_resolves() -> None:
    body = '<p>Before</p><img src="gone.png" alt="lost"/><h2 id="later">Later part</h2><p>After</p>'
    data = make_epub([("Only", body)], extra={})
    book = parse_book(data, "x.epub")
    assert any("missing image 'OEBPS/gone.png'" in w for w in book.warnings)
    section = book.sections[0]
    later = next(i for i, s in enumerate(section.segments) if s.text == "Later part")
    assert later > 0 and "later" in section.segments[later].anchors
    assert book.toc[0].locator == Locator(0, 0)


def test_block_anchor_after_loose_text_belongs_to_its_own_block() -> None:
    book = parse_book(make_epub([("A", 'Loose text<p id="target">Target paragraph</p>')]), "a.epub")
    segments = book.sections[0].segments
    loose = next(s for s in segments if s.text == "Loose text")
    target = next(s for s in segments if s.text == "Target paragraph")
    assert (loose.anchors, target.anchors) == ((), ("target",))


def test_html_named_entities_without_a_dtd_still_read() -> None:
    data = make_epub([("E", "<p>caf&eacute;&nbsp;noir &amp; more</p>")])
    book = parse_book(data, "e.epub")
    assert book.sections[0].segments[1].text == "café\xa0noir & more"


def test_an_svg_cover_coloured_by_its_stylesheet_keeps_its_colours() -> None:
    """Flutter's SVG renderer ignores <style>: a Standard Ebooks cover's white title was drawn black."""
    from epubkit import make_epub
    from lxml import etree

    from core.books.formats import parse_book

    svg = (
        '<?xml version="1.0" encoding="utf-8"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1400 2100">'
        "<style>/* Standard Ebooks */ text, .title { fill: #fff; } #band { fill: rgba(0, 0, 0, .75) } "
        "svg > g path { stroke: red }</style>"
        '<rect id="band" width="1400" height="500"/><text class="title" y="300" style="font-size: 80px">Title</text>'
        "</svg>"
    )
    import io
    import zipfile

    plain = zipfile.ZipFile(io.BytesIO(make_epub()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for info in plain.infolist():
            content = plain.read(info)
            if info.filename.endswith("content.opf"):  # the cover in the manifest, as EPUB 3 marks it
                item = b'<item id="cover" href="cover.svg" media-type="image/svg+xml" properties="cover-image"/>'
                content = content.replace(b"</manifest>", item + b"</manifest>")
            archive.writestr(info, content)
        archive.writestr("OEBPS/cover.svg", svg)
    book = parse_book(buffer.getvalue(), "styled.epub")
    assert book.metadata.cover_media_type == "image/svg+xml"
    root = etree.fromstring(book.metadata.cover)
    text = next(e for e in root.iter() if etree.QName(e).localname == "text")
    band = next(e for e in root.iter() if e.get("id") == "band")
    assert text.get("style") == "fill: #fff; font-size: 80px"  # its own declarations after (they still win)
    assert band.get("style") == "fill: rgba(0, 0, 0, .75)"


def test_package_documents_are_read_as_readers_write_them() -> None:
    """The package document reader (core/books/opf.py): prefixed namespaces, EPUB 2's nested metadata and cover
    meta, a wrong image type, and a package without a reading order refused as damaged."""
    from core.books.opf import read_package
    from core.errors import BookFormatError

    package = read_package(b"""<?xml version="1.0"?>
<opf:package xmlns:opf="http://www.idpf.org/2007/opf" version="2.0">
  <opf:metadata><dc-metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>Le Petit <i>Prince</i></dc:title><dc:creator>Antoine</dc:creator><dc:creator>de Saint-Exup\xc3\xa9ry</dc:creator>
    <!-- a comment --></dc-metadata><opf:meta name="cover" content="pic"/></opf:metadata>
  <opf:manifest>
    <opf:item id="c1" href="Text/ch%201.xhtml" media-type="application/xhtml+xml"/>
    <opf:item id="pic" href="img/front.jpg" media-type="image/jpg"/>
    <opf:item id="toc" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <opf:item id="nohref" media-type="text/css"/>
  </opf:manifest>
  <opf:spine toc="toc"><opf:itemref idref="c1"/><opf:itemref idref="gone" linear="no"/></opf:spine>
</opf:package>""")
    assert package.metadata["title"] == ["Le Petit Prince"] and package.metadata["creator"][1] == "de Saint-Exupéry"
    assert [i.id for i in package.items] == ["c1", "pic", "toc"] and package.item("pic").media_type == "image/jpeg"
    assert package.spine == [("c1", "yes"), ("gone", "no")] and package.cover_ids == ["pic"]
    assert package.ncx.href == "toc.ncx" and package.nav is None and package.item("gone") is None
    for broken in (b"<package><manifest/></package>", b"not xml at all \x00", b"<package><spine/></package>"):
        with pytest.raises(BookFormatError, match="package document is damaged"):
            read_package(broken)


def test_alt_text_names_a_picture_for_screen_readers_and_is_never_shown_as_its_caption(tmp_path) -> None:
    """Issue 39: a picture whose alt text is a file-like name ("Illo2") showed it under the picture as a caption. A
    caption is the book's (figcaption); alt text is what a screen reader says for the picture."""
    import flet as ft

    from app.screens.reader.view import segment_control
    from app.settings import Settings
    from core.services import Quire

    body = (
        '<p>Before</p><img src="img/a.png" alt="Illo2"/>'
        '<figure><img src="img/a.png" alt="a drawing"/><figcaption>The Hatter at tea</figcaption></figure>'
    )
    data = make_epub([("Pictures", body)], extra={"OEBPS/img/a.png": _a_picture()})
    quire = Quire(tmp_path / "lib")
    book = quire.import_bytes(data, "pictures.epub").book
    images = [s for s in quire.text.section(book.id, 0) if s.kind == "image"]
    assert [(s.text, s.caption) for s in images] == [("Illo2", ""), ("The Hatter at tea", "The Hatter at tea")]
    shown = []
    for segment in images:
        control = segment_control(segment, Settings(), image=lambda s: b"\x89PNG")
        texts = [c.value for c in _walk(control) if isinstance(c, ft.Text)]
        labels = [c.semantics_label for c in _walk(control) if isinstance(c, ft.Image)]
        shown.append((texts, labels))
    assert shown == [([], ["Illo2"]), (["The Hatter at tea"], ["The Hatter at tea"])]
    quire.close()


def _a_picture() -> bytes:
    import zipfile

    with zipfile.ZipFile(book_path("en/epubjs-alice.epub")) as archive:
        name = next(n for n in archive.namelist() if n.lower().endswith((".png", ".jpg", ".jpeg")))
        return archive.read(name)


def _walk(control):
    yield control
    for name in ("content", "controls"):
        child = getattr(control, name, None)
        for item in child if isinstance(child, list) else [child] if child is not None else []:
            yield from _walk(item)


def test_an_epub_with_no_title_is_named_by_its_file_as_any_other_format_is() -> None:
    """Issue 59: every format reader takes the file's bytes and a fallback title; the EPUB reader took none, and a
    package with an empty ``dc:title`` was named after its first chapter ("One")."""
    book = parse_book(make_epub([("One", "<p>Text.</p>")], title=""), "The Lost Voyage.epub")
    assert book.metadata.title == "The Lost Voyage"
    assert parse_book(make_epub(title="Crafted Book"), "other name.epub").metadata.title == "Crafted Book"
