"""View-model of the library: rows to show, sorted, filtered and searched; import and remove."""

from __future__ import annotations

from dataclasses import dataclass

from app.i18n import Translator
from core import BookRecord, Position, Quire, ReadProgress, TocRow
from platform_adapters.base import PickedFile

SORTS = ("recent", "title", "author", "progress")


@dataclass(frozen=True, slots=True)
class BookRow:
    """One book as the library shows it."""

    book_id: int
    title: str
    subtitle: str  # the authors
    badge: str  # the edition and how far it is read: "AZW3 · 40%", "PDF · New"
    progress: float = 0.0  # percent read
    has_cover: bool = False
    edition: str = ""  # the file's format as its name says it: "AZW3", not the reader's "mobi"
    warnings: str = ""  # "2 import warning(s)", or ""


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What happened to one picked file, in words for the reader."""

    name: str
    ok: bool
    message: str
    book_id: int | None = None
    created: bool = False  # a new book (not one already in the library)


@dataclass(frozen=True, slots=True)
class BookDetails:
    """What the details dialog shows about one book."""

    title: str
    facts: list[tuple[str, str]]  # (label, value) in the reader's language
    toc: list[TocRow]
    warnings: list[str]


class LibraryViewModel:
    """The library as the views render it; the views only read these properties and call these methods."""

    def __init__(self, quire: Quire, translate: Translator | None = None) -> None:
        self.quire = quire
        self.t = translate or Translator()
        self.sort = "recent"
        self.query = ""
        self.tag: str | None = None
        self.layout = "grid"
        self._books: list[BookRecord] = []  # what refresh() read: the views draw from these, never from SQL
        self._positions: dict[int, Position] = {}
        self._tags: list[str] = []
        self._covers: dict[int, bytes | None] = {}  # book id -> cover bytes (a book's cover does not change)

    def refresh(self) -> None:
        """Read the library once for the screen about to be drawn (drawing and filtering then read nothing)."""
        self._books = self.quire.books()
        self._positions = self.quire.positions()  # one query for every book, not one each
        self._tags = self.quire.tags()
        # Covers are read when a card is first drawn (``cover``), not here: a large library's screen draws its
        # first cards only, and reading every cover at start was most of the wait.

    @property
    def has_books(self) -> bool:
        return bool(self._books)

    @property
    def tags(self) -> list[str]:
        return self._tags

    def cover(self, book_id: int) -> bytes | None:
        """A book's cover (read once, when its card is first drawn; a book's cover does not change)."""
        if book_id not in self._covers:
            found = self.quire.cover(book_id)
            self._covers[book_id] = found[0] if found else None
        return self._covers[book_id]

    def cover_is_read(self, book_id: int) -> bool:
        """Whether ``cover`` has this book's cover at hand (a card drawn again shows it at once)."""
        return book_id in self._covers

    @property
    def empty_message(self) -> str:
        return self.t("library.empty")

    def rows(self) -> list[BookRow]:
        """Books after the search, tag filter and sort (from what ``refresh`` read)."""
        rows = []
        needle = self.query.strip().casefold()
        for book in self._books:
            authors = ", ".join(book.authors)
            if self.tag is not None and self.tag not in book.tags:
                continue
            if needle and needle not in book.title.casefold() and needle not in authors.casefold():
                continue
            position = self._positions.get(book.id)
            kind = book.edition
            read = f"{position.furthest_percent:.0f}%" if position else self.t("library.new")
            rows.append(
                BookRow(
                    book.id,
                    book.title,
                    authors or self.t("library.unknown_author"),
                    f"{kind} · {read}",
                    position.furthest_percent if position else 0.0,
                    book.has_cover,
                    kind,
                    self.t("library.warnings", n=len(book.warnings)) if book.warnings else "",
                )
            )
        if self.sort == "recent":  # recently read first (the last place saved), then the books never opened,
            rows.sort(key=lambda r: r.book_id, reverse=True)  # the newest import first (a stable sort keeps this)
            return sorted(rows, key=lambda r: self._read_at(r.book_id), reverse=True)
        keys = {
            "title": lambda r: r.title.casefold(),
            "author": lambda r: r.subtitle.casefold(),
            "progress": lambda r: -r.progress,
        }
        return sorted(rows, key=keys[self.sort])

    def _read_at(self, book_id: int) -> str:
        """When the book's place was last saved (ISO 8601 text, which sorts in time order); "" when never."""
        position = self._positions.get(book_id)
        return position.updated_at if position else ""

    @property
    def summary(self) -> str:
        """A one-line count of the whole library."""
        return self.t.count(len(self._books))

    def import_files(self, files: list[PickedFile]) -> list[ImportOutcome]:
        """Import picked files one by one; each gets its own message, a bad one does not stop the rest."""
        return [self.import_one(picked) for picked in files]

    def import_one(self, picked: PickedFile, reading: ReadProgress | None = None) -> ImportOutcome:
        """Import one picked file; a file that cannot be read is refused like a bad book.

        ``reading`` is told (pages read, pages in all) while a paged book (a PDF) is read.
        """
        try:
            data = picked.read_bytes()
        except (OSError, ValueError) as error:
            return ImportOutcome(picked.name, False, self.t("import.refused", name=picked.name, reason=error))
        result = self.quire.import_bytes(data, picked.name, reading)
        if result.error:
            return ImportOutcome(
                picked.name, False, self.t("import.refused", name=picked.name, reason=self.t.error(result.error))
            )
        book = result.book
        assert book is not None  # an import with no error has its book
        if result.created:
            return ImportOutcome(picked.name, True, self.t("import.done", title=book.title), book.id, created=True)
        return ImportOutcome(picked.name, True, self.t("import.duplicate", title=book.title), book.id)

    def details(self, book_id: int) -> BookDetails:
        """Metadata, contents, import warnings, reading progress and index status of one book."""
        t = self.t
        book = self.quire.book(book_id)
        position = self.quire.position(book_id)
        index = self.quire.index_status(book_id)
        if index is None:
            index_text = t("details.index.none")
        elif index.status == "done":
            index_text = t("details.index.done", model=index.model)
        else:
            index_text = t("details.index.partial", done=index.done, total=index.total, status=index.status)
        reading = (
            t("details.reading", p=f"{position.furthest_percent:.0f}", minutes=round(position.reading_seconds / 60))
            if position
            else t("library.new")
        )
        facts = [
            (t("details.author"), ", ".join(book.authors) or t("library.unknown_author")),
            (t("details.language"), book.language),
            (t("details.publisher"), book.publisher),
            (
                t("details.format"),
                f"{book.format.upper()} · {book.file_size / 1024:.0f} KB · {t('details.chars', n=f'{book.char_count:,}')}",
            ),
            (t("details.progress"), reading),
            (t("details.index"), index_text),
            (t("details.tags"), ", ".join(book.tags)),
            (t("details.description"), book.description[:600]),
        ]
        return BookDetails(book.title, facts, self.quire.text.toc(book_id), list(book.warnings))

    def remove_prompt(self, book_id: int) -> str:
        """The confirmation question before removing a book."""
        return self.t("library.remove.confirm", title=self.quire.book(book_id).title)

    def remove(self, book_id: int) -> None:
        self.quire.remove(book_id)
