"""Books in folders: a folder imported recursively, a calibre library folder imported with calibre's metadata, and
folders watched for new books (offered, never imported unasked)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from core.books.formats import SUPPORTED
from core.errors import LibraryError
from core.library import Annotations, Library, watched
from core.library.calibre import CalibreBook, is_calibre_library, picture, read_calibre_library
from core.library.identifiers import add_identifier, book_with_identifier
from core.library.imports import ImportResult

MAX_FILES = 100_000  # files looked at in one folder tree, at most
Importer = Callable[[list[Path]], list["ImportResult"]]
FolderProgress = Callable[[int, int, "ImportResult"], None]  # files done, files in all, the last one's result


@dataclass(frozen=True, slots=True)
class FolderImport:
    """What a folder's import did: each book file's result, and the books of a calibre library left out."""

    results: list[ImportResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    calibre: bool = False


def book_files(folder: Path) -> Iterator[Path]:
    """The book files under ``folder``, by name, hidden folders and files left out; symbolic links not followed."""
    suffixes = set(SUPPORTED)  # ".epub", ".azw3"…
    seen = 0
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(d for d in folders if not d.startswith("."))
        for name in sorted(files):
            seen += 1
            if seen > MAX_FILES:
                return
            path = Path(root) / name
            if not name.startswith(".") and path.suffix.lower() in suffixes and not path.is_symlink():
                yield path  # a link to a file elsewhere (``ln -s ~/secret.txt x.txt``) is not a book put here


def _media_type(picture: bytes) -> str:
    if picture.startswith(b"\x89PNG"):
        return "image/png"
    if picture.startswith(b"GIF8"):
        return "image/gif"
    return "image/jpeg"


class Folders:
    """``quire.folders``: import a folder or a calibre library; watch folders for new books."""

    def __init__(self, library: Library, annotations: Annotations, importer: Importer) -> None:
        self._library = library
        self._annotations = annotations
        self._import = importer

    def import_folder(self, folder: Path | str, progress: FolderProgress | None = None) -> FolderImport:
        """Every book under ``folder``; a calibre library (with its metadata.db) with calibre's title, authors,
        tags, series and cover for each book, from its best format (EPUB, AZW3, MOBI, PDF…). Books already in the
        library are not imported twice, and keep what the reader changed."""
        root = Path(folder).expanduser()
        if not root.is_dir():
            raise LibraryError(f"{root} is not a folder")
        if is_calibre_library(root):
            books, skipped = read_calibre_library(root)
            results = []
            for done, book in enumerate(books, start=1):
                known = book_with_identifier(self._library, f"urn:uuid:{book.uuid}", book.uuid) if book.uuid else None
                if known is not None:  # the same calibre book, downloaded from calibre's server: not twice
                    result = ImportResult(str(book.file), known, False)
                else:
                    [result] = self._import([book.file])
                if result.created and result.book is not None:
                    self._apply(result.book.id, book)
                    if book.uuid:
                        add_identifier(self._library, result.book.id, f"urn:uuid:{book.uuid}")
                    result = type(result)(result.source, self._library.get(result.book.id), True)
                results.append(result)
                if progress:
                    progress(done, len(books), result)
            return FolderImport(results, skipped, calibre=True)
        files = list(book_files(root))
        results = []
        for done, path in enumerate(files, start=1):
            [result] = self._import([path])
            results.append(result)
            if progress:
                progress(done, len(files), result)
        self._mark_seen(files)
        return FolderImport(results)

    def _apply(self, book_id: int, book: CalibreBook) -> None:
        """calibre's metadata on a book just imported (the reader's own edits later win, as for any book)."""
        self._library.edit(book_id, title=book.title or None, authors=book.authors or None)
        tags = list(book.tags)
        if book.series:
            number = f" #{book.series_index:g}" if book.series_index is not None else ""
            tags.append(f"series: {book.series}{number}")
        for tag in tags:
            self._annotations.tag(book_id, tag)
        cover = picture(book.cover) if book.cover is not None else None  # checked again: it may have changed since
        if cover is not None:
            self._library.set_cover(book_id, cover, _media_type(cover))

    # -- watched folders ---------------------------------------------------------------------------------------
    def watch(self, folder: Path | str) -> None:
        """Watch ``folder``: its books now are taken as seen; new ones are offered by ``new_books``."""
        root = Path(folder).expanduser().resolve()
        if not root.is_dir():
            raise LibraryError(f"{root} is not a folder")
        with self._library.transaction() as conn:
            watched.watch(conn, str(root))
        self._mark_seen(list(book_files(root)))

    def unwatch(self, folder: Path | str) -> None:
        root = str(Path(folder).expanduser().resolve())
        with self._library.transaction() as conn:
            gone = watched.unwatch(conn, root)
        if not gone:
            raise LibraryError(f"{root} is not a watched folder: 'quire new folders' lists them")

    def watched(self) -> list[Path]:
        return [Path(folder) for folder in watched.watched(self._library.conn)]

    def new_books(self) -> list[Path]:
        """Book files in the watched folders not seen before (each offered once: call ``seen`` with them)."""
        found = []
        for root in self.watched():
            if not root.is_dir():
                continue  # an unplugged drive: looked at again next time
            for path in book_files(root):
                if not self._seen(path):
                    found.append(path)
        return found

    def seen(self, paths: list[Path]) -> None:
        """The reader was offered these (imported or not): they are not offered again unless they change."""
        self._mark_seen(paths)

    def _stamp(self, path: Path) -> str:
        info = path.stat()
        return f"{info.st_size}:{int(info.st_mtime)}"

    def _seen(self, path: Path) -> bool:
        try:
            return watched.seen_stamp(self._library.conn, str(path.resolve())) == self._stamp(path)
        except OSError:
            return True  # gone meanwhile: nothing to offer

    def _mark_seen(self, paths: list[Path]) -> None:
        rows = []
        for path in paths:
            try:
                rows.append((str(path.resolve()), self._stamp(path)))
            except OSError:
                continue
        if rows:
            with self._library.transaction() as conn:
                watched.mark_seen(conn, rows)
