"""Candidate passages ranked by their best two-sentence window (BM25 over windows): the question's words close
together count more than the same words spread over a whole passage.

Only the passages that keyword or vector search already found are scored, so the cost is a few milliseconds per
question and nothing is added to the index. Chosen on FairytaleQA train (``bench.retrieval``): fused with the
keyword and vector lists it raised Recall@1 from 0.689 to 0.702 and MRR from 0.785 to 0.795; windows of one
sentence or of three did no better, and scoring every window of the book instead of the candidates' added 0.1.
"""

from __future__ import annotations

import functools
import math
from collections import Counter

from core.rag.sentences import sentence_spans, term_list

WINDOW = 2  # sentences per window
K1, B = 1.2, 0.75  # the usual BM25 constants (the same as SQLite FTS5's bm25())


def sentence_terms(text: str) -> str:
    """A passage's sentences as its windows are scored, to store at index time (``chunk_windows``): each
    sentence's words (``term_list``) separated by spaces, each sentence ended by a newline. Reading them back is
    about a sixth of finding them again (Moby-Dick: 0.1 ms a passage, most of a hybrid query not yet cached)."""
    return "".join(" ".join(term_list(text[a:b])) + "\n" for a, b in sentence_spans(text))


@functools.lru_cache(maxsize=1024)
def _windows(text: str, window: int) -> tuple[tuple[Counter[str], int], ...]:
    """A passage's windows: each one's word counts and length. Kept for the last 1,024 passages scored (8 MB
    measured for Moby-Dick's 192-token chunks): the same chunks come back question after question in a book, and re-reading
    their words was most of a hybrid query's time. Read only by ``window_ranking`` (the counts never change)."""
    return _counted([term_list(text[a:b]) for a, b in sentence_spans(text)], window)


@functools.lru_cache(maxsize=1024)
def _stored_windows(stored: str, window: int) -> tuple[tuple[Counter[str], int], ...]:
    """The windows of a passage whose ``sentence_terms`` were stored: the same as ``_windows`` of its text."""
    return _counted([line.split() for line in stored.split("\n")[:-1]], window)


def _counted(sentences: list[list[str]], window: int) -> tuple[tuple[Counter[str], int], ...]:
    found = []
    for i in range(len(sentences)):
        held_words = [w for s in sentences[i : i + window] for w in s]
        found.append((Counter(held_words), len(held_words)))
    return tuple(found)


def window_ranking(
    question: str, passages: dict[int, str], window: int = WINDOW, stored: dict[int, str] | None = None
) -> list[tuple[int, float]]:
    """(passage id, its best window's BM25 score) for passages holding a word of the question, best first.

    The candidates are ``passages`` (id -> text) and ``stored`` (id -> its stored ``sentence_terms``, for an
    indexed book: the same windows, read faster). IDF and the average window length come from the candidates'
    windows themselves.
    """
    asked = set(term_list(question))
    if not asked:
        return []
    windows = [(pid, counts, length) for pid, text in passages.items() for counts, length in _windows(text, window)]
    windows += [
        (pid, counts, length)
        for pid, terms in (stored or {}).items()
        for counts, length in _stored_windows(terms, window)
    ]
    if not windows:
        return []
    count = len(windows)
    average = sum(length for *_, length in windows) / count or 1.0
    # In sorted order: a set's order follows the process's string hashes, and each window's sum of floats with it.
    held = {t: sum(1 for _, counts, _ in windows if t in counts) for t in sorted(asked)}
    idf = {t: math.log(1 + (count - n + 0.5) / (n + 0.5)) for t, n in held.items() if n}
    best: dict[int, float] = {}
    for pid, counts, length in windows:
        norm = K1 * (1 - B + B * length / average)
        score = sum(idf[t] * counts[t] * (K1 + 1) / (counts[t] + norm) for t in idf if counts[t])
        if score > best.get(pid, 0.0):
            best[pid] = score
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))
