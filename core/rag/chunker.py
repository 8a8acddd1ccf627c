"""Segment-aware chunking: whole segments packed in reading order, sized in the embedder's own tokens.

A chunk never crosses a section boundary and never cuts a sentence, except a sentence longer than the
budget, which is cut between words (between characters for CJK, preferring after a comma).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.books.textutil import abbreviation_stop

TokenCounter = Callable[[list[str]], list[int]]

DEFAULT_TARGET_TOKENS = 192
DEFAULT_OVERLAP = 0.2

_SENTENCE_END = re.compile(r"(?:[.!?]+[\"'”’)\]]*\s+|[。！？；…]+[”」』）\"']*\s*|\n+)")
_SENTENCE_TAIL = re.compile(r"(?:[.!?]+[\"'”’)\]]*\s+|[。！？；…]+[”」』）\"']*\s*|\n+)$")
_CLAUSE = re.compile(r"[^，、,：:；;—]*(?:[，、,：:；;—]+[\"'”’)\]]*\s*|$)")
_ATOM = re.compile(
    r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af][，、,：:]?\s*|[^\s\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+\s*|\s+"
)


@dataclass(frozen=True, slots=True)
class SegmentText:
    """The input: one segment's text with its place in the book."""

    ordinal: int
    section: int
    text: str


@dataclass(frozen=True, slots=True)
class Piece:
    """A slice of one segment's text: the whole segment, a sentence, or a run of words."""

    ordinal: int
    start: int
    end: int
    tokens: int


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of pieces from one section: its text and exactly which segments and characters it covers."""

    index: int
    section: int
    start_ordinal: int
    start_offset: int
    end_ordinal: int
    end_offset: int
    tokens: int
    text: str


def approximate_token_count(texts: list[str]) -> list[int]:
    """A tokenizer-free estimate (CJK characters plus 1.3 per word), for when no tokenizer is installed."""
    counts = []
    for text in texts:
        cjk = len(re.findall(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]", text))
        words = len(re.findall(r"[^\W\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+", text))
        punctuation = len(re.findall(r"[^\w\s]", text))
        counts.append(cjk + int(words * 1.3) + punctuation)
    return counts


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, trailing spaces included, covering the whole text."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if abbreviation_stop(text, match.start()) and "\n" not in match.group():
            continue  # "Mr. Holmes": the sentence goes on
        if match.end() > start:
            spans.append((start, match.end()))
            start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _refine(
    texts: dict[int, str],
    spans: list[tuple[int, int, int]],
    tokens: list[int],
    budget: int,
    count: TokenCounter,
    level: int,
) -> tuple[list[tuple[int, int, int]], list[int]]:
    """Split the spans (ordinal, start, end) that are over budget into smaller ones, counting in one batch.

    Level 0 splits into sentences, level 1 into clauses (after commas, colons, dashes), level 2 into
    words (and single CJK characters).
    """
    pattern = (None, _CLAUSE, _ATOM)[level]
    out: list[tuple[int, int, int]] = []
    pending: list[int] = []  # positions in ``out`` whose tokens are still to be counted
    counted: list[int | None] = []
    for (ordinal, a, b), n in zip(spans, tokens, strict=True):
        if n <= budget:
            out.append((ordinal, a, b))
            counted.append(n)
            continue
        text = texts[ordinal]
        if pattern is None:
            pieces = [(a + x, a + y) for x, y in sentence_spans(text[a:b])]
        else:
            pieces = [(m.start(), m.end()) for m in pattern.finditer(text, a, b) if m.end() > m.start()]
        for x, y in pieces:
            pending.append(len(out))
            out.append((ordinal, x, y))
            counted.append(None)
    fresh = count([texts[out[i][0]][out[i][1] : out[i][2]] for i in pending]) if pending else []
    for i, n in zip(pending, fresh, strict=True):
        counted[i] = n
    return out, [n or 0 for n in counted]


def _pieces(segments: Sequence[SegmentText], budget: int, count: TokenCounter) -> list[Piece]:
    """Whole segments where they fit, else their sentences (clauses, words when even those do not).

    Every text is tokenized once, in one batch: a segment's count is the sum of its sentences'
    (exact for WordPiece, whose pre-tokenizer splits at the spaces and punctuation that end them).
    """
    texts = {s.ordinal: s.text for s in segments}
    sentences = [(s.ordinal, a, b) for s in segments for a, b in sentence_spans(s.text)]
    counts = count([texts[o][a:b] for o, a, b in sentences])
    totals: dict[int, int] = {}
    for (ordinal, _, _), n in zip(sentences, counts, strict=True):
        totals[ordinal] = totals.get(ordinal, 0) + n
    spans: list[tuple[int, int, int]] = []
    tokens: list[int] = []
    for (ordinal, a, b), n in zip(sentences, counts, strict=True):
        if totals[ordinal] <= budget:
            if not spans or spans[-1][0] != ordinal:
                spans.append((ordinal, 0, len(texts[ordinal])))
                tokens.append(totals[ordinal])
            continue
        spans.append((ordinal, a, b))
        tokens.append(n)
    for level in (1, 2):
        if all(n <= budget for n in tokens):
            break
        spans, tokens = _refine(texts, spans, tokens, budget, count, level)
    pieces: list[Piece] = []
    for (ordinal, a, b), n in zip(spans, tokens, strict=True):
        previous = pieces[-1] if pieces else None
        # the finer cuts of one long sentence are packed back together up to the budget
        if (
            previous
            and previous.ordinal == ordinal
            and previous.end == a
            and previous.tokens + n <= budget
            and not _ends_sentence(texts[ordinal][max(0, a - 8) : a])
        ):
            pieces[-1] = Piece(ordinal, previous.start, b, previous.tokens + n)
        else:
            pieces.append(Piece(ordinal, a, b, n))
    return pieces


# The last visible character of any text ``_SENTENCE_TAIL`` matches (when it does not end in a newline).
_TAIL_MARKS = frozenset(".!?\"'”’)]。！？；…」』）")


def _ends_sentence(text: str) -> bool:
    visible = text.rstrip()
    if visible and not text.endswith("\n") and visible[-1] not in _TAIL_MARKS:
        return False  # the regular expression's answer, without searching (30,000 times for 红楼梦)
    tail = _SENTENCE_TAIL.search(text)
    return not text or (tail is not None and ("\n" in tail.group() or not abbreviation_stop(text, tail.start())))


def _chunk_text(pieces: Sequence[Piece], texts: dict[int, str]) -> str:
    parts: list[str] = []
    for i, piece in enumerate(pieces):
        text = texts[piece.ordinal]
        if i and pieces[i - 1].ordinal == piece.ordinal:
            parts[-1] += text[pieces[i - 1].end : piece.end]  # pieces of one segment are contiguous
        else:
            parts.append(text[piece.start : piece.end])
    return "\n".join(part.strip() for part in parts)


def chunk_segments(
    segments: Sequence[SegmentText],
    count_tokens: TokenCounter,
    target_tokens: int = DEFAULT_TARGET_TOKENS,
    overlap: float = DEFAULT_OVERLAP,
) -> list[Chunk]:
    """Pack segments (in reading order) into chunks of at most ``target_tokens`` with ``overlap``."""
    if not 0 <= overlap < 1:
        raise ValueError("overlap is a fraction of the target, from 0 to below 1")
    texts = {s.ordinal: s.text for s in segments}
    chunks: list[Chunk] = []
    by_section: dict[int, list[SegmentText]] = {}
    for segment in segments:
        if segment.text.strip():
            by_section.setdefault(segment.section, []).append(segment)
    overlap_tokens = int(target_tokens * overlap)
    section_of = {s.ordinal: s.section for s in segments}
    all_pieces = _pieces([s for members in by_section.values() for s in members], target_tokens, count_tokens)
    grouped: dict[int, list[Piece]] = {}
    for piece in all_pieces:
        grouped.setdefault(section_of[piece.ordinal], []).append(piece)
    for section, pieces in grouped.items():
        i = 0
        while i < len(pieces):
            j, total = i, 0
            while j < len(pieces) and (j == i or total + pieces[j].tokens <= target_tokens):
                total += pieces[j].tokens
                j += 1
            run = pieces[i:j]
            chunks.append(
                Chunk(
                    index=len(chunks),
                    section=section,
                    start_ordinal=run[0].ordinal,
                    start_offset=run[0].start,
                    end_ordinal=run[-1].ordinal,
                    end_offset=run[-1].end,
                    tokens=total,
                    text=_chunk_text(run, texts),
                )
            )
            if j >= len(pieces):
                break
            k, carried = j, 0
            while k - 1 > i and carried + pieces[k - 1].tokens <= overlap_tokens:
                k -= 1
                carried += pieces[k].tokens
            i = k
    return chunks
