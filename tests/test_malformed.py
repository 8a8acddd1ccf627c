"""Broken and hostile books: open what can be opened (with warnings), refuse the rest cleanly."""

import io
import zipfile
from pathlib import Path

import pytest
from conftest import book_path
from epubkit import chapter, make_epub

from core.books import parse_book
from core.books.epub_archive import MAX_ENTRY_RATIO
from core.errors import BookFormatError, DrmProtectedError
from core.library import Library

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

REFUSED = {
    "malformed/epubcheck-ocf-zip-unreadable-no-end-header-fatal.epub": "damaged",
    "malformed/epubcheck-ocf-zip-unreadable-empty-fatal.epub": "empty",
    "malformed/epubcheck-ocf-zip-unreadable-image-with-epub-extension-fatal.epub": "image",
    "malformed/epubcheck-ocf-container-not-ocf-error.epub": "Word document",
    "malformed/epubcheck-ocf-package-document-missing-fatal.epub": "package document",
}
OPENED_WITH_WARNING = {
    "malformed/epubcheck-ocf-mimetype-file-missing-error.epub": "'mimetype' file is missing",
    "malformed/epubcheck-ocf-container-file-missing-fatal.epub": "container.xml is missing",
    "malformed/epubcheck-ocf-filename-not-utf8-error.epub": "not UTF-8",
    "malformed/epubcheck-ocf-filename-duplicate-zip-entry-error.epub": "duplicate ZIP entry",
    "malformed/epubcheck-package-manifest-item-missing-error.epub": "missing file 'EPUB/missing.xhtml'",
}


def _library_is_empty(library: Library) -> bool:
    rows = library.conn.execute("SELECT (SELECT COUNT(*) FROM books) + (SELECT COUNT(*) FROM segments)").fetchone()[0]
    fts = library.conn.execute("SELECT COUNT(*) FROM segments_fts").fetchone()[0]
    return rows == 0 and fts == 0 and list(library.files.iterdir()) == []


@pytest.mark.parametrize(("name", "reason"), sorted(REFUSED.items()))
def test_hopeless_books_are_refused_with_one_typed_error_and_nothing_saved(
    name: str, reason: str, library: Library
) -> None:
    with pytest.raises(BookFormatError, match=reason) as caught:
        library.import_file(book_path(name))
    message = str(caught.value)
    assert "Traceback" not in message and len(message) < 300
    assert _library_is_empty(library)


@pytest.mark.parametrize(("name", "warning"), sorted(OPENED_WITH_WARNING.items()))
def test_slightly_broken_books_open_with_a_warning(name: str, warning: str, library: Library) -> None:
    record, created = library.import_file(book_path(name))
    assert created
    assert any(warning in w for w in record.warnings), record.warnings
    assert record.title == "Minimal EPUB 3.0"
    assert record.segment_count >= 1
    assert library.find(record.id, "content") or library.segments(record.id)


def test_coverless_alice_is_valid() -> None:
    book = parse_book(book_path("malformed/epubjs-alice_without_cover.epub").read_bytes(), "a.epub")
    assert book.metadata.cover is None
    assert book.warnings == []


def test_non_utf8_name_matches_its_manifest_entry() -> None:
    book = parse_book(book_path("malformed/epubcheck-ocf-filename-not-utf8-error.epub").read_bytes(), "x.epub")
    assert book.sections[0].href == "EPUB/content_é.xhtml"


def test_zip_bomb_by_compression_ratio_is_refused() -> None:
    bomb = b"\0" * (8 * 1024 * 1024)  # deflates about 1000:1
    data = make_epub(extra={"OEBPS/padding.bin": bomb})
    with pytest.raises(BookFormatError, match="ZIP bomb"):
        parse_book(data, "bomb.epub")
    assert len(bomb) // len(data) > MAX_ENTRY_RATIO


def _set_declared_size(data: bytearray, name: bytes, size: int) -> None:
    """Change an entry's uncompressed size in its central-directory record."""
    central = data.find(b"PK\x01\x02")
    while central != -1:
        name_length = int.from_bytes(data[central + 28 : central + 30], "little")
        if data[central + 46 : central + 46 + name_length] == name:
            data[central + 24 : central + 28] = size.to_bytes(4, "little")
            return
        central = data.find(b"PK\x01\x02", central + 4)
    raise AssertionError(f"{name!r} not in the central directory")


def test_archive_declaring_more_than_the_total_cap_is_refused_before_unpacking() -> None:
    data = bytearray(make_epub(extra={"OEBPS/big.bin": b"x" * 1000}, compression=zipfile.ZIP_STORED))
    _set_declared_size(data, b"OEBPS/big.bin", 600 * 1024 * 1024)
    with pytest.raises(BookFormatError, match="512 MB"):
        parse_book(bytes(data), "huge.epub")


def test_entry_lying_about_its_size_is_refused() -> None:
    data = bytearray(make_epub([("One", "<p>" + "text " * 2000 + "</p>")], compression=zipfile.ZIP_STORED))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        size = archive.getinfo("OEBPS/ch1.xhtml").file_size
    _set_declared_size(data, b"OEBPS/ch1.xhtml", size // 2)  # reading must not trust the header
    with pytest.raises(BookFormatError, match=r"damaged|ZIP bomb"):
        parse_book(bytes(data), "liar.epub")


def test_path_traversal_entries_are_ignored(tmp_path: Path) -> None:
    data = make_epub(extra={"../../evil.txt": "owned", "/abs/evil.txt": "owned"})
    book = parse_book(data, "t.epub")
    assert sum("unsafe path" in w for w in book.warnings) == 2
    assert not (tmp_path.parent / "evil.txt").exists()
    assert book.sections[0].segments[1].text == "First chapter text."


def test_external_entities_are_never_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    doctype = f'<!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    raw = chapter("Leak", "<p>before &xxe; after</p>", doctype=doctype)
    data = make_epub([("Leak", "")], raw_chapters={"ch1.xhtml": raw})
    book = parse_book(data, "xxe.epub")
    text = " ".join(s.text for section in book.sections for s in section.segments)
    assert "TOP-SECRET-VALUE" not in text
    assert "before" in text


def test_billion_laughs_does_not_expand() -> None:
    entities = '<!ENTITY a "haha">' + "".join(
        f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    raw = chapter("Laughs", "<p>&i;</p>", doctype=f"<!DOCTYPE html [{entities}]>")
    data = make_epub([("Laughs", "")], raw_chapters={"ch1.xhtml": raw})
    try:
        book = parse_book(data, "laughs.epub")
    except BookFormatError:
        return  # refusing is fine too
    assert book.segment_count < 100 and max(len(s.text) for x in book.sections for s in x.segments) < 10_000


ENCRYPTION = """<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData>
    <enc:EncryptionMethod Algorithm="{algorithm}"/>
    <enc:CipherData><enc:CipherReference URI="{uri}"/></enc:CipherData>
  </enc:EncryptedData>
</encryption>"""


def test_drm_encrypted_text_is_refused_as_drm(library: Library) -> None:
    encryption = ENCRYPTION.format(algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc", uri="OEBPS/ch1.xhtml")
    data = make_epub(extra={"META-INF/encryption.xml": encryption})
    with pytest.raises(DrmProtectedError, match="this book is DRM-protected"):
        library.import_bytes(data, "drm.epub")
    assert _library_is_empty(library)


def test_font_obfuscation_is_not_drm() -> None:
    encryption = ENCRYPTION.format(algorithm="http://www.idpf.org/2008/embedding", uri="OEBPS/fonts/a.otf")
    book = parse_book(make_epub(extra={"META-INF/encryption.xml": encryption}), "font.epub")
    assert book.segment_count == 2


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("notes.pdf", b"%PDF-1.7", "PDF cannot be read"),
        ("book.mobi", b"BOOKMOBI", "not a MOBI or AZW3 book"),
        ("scan.djvu", b"AT&TFORM", "not supported yet"),
        ("book.xyz", b"hello", "not a book format"),
        ("binary.txt", b"\x00\x01\x02\x00" * 100, "binary"),
        ("empty.md", b"", "empty"),
        ("blank.txt", b"   \n\n  ", "no text"),
    ],
)
def test_other_bad_files_get_the_same_typed_error(name: str, data: bytes, message: str) -> None:
    with pytest.raises(BookFormatError, match=message):
        parse_book(data, name)


def test_missing_file_is_a_clear_error(library: Library, tmp_path: Path) -> None:
    with pytest.raises(BookFormatError, match="no file at"):
        library.import_file(tmp_path / "nope.epub")


def test_a_folder_is_not_a_book(library: Library, tmp_path: Path) -> None:
    with pytest.raises(BookFormatError, match="is a folder"):
        library.import_file(tmp_path)


def test_corrupt_compressed_data_is_the_typed_error_and_nothing_is_saved(library: Library) -> None:
    data = bytearray(book_path("minimal/epubcheck-epub2-minimal.epub").read_bytes())
    data[979] ^= 0xFF  # inside a deflated entry: zlib refuses it
    with pytest.raises(BookFormatError, match="damaged") as refused:
        library.import_bytes(bytes(data), "flipped.epub")
    assert "Error -3" not in str(refused.value) and "zlib" not in str(refused.value)
    assert _library_is_empty(library)


def test_an_image_named_like_a_text_book_is_refused(library: Library) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(200)
    for name in ("cover.html", "cover.txt", "cover.md"):
        with pytest.raises(BookFormatError, match="is a PNG image"):
            library.import_bytes(png, name)
    assert _library_is_empty(library)


def test_a_defect_met_while_reading_is_logged_with_its_traceback_not_only_turned_into_a_message(
    monkeypatch, caplog
) -> None:
    """parse_book turns an unforeseen TypeError or AttributeError into "damaged" for the reader, and keeps the
    traceback in the log, so a bug in a reader is seen; pypdf's logger gets its level back after a PDF."""
    import logging

    from core.books import formats
    from core.books.pdf import read_pdf

    def broken_reader(data: bytes, title: str) -> None:
        return None.sections  # type: ignore[attr-defined]  # a bug, as a reader could have

    monkeypatch.setattr(formats, "_reader", lambda format_name, progress, first_pages=None: broken_reader)
    with caplog.at_level(logging.WARNING, logger="core.books.formats"), pytest.raises(BookFormatError, match="damaged"):
        formats.parse_book(b"<html><body><p>a book</p></body></html>", "page.html")
    [record] = [r for r in caplog.records if r.name == "core.books.formats"]
    assert "AttributeError" in record.getMessage() and record.exc_info is not None
    pypdf_logger = logging.getLogger("pypdf")
    pypdf_logger.setLevel(logging.INFO)
    with pytest.raises(BookFormatError):
        read_pdf(b"%PDF-1.4 not really a PDF", "broken")
    assert pypdf_logger.level == logging.INFO  # given back, not left at ERROR for the whole process
