"""The indexing job: embed a book's chunks in the background, near the reader first, resumable.

Every batch of vectors is committed with the job's progress in one transaction, so a process that
is killed (even with SIGKILL) resumes where it stopped, with no duplicate or half-written rows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from core.errors import BookNotFoundError, IndexCancelled, QuireError
from core.library.db import book_exists
from core.library.locks import exclusive
from core.library.store import Library
from core.rag.chunk_store import ChunkProfile, ChunkStore
from core.rag.chunker import DEFAULT_OVERLAP, DEFAULT_TARGET_TOKENS
from core.rag.embedder import Embedder
from core.rag.index_store import IndexStore
from core.rag.vector_store import VectorStore

DEFAULT_BATCH = 32  # chunks embedded per committed transaction (the model has its own batch size)


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """Where a book's indexing stands."""

    book_id: int
    model: str
    status: str  # pending, running, done, cancelled, error
    done: int
    total: int
    rate: float = 0.0  # chunks per second in this run
    eta_seconds: float | None = None
    error: str = ""

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ProgressCallback = Callable[[IndexStatus], None]


def chunk_profile_for(embedder: Embedder, target_tokens: int = DEFAULT_TARGET_TOKENS) -> ChunkProfile:
    """How books are chunked for an embedder: in its tokens, within its input limit."""
    return ChunkProfile(embedder.tokenizer_name, min(target_tokens, embedder.max_tokens - 2), DEFAULT_OVERLAP)


class Indexer:
    """Runs indexing jobs; one book at a time per call, any number of calls in sequence."""

    def __init__(
        self, library: Library, chunks: ChunkStore, vectors: VectorStore, batch_size: int = DEFAULT_BATCH
    ) -> None:
        self.library = library
        self.chunks = chunks
        self.vectors = vectors
        self.batch_size = batch_size
        self.target_tokens = DEFAULT_TARGET_TOKENS  # chunk size; bench.retrieval compares others
        self.rows = IndexStore(library)

    def status(self, book_id: int) -> IndexStatus | None:
        """The saved state of a book's index, or None when it was never indexed."""
        row = self.rows.row(book_id)
        if row is None:
            return None
        return IndexStatus(book_id, row["model"], row["status"], row["done"], row["total"], error=row["error"])

    def _prepare(self, book_id: int, embedder: Embedder) -> int:
        """Make the chunks and index row fit this embedder; return how many chunks there are."""
        self.chunks.ensure(book_id, chunk_profile_for(embedder, self.target_tokens), embedder.count_tokens)
        self.chunks.ensure_windows(book_id)  # what hybrid search's re-rank reads of each passage
        status = self.status(book_id)
        if status is not None and status.model != embedder.name:
            with self.library.transaction() as conn:  # a different model: its vectors never mix with this one's
                self.vectors.delete_book(conn, book_id)
        total = self.chunks.count(book_id)
        done = self.vectors.count(book_id, embedder.name)
        self.rows.begin(book_id, embedder.name, embedder.dimension, done, total)
        return total

    def run(
        self,
        book_id: int,
        embedder: Embedder,
        *,
        near_ordinal: int = 0,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexStatus:
        """Embed every chunk of the book that has no vector yet; return the final status.

        One run per book at a time, across processes: a second one is refused with LibraryError.
        """
        self.library.get(book_id)
        busy = "this book is being indexed already (by the app or another quire command): wait for that to finish"
        with exclusive(self.library.root / "locks" / f"index-{book_id}.lock", busy):
            return self._run(book_id, embedder, near_ordinal, progress, cancel)

    def _run(
        self,
        book_id: int,
        embedder: Embedder,
        near_ordinal: int,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
    ) -> IndexStatus:
        total = self._prepare(book_id, embedder)
        pending = self.vectors.unembedded(book_id, near_ordinal)
        done = total - len(pending)
        started, embedded = time.monotonic(), 0
        try:
            for start in range(0, len(pending), self.batch_size):
                batch = pending[start : start + self.batch_size]
                vectors = embedder.embed_documents([text for _, text in batch], cancel=cancel)
                with self.library.transaction() as conn:
                    if not book_exists(conn, book_id):
                        raise BookNotFoundError("the book was removed while it was being indexed")
                    self.vectors.add(conn, embedder.name, [cid for cid, _ in batch], vectors)
                    done += len(batch)
                    self.rows.advance(conn, book_id, done)
                embedded += len(batch)
                if progress:
                    rate = embedded / max(time.monotonic() - started, 1e-6)
                    progress(IndexStatus(book_id, embedder.name, "running", done, total, rate, (total - done) / rate))
        except IndexCancelled:
            self.rows.set(book_id, status="cancelled")
            raise
        except QuireError as error:  # a model, an endpoint, local-only mode: the run stops, saying why
            self.rows.set(book_id, status="error", error=str(error))
            raise
        self.rows.set(book_id, status="done", done=done)
        rate = embedded / max(time.monotonic() - started, 1e-6) if embedded else 0.0
        final = IndexStatus(book_id, embedder.name, "done", done, total, rate, 0.0)
        if progress:
            progress(final)
        return final

    def start(self, book_id: int, embedder: Embedder, **options: object) -> IndexTask:
        """Run :meth:`run` in a background thread."""
        task = IndexTask(self, book_id, embedder, options)
        task.start()
        return task


class IndexTask(threading.Thread):
    """A background indexing run: ``cancel()`` stops it after the current batch; ``result()`` waits."""

    def __init__(self, indexer: Indexer, book_id: int, embedder: Embedder, options: dict[str, Any]) -> None:
        super().__init__(name=f"quire-index-{book_id}", daemon=True)
        self.indexer = indexer
        self.book_id = book_id
        self.embedder = embedder
        self.options = options
        self.cancel_event = threading.Event()
        self.outcome: IndexStatus | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.outcome = self.indexer.run(self.book_id, self.embedder, cancel=self.cancel_event, **self.options)
        except BaseException as error:  # handed to the waiting thread by result()
            self.error = error

    def cancel(self) -> None:
        self.cancel_event.set()

    def result(self, timeout: float | None = None) -> IndexStatus:
        self.join(timeout)
        if self.error is not None:
            raise self.error
        if self.outcome is None:
            raise TimeoutError("indexing is still running")
        return self.outcome
