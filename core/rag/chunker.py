"""Segment-aware chunking: whole segments packed in reading order, sized in the embedder's own tokens.

A chunk never crosses a section boundary and never cuts a sentence, except a sentence longer than the
budget, which is cut between words (between characters for CJK, preferring after a comma).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TokenCounter = Callable[[list[str]], list[int]]

DEFAULT_TARGET_TOKENS = 192
DEFAULT_OVERLAP = 0.2

_SENTENCE_END = re.compile(r"(?:[.!?]+[\"'”’)\]]*\s+|[。！？；…]+[”」』）\"']*\s*|\n+)")
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
        if match.end() > start:
            spans.append((start, match.end()))
            start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _split_long(segment: SegmentText, start: int, end: int, budget: int, count: TokenCounter) -> list[Piece]:
    """Cut one over-long sentence between words (or CJK characters) into pieces within the budget."""
    atoms = [(start + m.start(), start + m.end()) for m in _ATOM.finditer(segment.text[start:end])]
    tokens = count([segment.text[a:b] for a, b in atoms])
    pieces: list[Piece] = []
    piece_start, total = atoms[0][0], 0
    for (a, b), n in zip(atoms, tokens, strict=True):
        if total and total + n > budget:
            pieces.append(Piece(segment.ordinal, piece_start, a, total))
            piece_start, total = a, 0
        total += n
        last_end = b
    pieces.append(Piece(segment.ordinal, piece_start, last_end, total))
    return pieces


def _pieces(segments: Sequence[SegmentText], budget: int, count: TokenCounter) -> list[Piece]:
    whole = count([s.text for s in segments])
    pieces: list[Piece] = []
    for segment, tokens in zip(segments, whole, strict=True):
        if tokens <= budget:
            pieces.append(Piece(segment.ordinal, 0, len(segment.text), tokens))
            continue
        spans = sentence_spans(segment.text)
        sentence_tokens = count([segment.text[a:b] for a, b in spans])
        for (a, b), n in zip(spans, sentence_tokens, strict=True):
            if n <= budget:
                pieces.append(Piece(segment.ordinal, a, b, n))
            else:
                pieces.extend(_split_long(segment, a, b, budget, count))
    return pieces


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
    for section, members in by_section.items():
        pieces = _pieces(members, target_tokens, count_tokens)
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
