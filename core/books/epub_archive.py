"""Open an EPUB's ZIP container defensively: limits, path safety, DRM, and repairs of small defects.

Hand-written because no library does this job: ``zipfile`` trusts sizes in headers and file names, and EPUB
libraries assume a well-formed container. Everything the EPUB reader sees passes through here.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from core.books.safexml import local_name, parse_xml
from core.errors import BookFormatError, DrmProtectedError

MAX_TOTAL_BYTES = 512 * 1024 * 1024  # uncompressed size of everything in one book
MAX_ENTRY_RATIO = 200  # uncompressed / compressed, for entries larger than RATIO_FLOOR
RATIO_FLOOR = 1024 * 1024
MAX_ENTRIES = 20000
MAX_MARKUP_BYTES = 64 * 1024 * 1024  # the chapters' XHTML, unpacked (twice a TXT's limit: markup carries tags)
MARKUP_SUFFIXES = (".xhtml", ".html", ".htm", ".xml")
LAZY_FLOOR = 1024 * 1024  # pictures, fonts and media larger than this are unpacked only when read
OPF_MEDIA_TYPE = "application/oebps-package+xml"
# Font obfuscation is not DRM: the IDPF and Adobe algorithms only mangle embedded fonts.
FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
FONT_SUFFIXES = (".otf", ".ttf", ".woff", ".woff2", ".eot")

_MAGIC_NAMES = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"%PDF": "a PDF document",
    b"\xd0\xcf\x11\xe0": "an old Microsoft Office document",
}


class Entries(Mapping[str, bytes]):
    """An EPUB's files by path: the text unpacked at once, large pictures and media only when read (so a book
    of photographs does not hold every picture in memory twice while it is imported)."""

    def __init__(self, archive: zipfile.ZipFile, eager: dict[str, bytes], lazy: dict[str, zipfile.ZipInfo]) -> None:
        self.archive, self.eager, self.lazy = archive, eager, lazy

    def __getitem__(self, path: str) -> bytes:
        if path in self.eager:
            return self.eager[path]
        return _read_capped(self.archive, self.lazy[path], self.lazy[path].file_size)

    def __contains__(self, path: object) -> bool:
        return path in self.eager or path in self.lazy

    def __iter__(self) -> Iterator[str]:
        yield from self.eager
        yield from self.lazy

    def __len__(self) -> int:
        return len(self.eager) + len(self.lazy)


@dataclass
class EpubArchive:
    """The readable files of an EPUB, keyed by normalised path, and what was repaired on the way."""

    files: Mapping[str, bytes]
    opf_path: str
    warnings: list[str] = field(default_factory=list)

    def read(self, path: str) -> bytes:
        """The bytes at ``path`` (normalised); KeyError when absent."""
        return self.files[posixpath.normpath(path)]


def _describe_non_zip(head: bytes) -> str:
    for magic, name in _MAGIC_NAMES.items():
        if head.startswith(magic):
            return f"this file is not an EPUB: it is {name} with an .epub name"
    if head.startswith(b"PK"):
        return "this EPUB is damaged: its ZIP archive is truncated or corrupt, so it cannot be opened"
    return "this file is not an EPUB (it is not a ZIP archive); it may be damaged or in another format"


def _decoded_name(info: zipfile.ZipInfo, warnings: list[str]) -> str:
    """The entry name as the producer meant it: UTF-8 when it decodes, else the ZIP default (CP437)."""
    if info.flag_bits & 0x800:
        return info.filename
    raw = info.filename.encode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        warnings.append(f"file name '{info.filename}' is not UTF-8; read it as CP437")
        return info.filename


def _safe_path(name: str) -> str | None:
    """The normalised path, or None when it is absolute, escapes the archive or names a drive."""
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return None
    path = posixpath.normpath(name.replace("\\", "/"))
    if path == ".." or path.startswith("../") or path == ".":
        return None
    return path


def _read_entries(archive: zipfile.ZipFile, warnings: list[str]) -> Entries:
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BookFormatError(f"this EPUB has {len(infos)} files, more than any real book: refused as unsafe")
    declared = sum(info.file_size for info in infos)
    if declared > MAX_TOTAL_BYTES:
        raise BookFormatError("this EPUB would unpack to more than 512 MB: refused as a possible ZIP bomb")
    markup = sum(info.file_size for info in infos if info.filename.lower().endswith(MARKUP_SUFFIXES))
    if markup > MAX_MARKUP_BYTES:  # refused before anything is unpacked or parsed (it once took minutes and 1 GB)
        raise BookFormatError(
            f"this EPUB's chapters unpack to {markup // (1024 * 1024)} MB of text and markup, more than the "
            f"{MAX_MARKUP_BYTES // (1024 * 1024)} MB Quire takes for one book: split it into volumes and import those"
        )
    files: dict[str, bytes] = {}
    lazy: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        name = _decoded_name(info, warnings)
        path = _safe_path(name)
        if path is None:
            warnings.append(f"ignored an entry with an unsafe path: '{name}'")
            continue
        if path in files or path in lazy:
            warnings.append(f"duplicate ZIP entry '{path}': kept the first copy")
            continue
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_ENTRY_RATIO * max(1, info.compress_size):
            raise BookFormatError(
                f"'{path}' is compressed {info.file_size // max(1, info.compress_size)}:1: refused as a possible ZIP bomb"
            )
        if info.file_size > LAZY_FLOOR and not path.lower().endswith((*MARKUP_SUFFIXES, ".opf", ".ncx", ".css")):
            lazy[path] = info  # its declared size counted above; read capped at it when asked for
            continue
        data = _read_capped(archive, info, MAX_TOTAL_BYTES - total)
        total += len(data)
        files[path] = data
    return Entries(archive, files, lazy)


def _read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> bytes:
    """Read one entry without trusting its declared size."""
    limit = min(budget, info.file_size)
    try:
        with archive.open(info) as stream:
            data = stream.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as error:
        raise BookFormatError(
            f"this EPUB is damaged: '{info.filename[:80]}' cannot be unpacked (its compressed data is corrupt)"
        ) from error
    if len(data) > limit:
        raise BookFormatError("this EPUB unpacks to more than it declares: refused as a possible ZIP bomb")
    return data


def _check_drm(files: Mapping[str, bytes]) -> None:
    data = files.get("META-INF/encryption.xml")
    if data is None:
        return
    root = parse_xml(data, "META-INF/encryption.xml")
    for encrypted in root.iter():
        if local_name(encrypted) != "encrypteddata":
            continue
        algorithm = next(
            (el.get("Algorithm", "") for el in encrypted.iter() if local_name(el) == "encryptionmethod"), ""
        )
        uri = next((el.get("URI", "") for el in encrypted.iter() if local_name(el) == "cipherreference"), "")
        if algorithm in FONT_OBFUSCATION or uri.lower().endswith(FONT_SUFFIXES):
            continue
        raise DrmProtectedError(
            "this book is DRM-protected: its text is encrypted, so Quire cannot read it. "
            "Import a DRM-free copy of the book instead."
        )


def _find_opf(files: Mapping[str, bytes], warnings: list[str]) -> str:
    container = files.get("META-INF/container.xml")
    if container is not None:
        try:
            root = parse_xml(container, "META-INF/container.xml")
        except BookFormatError:
            root = None
            warnings.append("META-INF/container.xml is not readable XML")
        rootfiles = [el for el in (root.iter() if root is not None else ()) if local_name(el) == "rootfile"]
        paths = [el.get("full-path", "") for el in rootfiles if el.get("media-type", OPF_MEDIA_TYPE) == OPF_MEDIA_TYPE]
        for path in paths:
            if _safe_path(path) in files:
                return _safe_path(path)  # type: ignore[return-value]
        if paths:
            raise BookFormatError(
                f"this EPUB is incomplete: its package document '{paths[0]}' (the OPF file that lists the "
                "book's contents) is missing, so it cannot be opened"
            )
        warnings.append("META-INF/container.xml does not name a package document; searched the archive")
    else:
        warnings.append("META-INF/container.xml is missing; found the package document by searching the archive")
    candidates = sorted(path for path in files if path.lower().endswith(".opf"))
    if candidates:
        return candidates[0]
    if "word/document.xml" in files:
        raise BookFormatError("this file is not an EPUB: it is a Word document with an .epub name")
    raise BookFormatError(
        "this EPUB has no package document (the OPF file that lists the book's contents), so it cannot be opened"
    )


def open_epub_archive(data: bytes) -> EpubArchive:
    """Validate and unpack an EPUB's bytes; raise BookFormatError (or DrmProtectedError) when unreadable."""
    if not data:
        raise BookFormatError("the file is empty: there is no book in it")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, NotImplementedError) as error:
        raise BookFormatError(_describe_non_zip(data[:8])) from error
    warnings: list[str] = []
    files = _read_entries(archive, warnings)  # open while the book is read: large pictures are read on demand
    if "mimetype" not in files:
        warnings.append("the 'mimetype' file is missing")
    elif files["mimetype"].strip() != b"application/epub+zip":
        warnings.append("the 'mimetype' file does not say application/epub+zip")
    _check_drm(files)
    opf_path = _find_opf(files, warnings)
    return EpubArchive(files=files, opf_path=opf_path, warnings=warnings)
