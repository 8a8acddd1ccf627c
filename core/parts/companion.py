"""The reading companion by book: X-Ray up to the furthest place read (or the whole book, spoilers allowed)."""

from __future__ import annotations

from core.companion.xray import XrayEntry, xray
from core.library import Annotations, Library


class Companion:
    """``quire.companion``: what the book has told the reader so far."""

    def __init__(self, library: Library, annotations: Annotations) -> None:
        self._library = library
        self._annotations = annotations

    def bound(self, reference: str | int, spoilers: bool = False) -> int | None:
        """The last place in reading order the companion may read: the furthest place read (-1: nothing read yet),
        or None with ``spoilers`` (the whole book)."""
        if spoilers:
            return None
        position = self._annotations.position(self._library.resolve(reference).id)
        return position.furthest_ordinal if position is not None else -1

    def xray(self, reference: str | int, *, spoilers: bool = False) -> list[XrayEntry]:
        """The people, places and terms named up to the furthest place read, most mentioned first."""
        book = self._library.resolve(reference).id
        bound = self.bound(book, spoilers)
        return [] if bound is not None and bound < 0 else xray(self._library, book, bound)
