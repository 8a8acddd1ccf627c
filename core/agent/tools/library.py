"""Tools about the reader's library: the books, how far the reader is, their own notes."""

from __future__ import annotations

from core.agent.tools.base import SessionBase
from core.agent.tools.registry import always, tool
from core.agent.untrusted import language_code, untrusted
from core.books.locator import Locator


class LibraryTools(SessionBase):
    purpose = "library"

    def _read(self, book_id: int, start: Locator) -> bool:
        """Whether a note's place is within what the reader has read of its book (the spoiler fence, per book: a
        highlight made before "I haven't read past here", or on another device, can lie past it)."""
        if self.spoilers_allowed:
            return True
        position = self.quire.position(book_id)
        return position is not None and self.quire.text.ordinal_of(book_id, start) <= position.furthest_ordinal

    @tool(always)
    def list_books(self) -> str:
        """List the books in the reader's library."""
        books = self.quire.books()
        if not books:
            return "The library is empty."
        return "\n".join(
            f"{b.id}: {untrusted(b.title, inline=True)} by {untrusted(', '.join(b.authors) or '?', inline=True)} "
            f"({language_code(b.language)})"
            for b in books
        )

    @tool(always)
    def reading_progress(self) -> str:
        """How far the reader has read in the open book."""
        if self.book_id is None:
            return "No book is open."
        position = self.quire.position(self.book_id)
        if position is None:
            return "The reader has not started this book."
        section = self.quire.text.show(self.book_id, position.locator.segment_locator)[0].section_title
        return (
            f"The reader has read {position.furthest_percent:.0f}% of the book and is now in the chapter "
            f"{untrusted(section, inline=True)}."
        )

    @tool(always)
    def search_notes(self, query: str) -> str:
        """Search the reader's own highlights and notes (in the open book, or all books)."""
        words = [w.lower() for w in query.split() if w.strip()]
        if not words:
            return "Give a few words to look for."
        found = [
            h
            for h in self.quire.notes.highlights(self.book_id)
            if any(w in (h.text + " " + h.note).lower() for w in words) and self._read(h.book_id, h.start)
        ]
        if not found:
            return "No highlight or note matches."
        return "\n".join(
            f"- ({h.start}) [{h.color}] {untrusted(h.text)} note: {h.note or '(none)'}" for h in found[:20]
        )
