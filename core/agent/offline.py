"""The answer Quire gives with no AI provider: the best passages, each with a verified citation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.agent.citations import Citation
from core.agent.safe_markdown import escape_markdown
from core.errors import CitationError
from core.rag.search import Passage

if TYPE_CHECKING:
    from core.services import Quire

NO_PROVIDER = (
    "No AI provider is set up, so here are the passages of the book that best match your question "
    "(search results, not a written answer)."
)
NOT_STARTED = (
    "You have not started this book, and spoiler protection is on, so there is nothing it may show yet. "
    "Open the book and read a little, or turn spoiler protection off."
)
_FIRST_SENTENCE = re.compile(r".+?(?:[.!?。！？]+[\"'”’」』]*(?=\s|$)|$)", re.S)


@dataclass
class OfflineAnswer:
    """Search results presented as an answer: numbered passages and one citation for each."""

    text: str
    passages: list[Passage] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    mode: str = "search-results"

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "text": self.text,
            "passages": [p.to_dict() for p in self.passages],
            "citations": [c.to_dict() for c in self.citations],
        }


def lead_quote(text: str, limit: int = 160) -> str:
    """The passage's first sentence (cut at a word boundary when long): what its citation quotes."""
    flat = " ".join(text.split())
    match = _FIRST_SENTENCE.match(flat)
    sentence = match.group() if match else flat
    if len(sentence) > limit:
        sentence = sentence[:limit].rsplit(" ", 1)[0] if " " in sentence[:limit] else sentence[:limit]
    return sentence


def answer_offline(
    quire: Quire, reference: str | int, question: str, *, spoilers: bool = False, k: int = 5
) -> OfflineAnswer:
    """Answer from search alone. With spoiler protection (the default) nothing past the reader's place shows."""
    book = quire.book(reference)
    before = None
    if not spoilers:
        position = quire.position(book.id)
        if position is None or position.furthest_ordinal < 0:
            return OfflineAnswer(NOT_STARTED)
        before = position.furthest_ordinal  # the spoiler bound: the furthest place read
    passages = quire.search(book.id, question, k=k, before=before)
    if not passages:
        return OfflineAnswer(f"{NO_PROVIDER}\n\nNothing in the part of the book you can see matches the question.")
    lines, citations = [NO_PROVIDER, ""], []
    for number, passage in enumerate(passages, start=1):
        try:
            citation = quire.verify_quote(passage, number, lead_quote(passage.text))
        except CitationError:
            continue  # never show a citation that could not be verified
        citations.append(citation)
        title, quote = escape_markdown(passage.section_title), escape_markdown(citation.quote)
        lines.append(f"[{number}] {title} ({citation.start}): {quote}")
    return OfflineAnswer("\n".join(lines), passages, citations)
