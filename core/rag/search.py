"""Hybrid retrieval: keyword (BM25) and vector (cosine) results fused with Reciprocal Rank Fusion."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from core.books.locator import Locator
from core.books.model import page_label
from core.errors import QuireError
from core.library.store import Library
from core.library.text_reads import page_anchors, section_head
from core.rag.chunk_store import ChunkStore, Filters
from core.rag.embedder import Embedder
from core.rag.index_store import IndexStore
from core.rag.proximity import window_ranking
from core.rag.vector_store import VectorStore

SearchMode = Literal["hybrid", "vector", "keyword"]
MODES: tuple[SearchMode, ...] = ("hybrid", "vector", "keyword")
"""The search modes: hybrid (keyword and vector fused with RRF), vector alone, keyword (BM25) alone."""
CANDIDATES_PER_RESULT = 4  # each single mode returns this many times k before fusion
# Weighted RRF: the keyword list counts 1, a vector list VECTOR_WEIGHT, each 1 / (RRF_K + rank). Chosen on
# FairytaleQA train (70 stories, 2,668 questions, all-MiniLM-L6-v2) as the setting with the best Recall@5 whose
# Recall@1 and MRR stay at keyword's (0.683 / 0.913 / 0.783 against keyword 0.689 / 0.913 / 0.785; the old
# 0.5 and k = 60 gave 0.632 / 0.902 / 0.748 there). MiniLM's vectors are weak on these stories (Recall@1
# 0.46), so they may reorder the keyword list only a little. A model that does not know the book's language
# (MiniLM on Chinese: vector Recall@5 0.21 on CMRC 2018) mostly adds noise, so its list counts a fifth of that,
# the same share as before (not tuned again: there is no Chinese training split here).
RRF_K = 10
VECTOR_WEIGHT = 0.2
VECTOR_WEIGHT_FOREIGN = VECTOR_WEIGHT / 5
# Hybrid search adds a third list: the candidates of both ranked by their best two-sentence window
# (core/rag/proximity.py), counted like the keyword list. On FairytaleQA train it raised Recall@1 / @5 / MRR from
# 0.683 / 0.913 / 0.783 to 0.702 / 0.920 / 0.795 (weights 0.75 and 1 were within 0.003 of each other).
WINDOW_WEIGHT = 1.0


@dataclass(frozen=True, slots=True)
class Passage:
    """A search hit: one chunk's text, its score (higher is better) and the exact places it covers."""

    chunk_id: int
    book_id: int
    text: str
    score: float
    start: Locator  # first segment, at the character where the chunk starts
    end: Locator  # last segment, at the character where the chunk ends
    section_title: str
    start_ordinal: int
    end_ordinal: int
    keyword_rank: int | None = None
    vector_rank: int | None = None
    page: str | None = None  # the printed page the passage starts on (PDFs)

    @property
    def locators(self) -> list[Locator]:
        """Every segment the passage covers, in order."""
        if self.start.section == self.end.section:
            return [Locator(self.start.section, g) for g in range(self.start.segment, self.end.segment + 1)]
        return [self.start.segment_locator, self.end.segment_locator]

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "book_id": self.book_id,
            "score": round(self.score, 6),
            "start": str(self.start),
            "end": str(self.end),
            "section": self.section_title,
            "keyword_rank": self.keyword_rank,
            "vector_rank": self.vector_rank,
            "page": self.page,
            "text": self.text,
        }


def reciprocal_rank_fusion(
    rankings: list[list[int]], weights: list[float] | None = None, k: int = RRF_K
) -> dict[int, float]:
    """Sum of weight / (k + rank) over the rankings each id appears in (ranks start at 1)."""
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def vector_weight(model_languages: tuple[str, ...], book_language: str | None) -> float:
    """How much a model's vector ranking counts in the fusion, given the book's language."""
    primary = (book_language or "").split("-")[0].lower()
    if not primary or "*" in model_languages or primary in model_languages:
        return VECTOR_WEIGHT
    return VECTOR_WEIGHT_FOREIGN


class Retriever:
    """Searches chunks of one book or the whole library, keyword, vector or both."""

    def __init__(
        self,
        library: Library,
        chunks: ChunkStore,
        vectors: VectorStore,
        embedder_for: Callable[[str], Embedder],
        model_languages: Callable[[str], tuple[str, ...]] = lambda model: ("*",),
    ) -> None:
        self.library = library
        self.chunks = chunks
        self.vectors = vectors
        self.embedder_for = embedder_for
        self.model_languages = model_languages
        self.index_rows = IndexStore(library)

    def indexed_models(self, book_id: int | None) -> list[str]:
        """Models with at least one vector in the book (or the library)."""
        return self.index_rows.models(book_id)

    def search(
        self,
        query: str,
        *,
        book_id: int | None = None,
        mode: SearchMode = "hybrid",
        k: int = 10,
        max_ordinal: int | None = None,
        sections: tuple[int, int] | None = None,
        fence: Mapping[int, int] | None = None,
    ) -> list[Passage]:
        """The best ``k`` passages for a query; the spoiler bound ``max_ordinal`` (in the library: each book's bound
        in ``fence``) is never crossed."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        filters = Filters(book_id, max_ordinal, sections, fence)
        depth = k * CANDIDATES_PER_RESULT
        keyword: list[tuple[int, float]] = []
        vector_lists: list[list[tuple[int, float]]] = []
        weights: list[float] = []
        if mode in ("hybrid", "keyword"):
            keyword = self.chunks.keyword(query, filters, depth)
        if mode in ("hybrid", "vector"):
            language = self.library.get(book_id).language if book_id is not None else None
            for model in self.indexed_models(book_id):
                try:
                    query_vector = self.embedder_for(model).embed_query(query)
                except QuireError:  # a remote model not set up here, offline, or refused by local-only mode
                    if mode == "vector":
                        raise
                    continue  # hybrid search still has the keywords
                vector_lists.append(self.vectors.search(model, query_vector, depth, filters))
                weights.append(vector_weight(self.model_languages(model), language))
        if mode == "keyword":
            scored = keyword[:k]
        elif mode == "vector":
            merged = sorted((hit for hits in vector_lists for hit in hits), key=lambda h: -h[1])
            scored = merged[:k]
        else:
            lists = [[cid for cid, _ in keyword]] + [[cid for cid, _ in v] for v in vector_lists]
            candidates = list(dict.fromkeys(cid for ids in lists for cid in ids))
            stored, texts = self.chunks.windows(candidates)  # an indexed book's sentences are stored
            windows = [cid for cid, _ in window_ranking(query, texts, stored=stored)][:depth]
            fused = reciprocal_rank_fusion([*lists, windows], [1.0, *weights, WINDOW_WEIGHT])
            scored = sorted(fused.items(), key=lambda item: -item[1])[:k]
        keyword_rank = {cid: rank for rank, (cid, _) in enumerate(keyword, start=1)}
        vector_rank: dict[int, int] = {}
        for hits in vector_lists:
            for rank, (cid, _) in enumerate(hits, start=1):
                vector_rank[cid] = min(rank, vector_rank.get(cid, rank))
        return self.passages(scored, keyword_rank, vector_rank)

    def passages(
        self,
        scored: list[tuple[int, float]],
        keyword_rank: dict[int, int] | None = None,
        vector_rank: dict[int, int] | None = None,
    ) -> list[Passage]:
        """Passages for (chunk id, score) pairs, in that order."""
        keyword_rank, vector_rank = keyword_rank or {}, vector_rank or {}
        rows = self.chunks.rows([cid for cid, _ in scored])
        pages = self._pages([(r["book_id"], r["start_ordinal"]) for r in rows.values()])
        firsts: dict[tuple[int, int], tuple[int, str]] = {}
        passages = []
        for cid, score in scored:
            row = rows.get(cid)
            if row is None:  # removed by another process since the hit was found
                continue
            key = (row["book_id"], row["section_idx"])
            if key not in firsts:
                firsts[key] = section_head(self.library.conn, *key)
            first, title = firsts[key]
            passages.append(
                Passage(
                    chunk_id=cid,
                    book_id=row["book_id"],
                    text=row["text"],
                    score=score,
                    start=Locator(row["section_idx"], row["start_ordinal"] - first, row["start_offset"]),
                    end=Locator(row["section_idx"], row["end_ordinal"] - first, row["end_offset"]),
                    section_title=title,
                    start_ordinal=row["start_ordinal"],
                    end_ordinal=row["end_ordinal"],
                    keyword_rank=keyword_rank.get(cid),
                    vector_rank=vector_rank.get(cid),
                    page=pages.get((row["book_id"], row["start_ordinal"])),
                )
            )
        return passages

    def _pages(self, starts: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
        """The printed page of each (book, ordinal) segment that has one (PDFs), in one query."""
        if not starts:
            return {}
        rows = page_anchors(self.library.conn, starts)
        found = {(book, ordinal): page_label(json.loads(anchors)) for book, ordinal, anchors in rows}
        return {key: page for key, page in found.items() if page}
