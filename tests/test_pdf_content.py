"""The faster content-stream reader gives pypdf exactly the operations its own reader gives, or leaves it to that one.

pypdf's own reader is the oracle: each stream is read by it and by ours, and the operations compared object by
object (type, value, and a string's original bytes); a stream it refuses or warns about is refused or warned about
the same way with ours installed.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import pypdf
import pytest
from conftest import book_path
from pypdf.generic import ContentStream, DecodedStreamObject

from core.books import pdf_content


def _canonical(value: Any) -> Any:
    """A parsed object as its type and value, nested, with a string's original bytes and how it was decoded."""
    kind = type(value).__name__
    if isinstance(value, list):
        return kind, [_canonical(item) for item in value]
    if isinstance(value, dict):
        return kind, {key: _canonical(item) for key, item in value.items()}
    if hasattr(value, "get_original_bytes"):
        return kind, value, value.get_original_bytes(), getattr(value, "autodetect_utf16", None)
    return kind, value


def _reader(fast: bool) -> AbstractContextManager[None]:
    """Streams read with ours (installed) or with pypdf's own."""
    assert pdf_content.install()  # this pypdf is the one the reader was written against
    return nullcontext() if fast else pdf_content.pypdfs_own_reader()


def _read(data: bytes, fast: bool, pdf: Any = None) -> Any:
    """The stream's operations in canonical form, or the exception it raised (type and message)."""
    with _reader(fast):
        stream = DecodedStreamObject()
        stream.set_data(data)
        try:
            return [(_canonical(operands), operator) for operands, operator in ContentStream(stream, pdf).operations]
        except Exception as error:  # what is compared is which error, and what it says
            return type(error).__name__, str(error)


def _streams(reader: pypdf.PdfReader, step: int) -> list[bytes]:
    """Every ``step``-th page's content stream and those of the forms it draws."""
    found = []
    for page in list(reader.pages)[::step]:
        contents = page.get_contents()
        if contents is not None:
            found.append(contents.get_data())
        resources = page.get("/Resources")
        objects = resources.get_object().get("/XObject") if resources else None
        for item in objects.get_object().values() if objects else []:
            item = item.get_object()
            if item.get("/Subtype") == "/Form":
                found.append(item.get_data())
    return found


@pytest.mark.parametrize(
    ("name", "step"),
    [("epubjs-alice.pdf", 1), ("libtasn1-manual-pdftex.pdf", 1), ("luxun-nahan.pdf", 5), ("idpf-moby-dick.pdf", 25)],
)
def test_the_shared_pdfs_pages_read_as_pypdfs_own_reader_reads_them(name: str, step: int) -> None:
    """Chromium's (calibre's) streams with /ActualText marked content, TeX's with escaped strings and kerning."""
    reader = pypdf.PdfReader(book_path(f"formats/{name}"))
    streams = _streams(reader, step)
    assert len(streams) >= 20
    for data in streams:
        assert _read(data, True, reader) == _read(data, False, reader)


BROKEN = [
    b"BT /F1 12 Tf 72 700 Td (plain) Tj [(a) -120 (b\\(c\\)) 3.5 <4142 43>] TJ ET",
    b"/Span << /ActualText <FEFF0074> /MCID 3 >> BDC (x) Tj EMC",
    b"/Span << /ActualText (\\376\\377\\000t) /Alt (a\\)b) >> BDC EMC",  # escaped strings as values
    b"/Span << /ActualText (nested (x)) >> BDC EMC /P << /K 1 0 R >> BDC EMC",
    b"/P << /A [1 2] /B << /C /D >> >> BDC EMC",  # an array and a dictionary inside: pypdf's reading
    b"/P << /A 1 /A 2 >> BDC EMC",  # a key twice: pypdf warns
    b"/P << /A 1 >> stream\nabc",  # a dictionary followed by 'stream'
    b"q % a comment\n 1 0 0 1 0 0 cm Q",
    b"BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI Q",  # an inline image
    b"1 0 R 2 0 obj",
    b"(unclosed Tj",
    b"(nested (parens) inside) Tj (octal \\101\\1011 \\\nline) Tj",
    b"<41 4> Tj <4G> Tj",  # an odd digit; a letter that is not hex
    b"/Na#20me Do /N\xe9 Do",  # an escaped name; a name that is not UTF-8
    b"1.2.3 --5 1,5 .5 -.25 +7 12345678901234567890123 Td",  # numbers pypdf reads as it can
    b"[1 2 3",  # an array left open
    b"[true null false] TJ",
    b"\x0c 1 w \x0b 2 w \x00 3 w",  # form feed and vertical tab outside strings
    b"BT ) ET",
    b"<<>> BDC << >> BDC",
    b"/" + b"n" * 300 + b" Do",  # a long name
    b"T" * 200,  # an operator past pypdf's length limit
    b"",
    b"   \n",
]


@pytest.mark.parametrize("data", BROKEN, ids=range(len(BROKEN)))
def test_odd_and_broken_streams_read_or_fail_as_pypdf_reads_them(data: bytes, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pypdf"):
        slow = _read(data, False)
        slow_warnings = [record.getMessage() for record in caplog.records]
        caplog.clear()
        fast = _read(data, True)
        fast_warnings = [record.getMessage() for record in caplog.records]
    assert fast == slow
    assert fast_warnings == slow_warnings


def test_a_stream_past_pypdfs_token_budget_is_refused_as_pypdf_refuses_it() -> None:
    """The bound on hostile input stays pypdf's: with its budget at 50 tokens, a stream of 60 is refused at the
    same token, and one of 40 (an array's elements and a dictionary's entries counted as pypdf counts them) is not."""
    long = b"1 w " * 30
    counted = b"[1 2 3 4 5 6 7 8] TJ /P << /A 1 /B 2 /C 3 >> BDC " + b"1 w " * 12
    with pypdf.apply_configuration(stream_parsing_work_maximum_count=50):
        refused, read = _read(long, True), _read(counted, True)
        assert refused == _read(long, False) and refused[0] == "LimitReachedError"
        assert read == _read(counted, False) and len(read) == 14
    with pypdf.apply_configuration(stream_parsing_work_maximum_count=30):
        assert (
            _read(counted, True)
            == _read(counted, False)
            == ("LimitReachedError", "Reached maximum number of tokens per stream.")
        )
    with pypdf.apply_configuration(array_maximum_element_count=5):
        assert _read(counted, True) == _read(counted, False) and _read(counted, True)[0] == "LimitReachedError"


def test_the_reader_is_installed_once_and_pdfs_are_read_with_it() -> None:
    from core.books.pdf import read_pdf

    read_pdf(book_path("formats/libtasn1-manual-pdftex.pdf").read_bytes(), "tasn1")
    installed = ContentStream.__dict__["_parse_content_stream"]
    assert getattr(installed, "quire", False)
    assert pdf_content.install() and ContentStream.__dict__["_parse_content_stream"] is installed
