"""The story so far, offline: each chapter read, told by its own key sentences, quoted and cited.

A chapter's sentences are ranked by TextRank (a sentence that shares words with many others is central), and the
best are quoted in the book's order: two for each earlier chapter, four for the two latest (fuller where the reader
is). Only segments at or before the bound are read, so a chapter the reader is in the middle of is told up to the
place only. Ranking a whole chapter's sentences is kept per chapter: its text never changes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from core.agent.citations import Citation
from core.agent.events import AgentEvent, CitationEvent, Done, ErrorEvent, TextDelta
from core.agent.safe_markdown import escape_markdown
from core.books.locator import Locator
from core.library import Library, text_reads
from core.quotes import quoted
from core.rag.sentences import sentence_spans, terms

EARLIER, LATEST = 2, 4  # sentences quoted for each earlier chapter, and for the two latest
MIN_CHARS, MAX_CHARS = 40, 320  # a quoted sentence says something, and fits a line or three
DAMPING, ROUNDS = 0.85, 40
# Pages that are not the story: the contents, the title page, the printer's and the e-text's own notes.
_MATTER = re.compile(r"^\s*(table of )?contents\b|^\s*(title page|copyright|cover|colophon|imprint|目录|目錄|版权|封面)",
                     re.I)  # fmt: skip
_BOILERPLATE = re.compile(r"project gutenberg|\bebook #|\*\*\* ?(start|end) of", re.I)
NOT_STARTED = (
    "You have not started this book, and spoiler protection is on, so there is no story so far yet. "
    "Open the book and read a little."
)


@dataclass(frozen=True, slots=True)
class RecapChapter:
    """One chapter of the story so far: its title and its key sentences, each a citation of the book's words."""

    section: int
    title: str
    quotes: tuple[Citation, ...]
    partial: bool  # the reader is inside this chapter: told up to the place only


Candidate = tuple[int, int, int, int, str]  # (ordinal, segment index, start, end, sentence)


def _candidates(library: Library, book_id: int, section: int, bound: int | None) -> list[Candidate]:
    rows = text_reads.section_body(library.conn, book_id, section, bound if bound is not None else 1 << 62)
    found = []
    for ordinal, idx, text in rows:
        for a, b in sentence_spans(text):
            if MIN_CHARS <= b - a <= MAX_CHARS and not _BOILERPLATE.search(text[a:b]):
                found.append((ordinal, idx, a, b, text[a:b]))
    return found


def rank(sentences: list[str]) -> list[float]:
    """TextRank scores: a graph of sentences linked by the words they share (each link weighed down by the two
    sentences' lengths), ranked as PageRank ranks pages."""
    count = len(sentences)
    if count < 3:
        return [1.0] * count
    words = [terms(s) for s in sentences]
    vocabulary = {w: i for i, w in enumerate(sorted(set().union(*words)))}
    incidence = np.zeros((count, len(vocabulary)), dtype=np.float32)
    for row, held in enumerate(words):
        incidence[row, [vocabulary[w] for w in held]] = 1.0
    shared = incidence @ incidence.T
    lengths = np.array([math.log(len(w) + 1) + 1.0 for w in words], dtype=np.float32)
    weights = shared / (lengths[:, None] + lengths[None, :])
    np.fill_diagonal(weights, 0.0)
    totals = weights.sum(axis=1, keepdims=True)
    totals[totals == 0] = 1.0
    transition = weights / totals
    scores = np.full(count, 1.0 / count, dtype=np.float32)
    for _ in range(ROUNDS):
        scores = (1 - DAMPING) / count + DAMPING * (transition.T @ scores)
    return [float(x) for x in scores]


class Recaps:
    """The story so far for any place; whole chapters' rankings are kept (a chapter's text never changes)."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self._ranked: dict[tuple[int, int], list[tuple[Candidate, float]]] = {}

    def chapters(self, book_id: int, bound: int | None) -> list[tuple[int, str, bool]]:
        """(section, title, partial) of each story chapter begun at or before the bound, in reading order."""
        limit = bound if bound is not None else 1 << 62
        sections = text_reads.section_spans(self.library.conn, book_id, limit)
        return [(idx, title or "", last > limit) for idx, title, _, last in sections if not _MATTER.search(title or "")]

    def key_sentences(self, book_id: int, section: int, bound: int | None, count: int) -> list[Citation]:
        """A chapter's ``count`` most central sentences at or before the bound, in the book's order, as quotes."""
        ranked = self._rank(book_id, section, bound)
        best = sorted(sorted(ranked, key=lambda pair: -pair[1])[:count], key=lambda pair: (pair[0][0], pair[0][2]))
        return [
            Citation(book_id, 0, Locator(section, idx, a), Locator(section, idx, b), text)
            for (_, idx, a, b, text), _ in best
        ]

    def recap(self, book_id: int, bound: int | None) -> list[RecapChapter]:
        """Every chapter at or before the bound (None: the whole book), with its key sentences in book order."""
        chapters = []
        sections = self.chapters(book_id, bound)
        for position, (section, title, partial) in enumerate(sections):
            keep = LATEST if position >= len(sections) - 2 else EARLIER
            quotes = self.key_sentences(book_id, section, bound if partial else None, keep)
            if quotes:
                chapters.append(RecapChapter(section, title, tuple(quotes), partial))
        return chapters

    def _rank(self, book_id: int, section: int, bound: int | None) -> list[tuple[Candidate, float]]:
        key = (book_id, section)
        if bound is None and key in self._ranked:
            return self._ranked[key]
        found = _candidates(self.library, book_id, section, bound)
        ranked = list(zip(found, rank([c[4] for c in found]), strict=True))
        if bound is None:  # a whole chapter: kept for every later place
            self._ranked[key] = ranked
        return ranked


def recap_events(chapters: list[RecapChapter], started: bool = True) -> Iterator[AgentEvent]:
    """The story so far as an answer's events: the chapters as Markdown with numbered quotes, then their
    citations (the same stream ``quire ask`` gives, so the chat and ``--json`` show it the same way)."""
    if not started:
        yield ErrorEvent(NOT_STARTED, "NotStarted")
        yield Done()
        return
    blocks: list[str] = []
    citations: list[Citation] = []
    for chapter in chapters:
        lines = [f"**{escape_markdown(chapter.title)}**" if chapter.title else ""]
        for quote in chapter.quotes:
            citations.append(Citation(quote.book_id, len(citations) + 1, quote.start, quote.end, quote.quote))
            lines.append(f"- {escape_markdown(quoted(quote.quote))} [{len(citations)}]")
        blocks.append("\n".join(line for line in lines if line))
    yield TextDelta("\n\n".join(blocks))
    for citation in citations:
        yield CitationEvent(citation)
    yield Done()
