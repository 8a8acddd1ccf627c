"""View-model of the library: rows to show, sorted, filtered and searched; import and remove."""

from __future__ import annotations

from dataclasses import dataclass

from app.i18n import Translator
from core.services import Quire
from platform_adapters.base import PickedFile

SORTS = ("recent", "title", "author", "progress")


@dataclass(frozen=True, slots=True)
class BookRow:
    """One book as the library shows it."""

    book_id: int
    title: str
    subtitle: str
    badge: str
    progress: float = 0.0  # percent read
    has_cover: bool = False


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What happened to one picked file, in words for the reader."""

    name: str
    ok: bool
    message: str


class LibraryViewModel:
    """The library as the views render it; the views only read these properties and call these methods."""

    def __init__(self, quire: Quire, translate: Translator | None = None) -> None:
        self.quire = quire
        self.t = translate or Translator()
        self.sort = "recent"
        self.query = ""
        self.tag: str | None = None
        self.layout = "grid"

    @property
    def empty_message(self) -> str:
        return self.t("library.empty")

    def rows(self) -> list[BookRow]:
        """Books after the search, tag filter and sort."""
        rows = []
        needle = self.query.strip().casefold()
        for book in self.quire.books(self.tag):
            authors = ", ".join(book.authors)
            if needle and needle not in book.title.casefold() and needle not in authors.casefold():
                continue
            position = self.quire.position(book.id)
            warnings = f" · {self.t('library.warnings', n=len(book.warnings))}" if book.warnings else ""
            badge = f"{position.percent:.0f}%" if position else book.format.upper()
            rows.append(
                BookRow(
                    book.id,
                    book.title,
                    f"{authors or self.t('library.unknown_author')}{warnings}",
                    badge,
                    position.percent if position else 0.0,
                    book.has_cover,
                )
            )
        keys = {
            "recent": lambda r: -r.book_id,
            "title": lambda r: r.title.casefold(),
            "author": lambda r: r.subtitle.casefold(),
            "progress": lambda r: -r.progress,
        }
        return sorted(rows, key=keys[self.sort])

    @property
    def summary(self) -> str:
        """A one-line count of the whole library."""
        return self.t.count(len(self.quire.books()))

    def import_files(self, files: list[PickedFile]) -> list[ImportOutcome]:
        """Import picked files one by one; each gets its own message, a bad one does not stop the rest."""
        outcomes = []
        for picked in files:
            result = self.quire.import_bytes(picked.read_bytes(), picked.name)
            if result.error:
                outcomes.append(
                    ImportOutcome(picked.name, False, self.t("import.refused", name=picked.name, reason=result.error))
                )
            elif result.created:
                outcomes.append(ImportOutcome(picked.name, True, self.t("import.done", title=result.book.title)))
            else:
                outcomes.append(ImportOutcome(picked.name, True, self.t("import.duplicate", title=result.book.title)))
        return outcomes

    def remove_prompt(self, book_id: int) -> str:
        """The confirmation question before removing a book."""
        return self.t("library.remove.confirm", title=self.quire.book(book_id).title)

    def remove(self, book_id: int) -> None:
        self.quire.remove(book_id)
