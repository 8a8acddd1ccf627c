"""The one named door past the facade, for benchmarks that time a component and tests that check what was written.

Clients (the app, the CLI) never use it: they have ``core``'s public face. A bench that times the parser, the
full-text folding, the sentence ranker or the vector store imports them from here, and reaches the facade's
collaborators through :func:`inside`, typed, instead of ``getattr`` on private names (issue 27). The architecture
test holds the benchmarks to ``core`` and this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.agent.offline import (
    CANDIDATES,
    MIN_ANSWER_ODDS,
    MIN_MIGHT_ODDS,
    ODDS_FEATURES,
    OfflineAnswer,
    answer_offline,
    odds_features,
)
from core.agent.runner import ReadingAgent
from core.agent.tools import ReadingSession
from core.books import Book, parse_book
from core.books.pdf_content import pypdfs_own_reader
from core.books.textutil import CJK_RUN
from core.companion.recap import LATEST, MAX_CHARS, MIN_CHARS
from core.library import Annotations, Library
from core.library.db import has_vector_extension, now
from core.library.fts import fold, index_text
from core.parts.speech import spoken_spans
from core.rag import ChunkProfile, ChunkStore, Indexer, ModelStore, Retriever, VectorStore
from core.rag.chunk_store import Filters
from core.rag.chunker import DEFAULT_TARGET_TOKENS, TokenCounter
from core.rag.sentences import WEIGHTS, Weights, quote_span, rank_sentences, sentence_spans
from core.rag.vector_store import vec_table
from core.services import Quire
from core.speech.neural import neural_voice

__all__ = [
    "CANDIDATES",
    "CJK_RUN",
    "DEFAULT_TARGET_TOKENS",
    "LATEST",
    "MAX_CHARS",
    "MIN_ANSWER_ODDS",
    "MIN_CHARS",
    "MIN_MIGHT_ODDS",
    "ODDS_FEATURES",
    "WEIGHTS",
    "Book",
    "Filters",
    "Inside",
    "Library",
    "ModelStore",
    "OfflineAnswer",
    "ReadingAgent",
    "ReadingSession",
    "VectorStore",
    "Weights",
    "answer_offline",
    "fold",
    "has_vector_extension",
    "index_text",
    "inside",
    "neural_voice",
    "now",
    "odds_features",
    "parse_book",
    "pypdfs_own_reader",
    "quote_span",
    "rank_sentences",
    "sentence_spans",
    "spoken_spans",
    "vec_table",
]


@dataclass(frozen=True, slots=True)
class Inside:
    """A facade's collaborators, as the facade built them (the same objects, sharing its connection)."""

    library: Library
    annotations: Annotations
    chunks: ChunkStore
    vectors: VectorStore
    indexer: Indexer
    retriever: Retriever
    models: ModelStore
    default_chunking: Callable[[], tuple[ChunkProfile, TokenCounter]]  # chunk sizes in the default model's tokens


def inside(quire: Quire) -> Inside:
    """The collaborators behind one facade."""
    return Inside(
        quire._library,
        quire._annotations,
        quire._chunks,
        quire._vectors,
        quire._indexer,
        quire._retriever,
        quire._models,
        quire._default_chunking,
    )
