"""The reading companion by book: X-Ray and the story so far, up to the furthest place read (or the whole book)."""

from __future__ import annotations

from collections.abc import Iterator

from core.agent.events import AgentEvent
from core.companion.recap import RecapChapter, Recaps, recap_events
from core.companion.xray import XrayEntry, xray
from core.library import Annotations, Library


class Companion:
    """``quire.companion``: what the book has told the reader so far."""

    def __init__(self, library: Library, annotations: Annotations) -> None:
        self._library = library
        self._annotations = annotations
        self._recaps = Recaps(library)

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

    def recap(self, reference: str | int, *, spoilers: bool = False) -> list[RecapChapter]:
        """The story so far: each chapter read, in its own key sentences (the latest ones fuller), each cited."""
        book = self._library.resolve(reference).id
        bound = self.bound(book, spoilers)
        return [] if bound is not None and bound < 0 else self._recaps.recap(book, bound)

    def recap_events(self, reference: str | int, *, spoilers: bool = False) -> Iterator[AgentEvent]:
        """The story so far as an answer's events (text, citations, done), as ``quire ask`` streams them."""
        bound = self.bound(reference, spoilers)
        started = bound is None or bound >= 0
        return recap_events(self.recap(reference, spoilers=spoilers) if started else [], started)
