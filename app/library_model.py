"""View-model of the library list: plain rows the view renders, computed from the core facade."""

from __future__ import annotations

from dataclasses import dataclass

from core.services import Quire


@dataclass(frozen=True, slots=True)
class BookRow:
    """One line of the library list."""

    book_id: int
    title: str
    subtitle: str
    badge: str


class LibraryViewModel:
    """The library as the list view shows it."""

    empty_message = "Your library is empty. Import a book with: quire import FILE.epub"

    def __init__(self, quire: Quire) -> None:
        self.quire = quire

    def rows(self) -> list[BookRow]:
        """One row per book, most recent first."""
        rows = []
        for book in self.quire.books():
            position = self.quire.position(book.id)
            authors = ", ".join(book.authors) or "Unknown author"
            badge = f"{position.percent:.0f}%" if position else book.format.upper()
            warnings = f" · {len(book.warnings)} import warning(s)" if book.warnings else ""
            rows.append(BookRow(book.id, book.title, f"{authors}{warnings}", badge))
        return rows

    @property
    def summary(self) -> str:
        """A one-line count of the library."""
        count = len(self.quire.books())
        return f"{count} book" + ("" if count == 1 else "s")
