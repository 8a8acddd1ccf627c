"""What the agent and the offline answer read through: a small Protocol of the facade, defined beside the agent.

``core.services.Quire`` satisfies it; the agent never imports the facade, so the two import no circle (issue 27).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_core.language_models import BaseChatModel

    from core.agent.citations import Citation
    from core.agent.events import AgentEvent
    from core.books.locator import Locator
    from core.library import BookRecord, Highlight, Position, SegmentRecord, TocRow
    from core.rag import IndexStatus, Passage
    from core.rag.search import SearchMode


class ReadableText(Protocol):
    """A book's text by place: what the reading tools show and quote."""

    def toc(self, book: int) -> list[TocRow]: ...
    def show(self, book: int, locator: str | Locator, count: int = 1) -> list[SegmentRecord]: ...
    def segments(self, book: int, start_ordinal: int, count: int) -> list[SegmentRecord]: ...
    def section(self, book: int, section: int) -> list[SegmentRecord]: ...
    def ordinal_of(self, book: int, locator: str | Locator) -> int: ...
    def section_passages(self, book: int, section: int, k: int, max_ordinal: int | None) -> list[Passage]: ...
    def verify_quote(self, passage: Passage, number: int, quote: str) -> Citation: ...


class ReadableNotes(Protocol):
    """The reader's highlights (their notes are part of what the agent may search)."""

    def highlights(self, book: int | None = None) -> list[Highlight]: ...


class ReadableCompanion(Protocol):
    """The story so far, as an answer's events (offline: the chapters read in their own key sentences; with a model:
    each chapter summarised by it)."""

    def recap_events(
        self,
        book: int,
        *,
        spoilers: bool = False,
        model: BaseChatModel | None = None,
        model_key: str = "",
    ) -> Iterator[AgentEvent]: ...


class ReadingLibrary(Protocol):
    """The library as the agent's tools and the offline answer use it; each read is fenced by the caller."""

    @property
    def text(self) -> ReadableText: ...
    @property
    def notes(self) -> ReadableNotes: ...
    @property
    def companion(self) -> ReadableCompanion: ...
    def book(self, book: int) -> BookRecord: ...
    def books(self, tag: str | None = None) -> list[BookRecord]: ...
    def position(self, book: int) -> Position | None: ...
    def positions(self) -> dict[int, Position]: ...
    def search_library(
        self, query: str, *, mode: SearchMode = "hybrid", k: int = 10, spoilers: bool = False
    ) -> list[Passage]: ...
    def index_status(self, book: int) -> IndexStatus | None: ...
    def search(
        self,
        book: int | None,
        query: str,
        *,
        mode: SearchMode = "hybrid",
        k: int = 10,
        before: str | Locator | int | None = None,
        sections: tuple[int, int] | None = None,
    ) -> list[Passage]: ...
