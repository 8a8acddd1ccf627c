"""View-model of the notes view: highlights and notes of one book or the whole library, edits and export."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core import Bookmark, Highlight, Quire, VocabularyWord, safe_file_name


@dataclass(frozen=True, slots=True)
class NoteGroup:
    """The highlights of one chapter of one book, in reading order."""

    book_id: int
    book_title: str
    chapter: str
    highlights: list[Highlight]


class NotesViewModel:
    """Notes for ``book_id``, or for every book when it is None."""

    def __init__(self, quire: Quire, book_id: int | None = None) -> None:
        self.quire = quire
        self.book_id = book_id
        self.shown_groups: list[NoteGroup] = []  # what refresh() read, for drawing
        self.shown_bookmarks: list[tuple[Bookmark, str]] = []
        self.shown_words: list[VocabularyWord] = []  # one book's vocabulary list (words looked up in it)

    def refresh(self) -> NotesViewModel:
        """Read the notes and bookmarks about to be drawn (drawing then reads nothing)."""
        self.shown_groups, self.shown_bookmarks = self.groups(), self.bookmarks()
        self.shown_words = self.quire.dictionary.vocabulary(self.book_id) if self.book_id is not None else []
        return self

    def groups(self) -> list[NoteGroup]:
        """Highlights grouped by book, then chapter, in reading order."""
        titles = {book.id: book.title for book in self.quire.books()}
        chapters: dict[int, dict[int, str]] = {}
        ordered = sorted(
            self.quire.notes.highlights(self.book_id), key=lambda h: (titles.get(h.book_id, ""), h.start.sort_key())
        )
        groups: list[NoteGroup] = []
        for highlight in ordered:
            if highlight.book_id not in chapters:
                chapters[highlight.book_id] = self.quire.text.section_titles(highlight.book_id)
            chapter = chapters[highlight.book_id].get(highlight.start.section, "")
            last = groups[-1] if groups else None
            if last and last.book_id == highlight.book_id and last.chapter == chapter:
                last.highlights.append(highlight)
            else:
                groups.append(NoteGroup(highlight.book_id, titles.get(highlight.book_id, ""), chapter, [highlight]))
        return groups

    def bookmarks(self) -> list[tuple[Bookmark, str]]:
        """This book's bookmarks with the start of the text they mark (empty for the library-wide view)."""
        if self.book_id is None:
            return []
        marked = []
        for bookmark in self.quire.notes.bookmarks(self.book_id):
            segment = self.quire.text.show(self.book_id, bookmark.locator)[0]
            excerpt = segment.text if len(segment.text) <= 90 else segment.text[:90] + "…"
            marked.append((bookmark, f"{segment.section_title} · {excerpt}"))
        return marked

    def remove_bookmark(self, bookmark_id: int) -> None:
        self.quire.notes.remove_bookmark(bookmark_id)

    def forget_word(self, word: str) -> None:
        """Take a word off the book's vocabulary list (on every device, through sync)."""
        assert self.book_id is not None
        self.quire.dictionary.forget(self.book_id, word)

    def set_note(self, highlight_id: int, note: str) -> Highlight:
        return self.quire.notes.update_highlight(highlight_id, note=note)

    def set_color(self, highlight_id: int, color: str) -> Highlight:
        return self.quire.notes.update_highlight(highlight_id, color=color)

    def remove(self, highlight_id: int) -> None:
        self.quire.notes.remove_highlight(highlight_id)

    def export_markdown(self) -> tuple[str, str]:
        """A file name and the Markdown of this book's notes (or every annotated book's, one after another)."""
        if self.book_id is not None:
            book = self.quire.book(self.book_id)
            text = self.quire.notes.export(book.id, "md")
            if self.quire.dictionary.vocabulary(book.id):  # the words looked up in it follow its notes
                text = text.rstrip("\n") + "\n\n" + self.quire.dictionary.export_vocabulary(book.id)
            return f"{safe_file_name(book.title, 'notes')}.md", text
        annotated = {h.book_id for h in self.quire.notes.highlights()}
        parts = [self.quire.notes.export(book.id, "md") for book in self.quire.books() if book.id in annotated]
        return "quire-notes.md", "\n\n".join(parts)

    def save_export(self, folder: Path) -> Path:
        """Write the Markdown export into ``folder`` and return the file's path."""
        name, text = self.export_markdown()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_text(text, encoding="utf-8")
        return path
