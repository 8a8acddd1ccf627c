"""What the library's search of the books' text asks for, as typed intents posted to one handler
(``LibraryController.text``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.screens.library.model import PassageRow


@dataclass(frozen=True, slots=True)
class SearchText:
    """Look for the query in the books' text (behind the screen, once the typing pauses)."""

    query: str


@dataclass(frozen=True, slots=True)
class OpenPassage:
    """Open a passage's book there, its words marked."""

    row: PassageRow


@dataclass(frozen=True, slots=True)
class AskLibrary:
    """ "Ask your library": the question answered from every book."""

    question: str


TextIntent = SearchText | OpenPassage | AskLibrary
