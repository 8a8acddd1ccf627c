"""Citations: find a quoted phrase inside a retrieved passage and pin it to exact book locators.

Matching ignores case, width (NFKC), whitespace and punctuation, so a model that writes "Call me
Ishmael" for "Call me Ishmael." or straight quotes for curly ones still matches; a quote may skip
text with an ellipsis. A quote that is not in the passage is refused: Quire never shows a citation it
could not verify.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from core.books.locator import Locator, parse_locator
from core.errors import CitationError
from core.library.records import slices
from core.rag.chunk_store import ChunkStore
from core.rag.search import Passage

MIN_QUOTE_CHARACTERS = 4  # after normalising: shorter quotes would match by chance
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|⋯)+\s*")


@dataclass(frozen=True, slots=True)
class Citation:
    """A verified quote: the book's own words between two exact locators."""

    book_id: int
    passage: int  # the number the passage had in the answer, [1], [2]...
    start: Locator
    end: Locator
    quote: str  # the book's text, not the model's rendering of it
    page: str | None = None  # the printed page the quote's paragraph starts on (PDFs): "p. 12"

    def to_dict(self) -> dict[str, Any]:
        """The citation as JSON-ready values (locators as text): what is stored and what the CLI prints."""
        found = {
            "book_id": self.book_id,
            "passage": self.passage,
            "start": str(self.start),
            "end": str(self.end),
            "quote": self.quote,
        }
        return found | ({"page": self.page} if self.page else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any], book_id: int = 0) -> Citation:
        """Back from ``to_dict`` (the one place stored locators are parsed); ``book_id`` for parts stored
        before citations kept theirs."""
        return cls(
            int(data.get("book_id") or book_id),
            int(data["passage"]),
            parse_locator(data["start"]),
            parse_locator(data["end"]),
            str(data["quote"]),
            str(data["page"]) if data.get("page") else None,
        )


def _keep(char: str) -> bool:
    category = unicodedata.category(char)
    return not (category[0] in "PSZ" or char.isspace() or category == "Cc")


def _normalise(text: str) -> tuple[str, list[int]]:
    """Comparable text (folded, no spaces or punctuation) and each character's index in ``text``."""
    out, origin = [], []
    for index, char in enumerate(text):
        for folded in unicodedata.normalize("NFKC", char).casefold():
            if _keep(folded):
                out.append(folded)
                origin.append(index)
    return "".join(out), origin


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """The (start, end) of ``quote`` in ``text`` under loose matching, or None."""
    haystack, origin = _normalise(text)
    fragments = [f for f in (_normalise(part)[0] for part in _ELLIPSIS.split(quote)) if f]
    if sum(len(f) for f in fragments) < MIN_QUOTE_CHARACTERS:
        return None
    position, first = 0, -1
    for fragment in fragments:
        found = haystack.find(fragment, position)
        if found < 0:
            return None
        first = found if first < 0 else first
        position = found + len(fragment)
    return origin[first], origin[position - 1] + 1


def resolve_citation(chunks: ChunkStore, passage: Passage, number: int, quote: str) -> Citation:
    """Pin a quote from passage ``[number]`` to locators; CitationError when it is not there."""
    span = find_quote(passage.text, quote)
    if span is None:
        raise CitationError(
            f"the quote is not in passage [{number}]: cite only words that appear in that passage, copied exactly"
        )
    layout = chunks.layout(passage.chunk_id)
    first_ordinal = passage.start_ordinal - passage.start.segment
    start = _locate(layout, span[0], passage.start.section, first_ordinal)
    end = _locate(layout, span[1] - 1, passage.start.section, first_ordinal)
    end = end.at((end.offset or 0) + 1)  # _locate always sets the offset
    first, last = first_ordinal + start.segment, first_ordinal + end.segment
    segments = chunks.library.segments(passage.book_id, first, last - first + 1)
    pieces = [segment.text[a:b] for segment, a, b in slices(segments, start, end, first, last)]
    return Citation(passage.book_id, number, start, end, "\n".join(pieces), segments[0].page if segments else None)


def _locate(layout: list[tuple[int, int, int, int]], position: int, section: int, first_ordinal: int) -> Locator:
    """The segment locator (with offset) of a character position in a chunk's text."""
    for chunk_position, ordinal, offset, length in layout:
        if chunk_position <= position < chunk_position + length:
            return Locator(section, ordinal - first_ordinal, offset + position - chunk_position)
    raise CitationError("the quote spans the break between two paragraphs; quote within one paragraph")
