"""Retrieval: chunking, embeddings, vector and keyword search fused with RRF, and background indexing."""

from core.rag.chunk_store import ChunkProfile, ChunkStore, Filters
from core.rag.chunker import Chunk, chunk_segments
from core.rag.embedder import Embedder
from core.rag.indexer import Indexer, IndexStatus, IndexTask
from core.rag.models import CATALOG, DEFAULT_MODEL, ModelStore, choose_model
from core.rag.search import MODES, Passage, Retriever
from core.rag.vector_store import VectorStore

__all__ = [
    "CATALOG",
    "DEFAULT_MODEL",
    "MODES",
    "Chunk",
    "ChunkProfile",
    "ChunkStore",
    "Embedder",
    "Filters",
    "IndexStatus",
    "IndexTask",
    "Indexer",
    "ModelStore",
    "Passage",
    "Retriever",
    "VectorStore",
    "choose_model",
    "chunk_segments",
]
