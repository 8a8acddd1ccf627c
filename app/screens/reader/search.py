"""Search inside the open book: every matching paragraph in reading order, shown a page of hits at a time."""

from __future__ import annotations

from core import Quire, SearchHit

SEARCH_PAGE = 100  # in-book search hits drawn at a time ("Show more" draws the next ones)


class BookSearch:
    """``reader.finder``: the reader's own search (it may show the whole book; hits past the place are marked)."""

    def __init__(self, quire: Quire, book_id: int) -> None:
        self.quire = quire
        self.book_id = book_id
        self.query = ""
        self.hits: list[SearchHit] = []
        self.shown = 0  # how many of the hits the panel draws
        self.read_to = -1  # the furthest place read when the search ran: hits past it are marked "ahead"

    def run(self, query: str) -> list[SearchHit]:
        """Full-text search in this book; the hits stay for the search panel."""
        self.query = query.strip()
        found = self.quire.find(self.book_id, self.query, None, in_book_order=True) if self.query else []
        self.hits = found  # every matching paragraph, in reading order: the first mention comes first
        self.shown = min(len(found), SEARCH_PAGE)
        position = self.quire.position(self.book_id)
        self.read_to = position.furthest_ordinal if position else -1
        return self.hits

    def is_ahead(self, hit: SearchHit) -> bool:
        """Whether a search hit lies past the furthest place read (the reader's own search may show it, marked)."""
        return hit.ordinal > self.read_to

    @property
    def matches(self) -> int:
        """How many times the words occur (a paragraph may hold several)."""
        return sum(max(1, len(hit.spans)) for hit in self.hits)

    def show_more(self) -> None:
        """Draw the next page of search hits."""
        self.shown = min(len(self.hits), self.shown + SEARCH_PAGE)
