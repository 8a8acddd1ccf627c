"""The reader's notes: bookmarks, highlights with their notes, and their export."""

from __future__ import annotations

from pathlib import Path

from core.books.locator import parse_locator
from core.errors import QuireError
from core.export import export_json, export_markdown
from core.library import Annotations, Bookmark, Highlight, Library
from core.vault import VaultBook, export_vault


class Notes:
    """``quire.notes``: bookmarks and highlights of a book (or of the whole library), and their export."""

    def __init__(self, library: Library, annotations: Annotations) -> None:
        self._library = library
        self._annotations = annotations

    def _id(self, book: int) -> int:
        return self._library.book_id(book)

    def add_bookmark(self, book: int, locator: str, label: str = "") -> Bookmark:
        """Bookmark a locator."""
        return self._annotations.add_bookmark(self._id(book), parse_locator(locator), label)

    def bookmarks(self, book: int) -> list[Bookmark]:
        """A book's bookmarks."""
        return self._annotations.bookmarks(self._id(book))

    def remove_bookmark(self, bookmark_id: int) -> None:
        """Delete a bookmark."""
        self._annotations.remove_bookmark(bookmark_id)

    def add_highlight(
        self, book: int, start: str, end: str | None = None, color: str = "yellow", note: str = ""
    ) -> Highlight:
        """Highlight from ``start`` to ``end`` (the whole start segment when ``end`` is omitted)."""
        first = parse_locator(start)
        last = parse_locator(end) if end else first.segment_locator
        return self._annotations.add_highlight(self._id(book), first, last, color, note)

    def highlights(self, book: int | None = None) -> list[Highlight]:
        """Highlights of one book, or of the whole library."""
        return self._annotations.highlights(self._id(book) if book is not None else None)

    def update_highlight(self, highlight_id: int, *, note: str | None = None, color: str | None = None) -> Highlight:
        """Change a highlight's note or colour."""
        return self._annotations.update_highlight(highlight_id, note=note, color=color)

    def remove_highlight(self, highlight_id: int) -> None:
        """Delete a highlight and its note."""
        self._annotations.remove_highlight(highlight_id)

    def export(self, book: int, format_name: str = "md") -> str:
        """Highlights, notes and bookmarks of a book as Markdown ('md') or JSON ('json')."""
        record = self._library.get(book)
        highlights = self._annotations.highlights(record.id)
        bookmarks = self._annotations.bookmarks(record.id)
        if format_name == "json":
            return export_json(record, highlights, bookmarks)
        if format_name != "md":
            raise QuireError(f"unknown export format '{format_name}': use md or json")
        titles = {row["idx"]: row["title"] for row in self._library.sections(record.id)}
        return export_markdown(record, highlights, bookmarks, titles)

    def export_vault(self, folder: str | Path, book: int | None = None, *, create: bool = False) -> list[Path]:
        """Write each book's highlights and notes as a note in an Obsidian vault (one book, or every book with
        highlights); a note written before is updated in its own part only. The notes that changed. A missing
        folder is VaultFolderMissing unless ``create``."""
        if book is not None:
            records = [self._library.get(book)]
        else:
            marked = {h.book_id for h in self._annotations.highlights(None)}
            records = [self._library.get(book_id) for book_id in sorted(marked)]
        items = []
        for record in records:
            position = self._annotations.position(record.id)
            titles = {row["idx"]: row["title"] for row in self._library.sections(record.id)}
            percent = position.furthest_percent if position else 0
            items.append(VaultBook(record, self._annotations.highlights(record.id), titles, percent))
        try:
            return export_vault(Path(folder), items, create)
        except OSError as error:
            raise QuireError(
                f"cannot write the notes in '{folder}': {error.strerror or error}; choose another folder"
            ) from None
