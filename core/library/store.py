"""The library: books imported into one SQLite database and one folder of book files."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.books.formats import SUPPORTED, content_hash, parse_book, read_file_bytes
from core.books.locator import Locator
from core.books.model import Book, ReadProgress, page_label
from core.books.svg import inline_styles
from core.errors import BookNotFoundError, LibraryError, LocatorError, QuireError
from core.library import paragraph_index
from core.library.connections import ThreadConnections
from core.library.db import Wall, book_rows, busy_is_library_error, inserted_id, now
from core.library.fts import make_snippet, match_expression
from core.library.records import BookId, BookRecord, SearchHit, SegmentRecord, TocRow
from core.library.shelf import shelf_keys
from core.sync import store as sync_store

# what ``book_value`` reads (the SQL names them)
_BOOK_VALUES = frozenset({"id", "content_hash", "segment_count", "language"})
MAX_REFERENCE_CHARS = 1_000  # longer than any title: a reference this long matches nothing
MAX_IMAGE_BYTES = 16 * 1024 * 1024  # an illustration larger than this is shown as its caption only

# A book's row and whether it has a cover; the picture itself is in book_covers (migration 10), read when drawn.
_BOOK_COLUMNS = "b.*, EXISTS (SELECT 1 FROM book_covers c WHERE c.book_id = b.id) AS has_cover"


class Library:
    """Books, their text and their full-text index, in ``root/library.db`` and ``root/books/``."""

    def __init__(self, root: Path | str, *, vector_extension: bool = True, wall: Wall = time.time) -> None:
        self.root = Path(root)
        self.wall = wall  # the clock edits are stamped by (the system's; a test's own)
        self.files = self.root / "books"
        try:
            self.files.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LibraryError(f"cannot create the library folder {self.root}: {error}") from error
        self._connections = ThreadConnections(self.root / "library.db", vector_extension, wall)
        self.lock = threading.RLock()
        self._remove_abandoned_parts()
        # Other stores keep rows beside a book's (chunks, vectors); removing a book removes theirs in one transaction.
        self.remove_hooks: list[Callable[[sqlite3.Connection, int], None]] = []

    def _remove_abandoned_parts(self) -> None:
        """Delete the temporary files of imports whose process is gone (killed mid-import)."""
        for part in self.files.glob(".*.part"):
            try:
                pid = int(part.name.rsplit(".", 2)[-2])
            except (ValueError, IndexError):
                continue
            if pid == os.getpid() or not _process_alive(pid, part):
                part.unlink(missing_ok=True)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection to the library (``core.library.connections``: each thread reads on its own and
        sees only what was committed; writes take ``lock``)."""
        return self._connections.get()

    def close(self) -> None:
        """Close every thread's connection to the database."""
        self._connections.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE), held against other threads; rolled back on error.

        When another process holds the library's write lock past the busy timeout, LibraryError says so.
        """
        with self.lock, busy_is_library_error():
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def write(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """Run one writing statement, never inside another thread's import transaction."""
        with self.lock, busy_is_library_error():
            return self.conn.execute(sql, params)

    # -- import -------------------------------------------------------------------------------
    def import_file(self, path: Path | str, progress: ReadProgress | None = None) -> tuple[BookRecord, bool]:
        """Import a book file; return (record, created). The same file twice gives the same book."""
        return self.import_bytes(read_file_bytes(path), Path(path).name, progress)

    def import_bytes(
        self,
        data: bytes,
        name: str,
        progress: ReadProgress | None = None,
        *,
        journal: bool = True,
        first_pages: int | None = None,
        index_now: bool = True,
    ) -> tuple[BookRecord, bool]:
        """Import a book from its bytes (file pickers on web and mobile give bytes, not paths).

        ``progress`` is told (pages read, pages in all) while a paged book (a PDF) is parsed. ``journal``: the
        reader imported it (sync then tells other devices); False when sync brings another device's book.
        ``first_pages``: a longer PDF is stored from that many first pages, to read at once; ``read_in_part``
        says so and ``core.library.in_part`` reads the rest. ``index_now`` False leaves the paragraphs' keyword
        index for later (``core.library.paragraph_index``). Another process importing the same book at the same
        moment: the one that commits second gets the first's book, as if it had been there before.
        """
        digest = content_hash(data)
        existing = self.conn.execute("SELECT id FROM books WHERE content_hash = ?", (digest,)).fetchone()
        if existing:
            return self.get(existing["id"]), False
        book = parse_book(data, name, progress, first_pages=first_pages)  # raises before anything is written
        suffix = Path(name).suffix.lower() if Path(name).suffix.lower() in SUPPORTED else f".{book.format}"
        final = self.files / f"{digest}{suffix}"
        temporary = self.files / f".{digest}.{os.getpid()}.part"
        try:
            temporary.write_bytes(data)
            with self.transaction() as conn:
                raced = conn.execute("SELECT id FROM books WHERE content_hash = ?", (digest,)).fetchone()
                if raced:  # another process stored it while this one parsed
                    temporary.unlink(missing_ok=True)
                    return self.get(raced["id"]), False
                book_id = self._insert(book, digest, name, len(data), index_now)
                if book.pages_read is not None:
                    conn.execute("INSERT INTO books_read_in_part VALUES (?,?,?)", (book_id, *book.pages_read))
                if journal:
                    sync_store.record(conn, f"book/{digest}", {"present": True})
                    meta = {"title": book.metadata.title, "authors": list(book.metadata.authors)}
                    sync_store.record(conn, f"meta/{digest}", meta, at=sync_store.UNEDITED)
                os.replace(temporary, final)  # the file is in place before the rows are committed
        except BaseException:
            temporary.unlink(missing_ok=True)
            if not self.conn.execute("SELECT 1 FROM books WHERE content_hash = ?", (digest,)).fetchone():
                final.unlink(missing_ok=True)
            raise
        return self.get(book_id), True

    def _insert(self, book: Book, digest: str, name: str, size: int, index_now: bool) -> int:
        meta = book.metadata
        cursor = self.conn.execute(
            """INSERT INTO books (content_hash, format, title, authors, language, publisher, identifiers,
               description, file_name, file_size, segment_count, char_count, warnings, imported_at, title_key,
               authors_key, writing_mode)
               VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
            (
                digest, book.format, meta.title, json.dumps(meta.authors, ensure_ascii=False), meta.language,
                meta.publisher, json.dumps(meta.identifiers, ensure_ascii=False), meta.description, name, size,
                book.segment_count, book.char_count, json.dumps(book.warnings, ensure_ascii=False), now(),
                *shelf_keys(meta.title, meta.authors), meta.writing_mode,
            ),
        )  # fmt: skip
        book_id = inserted_id(cursor)
        if meta.cover:
            self.conn.execute(
                "INSERT INTO book_covers VALUES (?,?,?)", (book_id, meta.cover, meta.cover_media_type or "")
            )
        self.insert_text(book_id, book, index_now)
        return book_id

    def insert_text(self, book_id: int, book: Book, index_now: bool = True) -> None:
        """Store a book's sections, segments (and their keyword index, or a note that it is due) and contents,
        inside a transaction."""
        ordinal = 0
        for s_index, section in enumerate(book.sections):
            self.conn.execute(
                "INSERT INTO sections VALUES (?,?,?,?,?,?,?)",
                (book_id, s_index, section.title, section.href, int(section.linear), ordinal, len(section.segments)),
            )
            ordinal += len(section.segments)

        def segment_rows() -> Iterator[tuple[Any, ...]]:  # generated row by row: memory stays flat for a long book
            for ordinal, locator, _section, segment in book.segments_with_locators():
                spans = json.dumps([[s.start, s.end, s.style] for s in segment.spans]) if segment.spans else None
                anchors = json.dumps(list(segment.anchors)) if segment.anchors else None
                yield (book_id, locator.section, locator.segment, ordinal, segment.kind.value, segment.level,
                       segment.text, spans, segment.src, anchors)  # fmt: skip

        self.conn.executemany(
            "INSERT INTO segments (book_id, section_idx, idx, ordinal, kind, level, text, spans, src, anchors)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            segment_rows(),
        )
        if index_now:
            paragraph_index.write_stored(self.conn, book_id)
        else:
            paragraph_index.mark_due(self.conn, book_id)
        toc_rows = []
        parents: list[int] = []
        for index, (depth, entry) in enumerate(book.toc_entries()):
            del parents[depth:]
            loc = entry.locator
            toc_rows.append(
                (book_id, index, parents[-1] if parents else None, depth, entry.title,
                 loc.section if loc else None, loc.segment if loc else None)
            )  # fmt: skip
            parents.append(index)
        self.conn.executemany("INSERT INTO toc VALUES (?,?,?,?,?,?,?)", toc_rows)

    # -- books --------------------------------------------------------------------------------
    def _tags(self, book_id: int) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT tag FROM book_tags WHERE book_id = ? ORDER BY tag", (book_id,))]

    def get(self, book_id: int) -> BookRecord:
        """The book with this id; BookNotFoundError when there is none."""
        if not 0 < _an_id(book_id) < 1 << 63:  # SQLite's integers stop there
            raise BookNotFoundError(f"no book with id {str(book_id)[:24]} in the library")
        row = self.conn.execute(f"SELECT {_BOOK_COLUMNS} FROM books b WHERE id = ?", (book_id,)).fetchone()
        if row is None:
            raise BookNotFoundError(f"no book with id {book_id} in the library")
        return BookRecord.from_row(row, self._tags(book_id))

    def books(self, tag: str | None = None) -> list[BookRecord]:
        """Every book, most recently imported first (optionally only those with a tag)."""
        if tag:
            rows = self.conn.execute(
                f"SELECT {_BOOK_COLUMNS} FROM books b JOIN book_tags t ON t.book_id = b.id WHERE t.tag = ? ORDER BY b.id DESC",
                (tag,),
            )
        else:
            rows = self.conn.execute(f"SELECT {_BOOK_COLUMNS} FROM books b ORDER BY b.id DESC")
        tags: dict[int, list[str]] = {}  # every book's tags in one query, not one per book
        for book_id, name in self.conn.execute("SELECT book_id, tag FROM book_tags ORDER BY tag"):
            tags.setdefault(book_id, []).append(name)
        return [BookRecord.from_row(row, tags.get(row["id"], [])) for row in rows.fetchall()]

    def has_content(self, digest: str) -> bool:
        """Whether a book with this content hash is stored."""
        return self.conn.execute("SELECT 1 FROM books WHERE content_hash = ?", (digest.lower(),)).fetchone() is not None

    def book_id(self, book: int) -> BookId:
        """A book's id as a part is handed it, checked to be in the library (``book_value``: 3 µs, where building
        its record takes 47; ``BookNotFoundError`` if not there). Parts take ids only: text that names a book (a
        title, a hash prefix, "1984") is turned into one once, at the edge (``resolve``, through ``Quire.book`` and
        ``Quire.open``), so "1984" and 1984 never name two books through one parameter."""
        return BookId(self.book_value(_an_id(book), "id"))

    def book_value(self, book_id: int, column: str) -> Any:
        """One stored field of a book (``id``, ``content_hash``, ``segment_count``), read from one row of an index
        instead of building its record; BookNotFoundError, as ``get`` says it, when the book is not there."""
        if column not in _BOOK_VALUES:
            raise ValueError(f"{column!r} is not a book field read alone: one of {', '.join(sorted(_BOOK_VALUES))}")
        row = None
        if 0 < book_id < 1 << 63:  # SQLite's integers stop there
            row = self.conn.execute(f"SELECT {column} FROM books WHERE id = ?", (book_id,)).fetchone()
        if row is None:
            raise BookNotFoundError(f"no book with id {str(book_id)[:24]} in the library")
        return row[0]

    def resolve(self, reference: str | int) -> BookRecord:
        """Find a book exactly: by id, by its title (whole, or a part that only one title has), or by a prefix of its
        content hash (4+ hex digits). Digits are an id first, then a title ("1984" opens Orwell's book when no
        book has the id 1984). An empty reference, or one that fits several books, is refused with a list of
        books to choose from; nothing is ever picked by a wildcard."""
        if isinstance(reference, int):
            return self.get(reference)
        text = " ".join(str(reference).split())
        if not text:
            raise BookNotFoundError(f"name a book by its id or title{self._choices(self._ids())}")
        if len(text) > MAX_REFERENCE_CHARS:
            raise BookNotFoundError(f"no book in the library matches a reference {len(text):,} characters long")
        if text.isascii() and text.isdigit():
            if len(text) > 18:  # past SQLite's integers: said as an id that is not there
                return self.get(int(text))
            if self.conn.execute("SELECT 1 FROM books WHERE id = ?", (int(text),)).fetchone() is not None:
                return self.get(int(text))
        titles = self.conn.execute("SELECT id, title FROM books ORDER BY id").fetchall()
        folded = text.casefold()
        exact = [r["id"] for r in titles if " ".join(r["title"].split()).casefold() == folded]
        if len(exact) == 1:
            return self.get(exact[0])
        if len(text) >= 4 and all(c in "0123456789abcdef" for c in folded):
            hashes = self.conn.execute(
                "SELECT id FROM books WHERE substr(content_hash, 1, ?) = ? ORDER BY id", (len(folded), folded)
            ).fetchall()
            if len(hashes) == 1:
                return self.get(hashes[0]["id"])
        found = exact or [r["id"] for r in titles if folded in " ".join(r["title"].split()).casefold()]
        if len(found) == 1:
            return self.get(found[0])
        if found:
            raise BookNotFoundError(f"'{text[:80]}' matches {len(found)} books: use the id{self._choices(found)}")
        raise BookNotFoundError(f"no book in the library matches '{text[:80]}'")

    def _ids(self) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM books ORDER BY id LIMIT 6")]

    def _choices(self, ids: list[int]) -> str:
        """': 3: Moby-Dick; 5: Emma' for up to five books (with '…' past them), or '' when there are none."""
        if not ids:
            return " (the library is empty)"
        rows = [self.conn.execute("SELECT id, title FROM books WHERE id = ?", (i,)).fetchone() for i in ids[:5]]
        return " (" + "; ".join(f"{r['id']}: {r['title']}" for r in rows if r) + ("; …" if len(ids) > 5 else "") + ")"

    def edit(
        self, book_id: int, title: str | None = None, authors: list[str] | None = None, *, journal: bool = True
    ) -> BookRecord:
        """Change a book's title or authors (the reader knows better than the file); None leaves one as it is."""
        record = self.get(book_id)
        if title is not None:
            title = " ".join(title.split())[:500]
            if not title:
                raise QuireError("a book needs a title: write one, or leave it as it was")
        clean = [" ".join(a.split())[:200] for a in authors or [] if a.strip()] if authors is not None else None
        title = title if title is not None else record.title
        clean = (clean if clean is not None else record.authors)[:50]
        with self.transaction() as conn:
            conn.execute(
                "UPDATE books SET title = ?, authors = ?, edited_at = ?, title_key = ?, authors_key = ? WHERE id = ?",
                (title, json.dumps(clean, ensure_ascii=False), now(), *shelf_keys(title, clean), book_id),
            )
            if journal:
                sync_store.record(conn, f"meta/{record.content_hash}", {"title": title, "authors": clean})
        return self.get(book_id)

    def remove(self, book_id: int, *, journal: bool = True) -> BookRecord:
        """Delete a book's rows (annotations included) and its file.

        With ``journal`` (the reader removed it), sync removes it on other devices too. Its notes stay in sync's
        records, not erased: imported again, here or anywhere, the book gets them back.
        """
        record = self.get(book_id)
        with self.transaction() as conn:
            if journal:
                sync_store.record(conn, f"book/{record.content_hash}", {"present": False})
            for hook in self.remove_hooks:
                hook(conn, book_id)
            paragraph_index.clear(conn, book_id)
            conn.execute("DELETE FROM books WHERE id = ?", (book_id,))
        for path in self.files.glob(f"{record.content_hash}.*"):
            path.unlink(missing_ok=True)
        return record

    def file_path(self, book_id: int) -> Path:
        """The stored copy of the book's file."""
        record = self.get(book_id)
        matches = sorted(self.files.glob(f"{record.content_hash}.*"))
        if not matches:
            raise LibraryError(f"the file of '{record.title}' is missing from {self.files}: import it again")
        return matches[0]

    def image(self, book_id: int, src: str) -> bytes | None:
        """An illustration of an EPUB by its path in the archive (an image segment's ``src``), or None.

        The archive passed the import's safety checks; images larger than MAX_IMAGE_BYTES are not read.
        """
        path = self.file_path(book_id)
        if path.suffix.lower() in (".fb2", ".fbz"):
            from core.books.fb2 import image

            try:
                picture = image(path.read_bytes(), src)
            except (OSError, QuireError):
                return None
            return picture if picture is not None and len(picture) <= MAX_IMAGE_BYTES else None
        if path.suffix.lower() in (".mobi", ".azw3", ".azw", ".prc"):
            from core.books.mobi import image as mobi_image

            try:
                picture = mobi_image(path.read_bytes(), src)
            except OSError:
                return None
            return picture if picture is not None and len(picture) <= MAX_IMAGE_BYTES else None
        if path.suffix.lower() == ".cbz":
            from core.books.cbz import page

            picture = page(path, src)
            return picture if picture is not None and len(picture) <= MAX_IMAGE_BYTES else None
        if path.suffix.lower() == ".pdf":
            from core.books.pdf_pages import render

            picture = render(path, src)  # a page of a scanned PDF, drawn now (None where pages cannot be drawn)
            return picture if picture is not None and len(picture) <= MAX_IMAGE_BYTES else None
        if path.suffix.lower() != ".epub":
            return None  # text and Markdown books keep no images of their own
        try:
            with zipfile.ZipFile(path) as archive:
                info = archive.getinfo(src)
                if info.file_size > MAX_IMAGE_BYTES:
                    return None
                data = archive.read(info)
                return inline_styles(data) if src.lower().endswith(".svg") else data
        except (KeyError, OSError, zipfile.BadZipFile):
            return None

    def set_cover(self, book_id: int, picture: bytes, media_type: str) -> None:
        """Replace a book's cover (calibre's, when its library is imported)."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM book_covers WHERE book_id = ?", (book_id,))
            conn.execute("INSERT INTO book_covers VALUES (?,?,?)", (book_id, picture, media_type))

    def cover(self, book_id: int) -> tuple[bytes, str] | None:
        """The cover image bytes and media type, or None."""
        row = self.conn.execute("SELECT picture, media_type FROM book_covers WHERE book_id = ?", (book_id,)).fetchone()
        return (row["picture"], row["media_type"]) if row and row["picture"] else None

    # -- content ------------------------------------------------------------------------------
    def toc(self, book_id: int) -> list[TocRow]:
        """The table of contents, depth-first, each row with its depth."""
        self.get(book_id)
        rows = self.conn.execute(
            "SELECT depth, title, section_idx, segment_idx FROM toc WHERE book_id = ? ORDER BY idx", (book_id,)
        )
        return [
            TocRow(
                r["depth"],
                r["title"],
                Locator(r["section_idx"], r["segment_idx"]) if r["section_idx"] is not None else None,
            )
            for r in rows
        ]

    def sections(self, book_id: int) -> list[sqlite3.Row]:
        """Section rows: idx, title, href, linear, first_ordinal, segment_count."""
        return self.conn.execute("SELECT * FROM sections WHERE book_id = ? ORDER BY idx", (book_id,)).fetchall()

    def _segment_records(self, rows: list[sqlite3.Row]) -> list[SegmentRecord]:
        return [
            SegmentRecord(
                Locator(r["section_idx"], r["idx"]),
                r["ordinal"],
                r["kind"],
                r["level"],
                r["text"],
                r["title"],
                r["src"],
                page_label(json.loads(r["anchors"])) if r["anchors"] else None,
            )
            for r in rows
        ]

    _SEGMENT_SELECT = (
        "SELECT g.*, s.title FROM segments g JOIN sections s ON s.book_id = g.book_id AND s.idx = g.section_idx "
    )

    def segment(self, book_id: int, locator: Locator) -> SegmentRecord:
        """The segment at a locator; LocatorError when the book has no such segment."""
        rows = self.conn.execute(
            self._SEGMENT_SELECT + "WHERE g.book_id = ? AND g.section_idx = ? AND g.idx = ?",
            (book_id, locator.section, locator.segment),
        ).fetchall()
        if not rows:
            self.get(book_id)
            sections = self.conn.execute(
                "SELECT COUNT(DISTINCT section_idx) FROM segments WHERE book_id = ?", (book_id,)
            ).fetchone()[0]
            raise LocatorError(
                f"{locator} is outside this book, whose sections are numbered 0 to {max(sections - 1, 0)}"
            )
        record = self._segment_records(rows)[0]
        if locator.offset is not None and locator.offset > len(record.text):
            raise LocatorError(
                f"locator {locator}: segment {locator.segment_locator} has only {len(record.text)} characters"
            )
        return record

    def segments(self, book_id: int, start_ordinal: int = 0, limit: int = 200) -> list[SegmentRecord]:
        """Segments in reading order from an ordinal (a page of them)."""
        rows = self.conn.execute(
            self._SEGMENT_SELECT + "WHERE g.book_id = ? AND g.ordinal >= ? ORDER BY g.ordinal LIMIT ?",
            (book_id, start_ordinal, limit),
        ).fetchall()
        return self._segment_records(rows)

    def section_segments(self, book_id: int, section: int) -> list[SegmentRecord]:
        """All segments of one section."""
        rows = self.conn.execute(
            self._SEGMENT_SELECT + "WHERE g.book_id = ? AND g.section_idx = ? ORDER BY g.idx", (book_id, section)
        ).fetchall()
        return self._segment_records(rows)

    def ordinal_of(self, book_id: int, locator: Locator) -> int:
        """The global ordinal of the segment a locator points at."""
        return self.segment(book_id, locator).ordinal

    # -- search -------------------------------------------------------------------------------
    def find(
        self, book_id: int | None, query: str, limit: int | None = 20, *, in_book_order: bool = False
    ) -> list[SearchHit]:
        """Full-text search in one book (or the whole library), with snippets and every match marked.

        Best matches first; ``in_book_order`` (one book): every matching paragraph in reading order, so the
        first mention comes first. ``limit`` None: all of them.
        """
        expression = match_expression(query)
        if expression is None:
            return []
        paragraph_index.write_due(self, book_id)  # a book opened at once: its index first
        order = "g.ordinal" if in_book_order and book_id is not None else "rank"
        within: tuple[int, ...] = ()
        if book_id is not None:  # FTS5 seeks to the book's run of segment ids (db.book_rows)
            rows = book_rows(self.conn, "segments", book_id)
            if rows is None:
                return []
            within = (*rows, book_id)
        sql = (
            "SELECT g.*, s.title, bm25(segments_fts) AS rank FROM segments_fts f "
            "JOIN segments g ON g.id = f.rowid "
            "JOIN sections s ON s.book_id = g.book_id AND s.idx = g.section_idx "
            "WHERE segments_fts MATCH ?"
            + (" AND f.rowid BETWEEN ? AND ? AND g.book_id = ?" if book_id is not None else "")
            + f" ORDER BY {order} LIMIT ?"
        )
        cap = -1 if limit is None else limit  # SQLite: a negative LIMIT is no limit
        params = (expression, *within, cap)
        hits = []
        for row in self.conn.execute(sql, params).fetchall():
            snippet = make_snippet(row["text"], query)
            hits.append(
                SearchHit(
                    book_id=row["book_id"],
                    locator=Locator(row["section_idx"], row["idx"], snippet.offset),
                    ordinal=row["ordinal"],
                    section_title=row["title"],
                    snippet=snippet.highlighted(),
                    score=-row["rank"],
                    spans=snippet.spans,
                )
            )
        return hits


def _process_alive(pid: int, part: Path) -> bool:
    """Whether the process that writes ``part`` may still run (on this computer)."""
    if os.name == "nt":  # os.kill would end the process there: a day-old file is abandoned
        try:
            return time.time() - part.stat().st_mtime < 86_400
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists, or we cannot tell: keep its file
    return True


def _an_id(book: object) -> int:
    """``book`` when it is a book's id; TypeError when it is text (a part was handed a title: name it once)."""
    if not isinstance(book, int) or isinstance(book, bool):
        raise TypeError(f"a book's id (an int), not {type(book).__name__}: turn a title into one with quire.book()")
    return book
