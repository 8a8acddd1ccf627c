"""Tools that search the open book (or the library), never past the reader's place: passages to quote, by topic."""

from __future__ import annotations

from core.agent.tools.base import MAX_PASSAGES, SessionBase
from core.agent.tools.registry import always, indexed, not_indexed, tool
from core.agent.untrusted import untrusted
from core.rag.search import MODES


class SearchingTools(SessionBase):
    purpose = "searching"

    def _search(self, query: str, mode: str, k: int, sections: tuple[int, int] | None = None) -> list[str]:
        """Numbered passages, or one sentence saying why there are none."""
        if not query.strip():
            return ["Give a query: a few words or a question."]
        if mode not in MODES:
            return [f"mode must be one of {', '.join(MODES)}."]
        bound = self.bound
        if bound == -1:
            return ["The reader has not started this book, so nothing may be searched yet (spoiler protection)."]
        k = max(1, min(k, MAX_PASSAGES))
        passages = self.quire.search(self.book, query, mode=mode, k=k, before=bound, sections=sections)
        return [self._number(p, p.section_title) for p in passages]

    def _found(self, query: str, mode: str, k: int) -> str:
        found = self._search(query, mode, k)
        return "\n\n".join(found) if found else "Nothing in the part of the book the reader can see matches."

    @tool(indexed)
    def search_book(self, query: str, mode: str = "hybrid", k: int = 6) -> str:
        """Search the open book (keyword + meaning). Returns numbered passages to cite."""
        return self._found(query, mode, k)

    @tool(not_indexed)  # until the book is indexed for meaning
    def keyword_search(self, query: str, k: int = 6) -> str:
        """Search the open book by its words (it is not indexed for meaning yet). Returns numbered passages."""
        return self._found(query, "keyword", k)

    @tool(always)
    def search_library(self, query: str, k: int = 6) -> str:
        """Search every book in the reader's library (each only as far as the reader has read it). Returns numbered
        passages to cite, each with its book."""
        if not query.strip():
            return "Give a query: a few words or a question."
        k = max(1, min(k, MAX_PASSAGES))
        passages = self.quire.search_library(query, k=k, spoilers=self.spoilers_allowed)
        if not passages:
            return "Nothing the reader has read in any book matches."
        titles = {b.id: b.title for b in self.quire.books()}
        return "\n\n".join(
            self._number(p, f"{titles.get(p.book_id, '?')}, {p.section_title}".rstrip(", ")) for p in passages
        )

    @tool(indexed)
    def chapter_passages(self, entry: int, k: int = 8) -> str:
        """Passages spread through one chapter (by table-of-contents number), to summarise it."""
        rows = self._toc()
        locator = rows[entry - 1].locator if 1 <= entry <= len(rows) else None
        if locator is None:
            return f"No entry {entry}: this book's table of contents has {len(rows)} entries."
        if not self._reached(rows[entry - 1], self.bound):
            return "The reader has not reached this chapter yet (spoiler protection)."
        k = max(1, min(k, MAX_PASSAGES))
        passages = self.quire.text.section_passages(self.book, locator.section, k, self.bound)
        if not passages:
            return "The reader has not reached this chapter yet (spoiler protection)."
        return "\n\n".join(self._number(p, rows[entry - 1].title) for p in passages)

    @tool(indexed)
    def find_quotes(self, topic: str, k: int = 6) -> str:
        """Exact lines about a topic (keyword search), numbered, ready to quote and cite."""
        return self._found(topic, "keyword", k)

    @tool(indexed)
    def compare_sections(self, entry_a: int, entry_b: int, aspect: str) -> str:
        """Passages about one aspect from two chapters (table-of-contents numbers), side by side."""
        rows = self._toc()
        out = []
        for entry in (entry_a, entry_b):
            locator = rows[entry - 1].locator if 1 <= entry <= len(rows) else None
            if locator is None:
                return f"No entry {entry}: this book's table of contents has {len(rows)} entries."
            if not self._reached(rows[entry - 1], self.bound):
                out.append(f"Entry {entry}: (nothing the reader may see; they have not reached it)")
                continue
            out.append(f"From {untrusted(rows[entry - 1].title, inline=True)}:")
            section = (locator.section, locator.section)
            out += self._search(aspect, "hybrid", 3, section) or ["(nothing the reader may see)"]
        return "\n\n".join(out)
