"""Imports have limits: size, chapters, paragraphs, contents entries; only regular files are read.

Each hostile input is refused quickly with a message that says which limit, and writes nothing.
"""

import io
import os
import threading
import zipfile
from pathlib import Path

import pytest
from epubkit import CONTAINER

from core.books.formats import parse_book, read_file_bytes
from core.books.limits import MAX_SECTIONS, MAX_TEXT_BYTES
from core.errors import BookFormatError
from core.library import Library

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


def _refused_quickly(action, seconds: float = 20.0) -> str:
    """Run ``action`` in a thread; it must raise BookFormatError within ``seconds`` (a hang fails the test)."""
    outcome: list = []

    def run() -> None:
        try:
            action()
            outcome.append(None)
        except BookFormatError as error:
            outcome.append(error)
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds} s"
    assert isinstance(outcome[0], BookFormatError), outcome[0]
    return str(outcome[0])


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib")
    yield lib
    assert lib.conn.execute("SELECT COUNT(*) FROM books").fetchone()[0] == 0  # nothing was written
    lib.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_named_txt_is_refused_not_waited_on(tmp_path: Path, library: Library) -> None:
    fifo = tmp_path / "book.txt"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused_quickly(lambda: library.import_file(fifo), 10)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_an_endless_device_is_refused(tmp_path: Path, library: Library) -> None:
    link = tmp_path / "endless.txt"
    link.symlink_to("/dev/zero")
    assert "not a regular file" in _refused_quickly(lambda: library.import_file(link), 10)


def test_a_text_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path, library: Library) -> None:
    big = tmp_path / "huge.txt"
    with big.open("wb") as handle:
        handle.truncate(MAX_TEXT_BYTES + 1)  # sparse: costs no disk
    message = _refused_quickly(lambda: library.import_file(big), 5)
    assert "more than the 32 MB" in message and "split it" in message
    message = _refused_quickly(lambda: library.import_bytes(b"a" * (MAX_TEXT_BYTES + 1), "huge.md"), 5)
    assert "more than the 32 MB" in message


def test_a_million_headings_do_not_become_a_million_chapters(library: Library) -> None:
    text = "".join(f"Chapter {n}\n\nText of chapter {n}.\n\n" for n in range(1, MAX_SECTIONS + 2001))
    message = _refused_quickly(lambda: library.import_bytes(text.encode(), "many.txt"), 60)
    assert "more than 10,000 chapters" in message
    markdown = "".join(f"# Part {n}\n\nwords\n\n" for n in range(MAX_SECTIONS + 1))
    assert "chapters" in _refused_quickly(lambda: library.import_bytes(markdown.encode(), "many.md"), 60)


def test_a_text_of_millions_of_lines_is_refused_before_it_is_parsed(library: Library) -> None:
    message = _refused_quickly(lambda: library.import_bytes(b"x\n\n" * 1_000_000, "lines.md"), 5)
    assert "more than 1,500,000 lines" in message


def test_an_epub_with_a_hundred_thousand_spine_items_is_refused_quickly(library: Library) -> None:
    refs = '<itemref idref="c1"/>' * 100_000
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Spine</dc:title>'
        '<dc:identifier id="id">x</dc:identifier><dc:language>en</dc:language></metadata>'
        '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
        f"<spine>{refs}</spine></package>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("OEBPS/content.opf", opf, compress_type=zipfile.ZIP_STORED)  # past the ratio guard
        archive.writestr("OEBPS/c1.xhtml", "<html xmlns='http://www.w3.org/1999/xhtml'><body><p>x</p></body></html>")
    message = _refused_quickly(lambda: library.import_bytes(buffer.getvalue(), "spine.epub"), 10)
    assert "more than 10,000 chapters in its reading order" in message


def test_an_epub_whose_chapters_unpack_past_the_text_limit_is_refused_before_unpacking(library: Library) -> None:
    """70 MB of XHTML (1 MB chapters, under the per-entry ratio guard): once unpacked and parsed for minutes."""
    chapter = ("<html xmlns='http://www.w3.org/1999/xhtml'><body>" + "<p>the same words again</p>" * 37_000)[
        : 1024 * 1024
    ]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("META-INF/container.xml", CONTAINER)
        for number in range(70):
            archive.writestr(f"OEBPS/c{number}.xhtml", chapter)
    message = _refused_quickly(lambda: library.import_bytes(buffer.getvalue(), "huge.epub"), 10)
    assert "of text and markup, more than the 64 MB Quire takes" in message


def test_a_fictionbook_with_600000_empty_sections_is_refused_before_it_is_walked(library: Library) -> None:
    """The chapter limit was checked after a quadratic pass: 600,000 empty sections ran past five minutes."""
    head = (
        '<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
        "<description><title-info><book-title>Empty</book-title></title-info></description><body>"
    )
    data = (head + "<section/>" * 600_000 + "</body></FictionBook>").encode()
    message = _refused_quickly(lambda: library.import_bytes(data, "empty.fb2"), 10)
    assert "more than 10,000 sections (600,000)" in message


def test_a_paragraph_of_sixty_thousand_styled_words_is_read_in_one_pass(tmp_path: Path) -> None:
    """Each inline element once re-joined the whole paragraph so far: quadratic, minutes for a 60 MB FB2 (here a
    1.5 MB paragraph took over a minute). A hang guard, not a timing: it finishes in about a second."""
    head = (
        '<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
        "<description><title-info><book-title>Styled</book-title></title-info></description><body><section>"
        "<title><p>One</p></title>"
    )
    tail = "</p></section><section><p>The end.</p></section></body></FictionBook>"
    data = head + "<p>" + "<emphasis>word</emphasis> " * 60_000 + tail
    done: list = []
    worker = threading.Thread(target=lambda: done.append(parse_book(data.encode(), "styled.fb2")), daemon=True)
    worker.start()
    worker.join(30)
    assert done, "still parsing after 30 s"
    styled = done[0].sections[0].segments[1]
    assert styled.text.startswith("word word") and len(styled.spans) == 60_000


def test_a_pdf_drawn_with_a_filter_quire_cannot_decode_is_a_clear_refusal(library: Library) -> None:
    """A content stream filtered with JBIG2 once raised pypdf's DependencyError as a traceback."""
    content = b"BT /F1 12 Tf 72 720 Td (It was a dark and stormy night.) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Filter /JBIG2Decode /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    data, offsets = b"%PDF-1.5\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    data += b"xref\n0 6\n0000000000 65535 f \n" + table + b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n"
    data += b"%d\n%%%%EOF\n" % data.index(b"xref")
    message = _refused_quickly(lambda: library.import_bytes(data, "jbig2.pdf"), 20)
    assert "cannot decode" in message


def test_read_file_bytes_reads_a_normal_book(tmp_path: Path) -> None:
    book = tmp_path / "small.txt"
    book.write_bytes(b"Chapter 1\n\nHello.\n" * 1000)
    assert read_file_bytes(book) == book.read_bytes()
