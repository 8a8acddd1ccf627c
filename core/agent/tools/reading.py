"""Tools that read the open book: its contents, a chapter page by page, the reader's place, the selection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.agent.tools.base import PAGE_CHARACTERS, SessionBase
from core.agent.tools.registry import book_open, selected, tool
from core.agent.untrusted import untrusted

if TYPE_CHECKING:
    from core.library import SegmentRecord


class ReadingTools(SessionBase):
    purpose = "reading"

    @tool(book_open)
    def table_of_contents(self) -> str:
        """The open book's table of contents, numbered; read_chapter takes those numbers."""
        rows = self._toc()
        if not rows:
            return "This book has no table of contents."
        bound = self.bound  # once: the reader's place does not move while the contents are listed
        shown = [
            f"{i}. {'  ' * r.depth}{untrusted(r.title, inline=True)}"
            for i, r in enumerate(rows, start=1)
            if self._reached(r, bound)
        ]
        hidden = len(rows) - len(shown)
        later = f"\n({hidden} later entries are hidden: the reader has not reached them.)" if hidden else ""
        return ("\n".join(shown) or "The reader has not reached any chapter yet.") + later

    @tool(book_open)
    def read_chapter(self, entry: int, page: int = 1) -> str:
        """Read a chapter by its number in the table of contents, one page (about 3,000 characters) at a time."""
        rows = self._toc()
        if not 1 <= entry <= len(rows):
            return f"No entry {entry}: this book's table of contents has {len(rows)} entries."
        if page < 1:
            return "Pages start at 1."
        row = rows[entry - 1]
        if row.locator is None:
            return f"Entry {entry} does not point into the book's text."
        if not self._reached(row, self.bound):
            return "The reader has not reached this chapter yet, so it cannot be read (spoiler protection)."
        segments = self.quire.text.section(self.book, row.locator.section)
        bound = self.bound
        visible = [s for s in segments if bound is None or s.ordinal <= bound]
        if not visible:
            return "The reader has not reached this chapter yet, so it cannot be read (spoiler protection)."
        pages: list[list[SegmentRecord]] = []
        current: list[SegmentRecord] = []
        size = 0
        for segment in visible:
            if current and size + len(segment.text) > PAGE_CHARACTERS:
                pages.append(current)
                current, size = [], 0
            current.append(segment)
            size += len(segment.text)
        pages.append(current)
        if page > len(pages):
            return f"Entry {entry} has {len(pages)} page(s) the reader may see."
        text = "\n".join(f"({s.locator}) {s.text}" for s in pages[page - 1])
        cut = (
            " It continues past the reader's position, which is hidden."
            if len(visible) < len(segments) and page == len(pages)
            else ""
        )
        return f"{untrusted(row.title, inline=True)}, page {page} of {len(pages)}.{cut}\n{untrusted(text)}"

    @tool(book_open)
    def current_chapter(self, page: int = 1) -> str:
        """Read the chapter the reader is in, up to where they are, a page at a time."""
        position = self.quire.position(self.book)
        if position is None:
            return "The reader has not started this book."
        rows = self._toc()
        entries = [
            i for i, r in enumerate(rows, start=1) if r.locator and r.locator.section == position.locator.section
        ]
        if not entries:
            return "The reader's chapter is not in the table of contents; use around_position."
        return self.read_chapter(entries[0], page)

    @tool(book_open)
    def around_position(self, paragraphs: int = 6) -> str:
        """The paragraphs just before (and at) the reader's position: what they are reading now."""
        position = self.quire.position(self.book)
        if position is None:
            return "The reader has not started this book."
        count = max(1, min(paragraphs, 20))
        start = max(0, position.ordinal - count + 1)
        segments = self.quire.text.segments(self.book, start, position.ordinal - start + 1)
        return untrusted("\n".join(f"({s.locator}) {s.text}" for s in segments))

    @tool(selected)
    def selected_text(self) -> str:
        """The passage the reader has selected, to explain or discuss."""
        return untrusted(self.selection) if self.selection else "The reader has not selected anything."
