"""The Embedder interface: texts in, L2-normalised float32 vectors out, in batches, with progress."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np

from core.errors import IndexCancelled

Progress = Callable[[int, int], None]  # (done, total)


class Embedder(ABC):
    """One embedding model. Subclasses implement ``_embed_batch`` and ``count_tokens``."""

    name: str
    dimension: int
    max_tokens: int
    query_prefix: str = ""
    passage_prefix: str = ""
    tokenizer_name: str = "approximate"
    batch_size: int = 32  # texts per model call

    @abstractmethod
    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        """Vectors (n x dimension, float32, unit length) for one batch."""

    @abstractmethod
    def count_tokens(self, texts: list[str]) -> list[int]:
        """How many model tokens each text takes (special tokens excluded)."""

    def embed_documents(
        self,
        texts: list[str],
        *,
        batch_size: int | None = None,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> np.ndarray:
        """Embed passages; batches group texts of similar length to waste little on padding."""
        batch_size = batch_size or self.batch_size
        result: np.ndarray | None = None
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        done = 0
        for start in range(0, len(order), batch_size):
            if cancel is not None and cancel.is_set():
                raise IndexCancelled("indexing was cancelled; run it again to resume")
            indices = order[start : start + batch_size]
            vectors = self._embed_batch([self.passage_prefix + texts[i] for i in indices])
            if result is None:  # remote models may learn their dimension from the first answer
                result = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            result[indices] = vectors
            done += len(indices)
            if progress:
                progress(done, len(texts))
        return result if result is not None else np.zeros((0, self.dimension), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query."""
        vector: np.ndarray = self._embed_batch([self.query_prefix + text])[0]
        return vector


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    scaled: np.ndarray = matrix / np.maximum(norms, 1e-12)
    return scaled
