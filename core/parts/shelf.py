"""The library screen's shelf: a page of books at a time, sorted, filtered and searched in the database."""

from __future__ import annotations

from core.library import Library
from core.library.shelf import ShelfPage, shelf_page, shelf_size


class Shelf:
    """``quire.shelf``: what the library screen draws, read a page at a time (a card's fields, not whole records)."""

    def __init__(self, library: Library) -> None:
        self._library = library

    def page(
        self, *, sort: str = "recent", words: str = "", tag: str | None = None, offset: int = 0, limit: int = 60
    ) -> ShelfPage:
        """Books ``offset`` to ``offset + limit`` in ``sort`` order ("recent", "title", "author", "progress"),
        only those with ``tag`` and with ``words`` in their title or authors (case does not matter)."""
        return shelf_page(self._library.conn, sort=sort, words=words, tag=tag, offset=offset, limit=limit)

    def size(self) -> int:
        """How many books the library holds."""
        return shelf_size(self._library.conn)
