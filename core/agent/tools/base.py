"""What every tool group shares: the open book, the spoiler bound, and the passages numbered so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.agent.untrusted import untrusted
from core.errors import QuireError
from core.rag.search import Passage

if TYPE_CHECKING:
    from core.agent.reading_library import ReadingLibrary
    from core.library import TocRow

PAGE_CHARACTERS = 3000
MAX_PASSAGES = 10


@dataclass
class SessionBase:
    """What the agent may see in one conversation: the open book, the bound, what it has cited."""

    quire: ReadingLibrary
    book_id: int | None
    spoilers_allowed: bool = False
    selection: str = ""  # the passage the reader selected in the reader, if any
    passages: dict[int, Passage] = field(default_factory=dict)

    @property
    def bound(self) -> int | None:
        """The furthest segment ordinal the reader has read (None: no bound; -1: nothing read yet).

        The furthest place, not the current one: jumping back to chapter 1 does not hide what was read.
        """
        if self.spoilers_allowed or self.book_id is None:
            return None
        position = self.quire.position(self.book_id)
        return position.furthest_ordinal if position else -1

    @property
    def book(self) -> int:
        """The open book (the tools that read it are offered only when one is open)."""
        if self.book_id is None:
            raise QuireError("no book is open")
        return self.book_id

    @property
    def indexed(self) -> bool:
        status = self.quire.index_status(self.book_id) if self.book_id is not None else None
        return bool(status and status.done)

    def _number(self, passage: Passage, title: str) -> str:
        """A passage with the number ``cite`` will know it by."""
        number = len(self.passages) + 1
        self.passages[number] = passage
        page = f", p. {passage.page}" if passage.page else ""  # a short label: pdf.py keeps no other
        return f"[{number}] ({passage.start}{page}) in {untrusted(title, inline=True)}:\n{untrusted(passage.text)}"

    def _reached(self, row: TocRow, bound: int | None) -> bool:
        """Whether a contents entry starts at or before ``bound``, the reader's place (its title is no spoiler then)."""
        if bound is None:
            return True
        if row.locator is None:
            return False
        try:
            return self.quire.text.ordinal_of(self.book, row.locator) <= bound
        except QuireError:  # an entry that points nowhere in the text
            return False

    def _toc(self) -> list[TocRow]:
        return self.quire.text.toc(self.book)
