"""View-model of the library: rows to show, sorted, filtered and searched; import and remove."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from app.i18n import Translator
from core import Locator, Quire, ReadProgress, ShelfBook, TocRow
from platform_adapters.base import PickedFile

log = logging.getLogger(__name__)
PAGE = 60  # cards read and drawn at first, and again each time the reader scrolls near the end
PASSAGES = 8  # passages the library's search shows from the books' text
PASSAGE_CHARACTERS = 240  # of each passage, shown under its book and chapter


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
class PassageRow:
    """A passage the library's search found in a book's text, as the library lists it (it opens the book there)."""

    book_id: int
    title: str  # the book's
    where: str  # the chapter, and a PDF's printed page
    text: str  # the passage, shortened around its start
    start: Locator
    end: Locator


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
        self._size = 0  # books in the library, as refresh() counted them
        self._tags: list[str] = []
        # The shelf read for (sort, query, tag): its rows so far (a page, and one more each time the reader scrolled
        # near the end) and whether more books pass that filter. The view draws from these; a drawing again reads
        # nothing, and a refresh reads as many rows as the shelf shows, so a redrawn shelf keeps where it was.
        self._shelf: tuple[tuple[str, str, str | None], list[BookRow], bool] | None = None
        self._covers: dict[int, bytes | None] = {}  # book id -> cover bytes (a book's cover does not change)
        # The passages of the books' text found for a query (each book searched only as far as it was read):
        # (the query, its rows), drawn while the query is still the one typed.
        self._passages: tuple[str, list[PassageRow]] | None = None
        self.spoilers: Callable[[], bool] = lambda: False  # the app's spoiler protection, off: whole books searched

    def refresh(self) -> None:
        """Count the library, read its tags and its shelf for the screen about to be drawn (drawing reads nothing
        more unless the reader changes the filter). Covers are read when a card is first drawn (``cover``)."""
        self._size = self.quire.shelf.size()
        self._tags = self.quire.tags()
        shown = len(self._shelf[1]) if self._shelf is not None and self._shelf[0] == self._key else 0
        self._shelf = (self._key, *self._page(0, max(PAGE, shown)))

    @property
    def _key(self) -> tuple[str, str, str | None]:
        return (self.sort, self.query, self.tag)

    @property
    def has_books(self) -> bool:
        return self._size > 0

    @property
    def tags(self) -> list[str]:
        return self._tags

    def find_passages(self, query: str) -> list[PassageRow]:
        """Passages of the books' text for ``query`` (keyword and meaning), each book searched up to its furthest
        place unless spoilers are allowed; kept for ``passages`` while the query stays the one typed."""
        query = query.strip()
        if not query:
            self._passages = None
            return []
        found = self.quire.search_library(query, k=PASSAGES, spoilers=self.spoilers())
        titles = {b.id: b.title for b in self.quire.books()} if found else {}
        rows = []
        for passage in found:
            text = " ".join(passage.text.split())
            short = text[:PASSAGE_CHARACTERS].rsplit(" ", 1)[0] + "…" if len(text) > PASSAGE_CHARACTERS else text
            page = self.t("chat.page", page=passage.page) if passage.page else ""
            where = " · ".join(part for part in (passage.section_title, page) if part)
            rows.append(PassageRow(passage.book_id, titles.get(passage.book_id, ""), where, short, passage.start,
                                   passage.end))  # fmt: skip
        self._passages = (query, rows)
        return rows

    @property
    def passages(self) -> list[PassageRow] | None:
        """The passages found for the query typed now; None while they have not been looked for."""
        if self._passages is None or self._passages[0] != self.query.strip():
            return None
        return self._passages[1]

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
        """The shelf's books after the search, tag filter and sort: its first ``PAGE`` read in the database when the
        filter changed since the last read, else what was read (with the pages ``read_more`` added)."""
        if self._shelf is None or self._shelf[0] != self._key:
            self._shelf = (self._key, *self._page(0, PAGE))
        return list(self._shelf[1])

    @property
    def more(self) -> bool:
        """Whether books past those of ``rows`` pass the filter: the shelf reads on as the reader scrolls."""
        return self._shelf is not None and self._shelf[0] == self._key and self._shelf[2]

    def read_more(self) -> bool:
        """Add the next ``PAGE`` books to the shelf (the reader scrolled near its end); False when none were left."""
        rows = self.rows()
        if not self.more:
            return False
        added, more = self._page(len(rows), PAGE)
        self._shelf = (self._key, rows + added, more)
        return bool(added)

    def _page(self, offset: int, limit: int) -> tuple[list[BookRow], bool]:
        page = self.quire.shelf.page(sort=self.sort, words=self.query, tag=self.tag, offset=offset, limit=limit)
        new, unknown = self.t("library.new"), self.t("library.unknown_author")  # once a page, not once a card
        return [self._row(book, new, unknown) for book in page.books], page.more

    def _row(self, book: ShelfBook, new: str, unknown: str) -> BookRow:
        read = f"{book.percent:.0f}%" if book.percent is not None else new
        return BookRow(
            book.id,
            book.title,
            book.authors or unknown,
            f"{book.edition} · {read}",
            book.percent or 0.0,
            book.has_cover,
            book.edition,
            self.t("library.warnings", n=book.warnings) if book.warnings else "",
        )

    @property
    def summary(self) -> str:
        """A one-line count of the whole library."""
        return self.t.count(self._size)

    def import_files(self, files: list[PickedFile]) -> list[ImportOutcome]:
        """Import picked files one by one; each gets its own message, a bad one does not stop the rest."""
        return [self.import_one(picked) for picked in files]

    def import_one(self, picked: PickedFile, reading: ReadProgress | None = None) -> ImportOutcome:
        """Import one picked file; a file that cannot be read is refused like a bad book.

        ``reading`` is told (pages read, pages in all) while a paged book (a PDF) is read. The book's passages
        (what its search and the chat read) are left to ``prepare``, so the book can be opened sooner.
        """
        try:
            data = picked.read_bytes()
        except (OSError, ValueError) as error:
            return ImportOutcome(picked.name, False, self.t("import.refused", name=picked.name, reason=error))
        result = self.quire.import_bytes(data, picked.name, reading, passages=False)  # prepare() cuts them after
        if result.error:
            return ImportOutcome(
                picked.name, False, self.t("import.refused", name=picked.name, reason=self.t.error(result.error))
            )
        book = result.book
        assert book is not None  # an import with no error has its book
        if result.created:
            return ImportOutcome(picked.name, True, self.t("import.done", title=book.title), book.id, created=True)
        return ImportOutcome(picked.name, True, self.t("import.duplicate", title=book.title), book.id)

    def prepare(self, book_id: int) -> None:
        """Cut an imported or opened book into its passages, or count their keyword statistics, where it lacks
        them (behind the screen: a library closed meanwhile, or a failure, leaves them to whatever reads them
        first, which makes them then)."""
        try:
            self.quire.text.prepare(book_id)
        except Exception:  # the work is redone when the passages are first read
            log.warning("the passages of book %s are left for later", book_id, exc_info=True)

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
