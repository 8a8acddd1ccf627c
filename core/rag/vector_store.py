"""Vector storage and k-nearest-neighbour search: sqlite-vec's vec0 where it loads, numpy elsewhere and for one book.

The ``chunk_vectors`` table (float32 BLOBs) is the truth and is written on every platform, so a
library moves freely between a desktop and a phone; a vec0 table per model mirrors it where
sqlite-vec is loaded and is rebuilt from it when the two disagree. Scores are cosine similarities
(higher is better) from both back-ends.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from core.errors import LibraryError
from core.library.db import has_vector_extension
from core.library.store import Library
from core.rag.chunk_store import ChunkStore, Filters

BACKENDS = ("auto", "numpy", "sqlite-vec")


NUMPY_BOOK_VECTORS = 20_000  # a book with more (30 MB at 384 dimensions) is searched in vec0 where it loads
CACHE_BYTES = 64 * 1024 * 1024  # the numpy backend's matrices kept between searches (about 20 books' worth)


@dataclass
class _Matrix:
    version: tuple[int, int]  # (our own writes, the stored count of every change to the vectors)
    ids: np.ndarray
    sections: np.ndarray
    end_ordinals: np.ndarray
    book_ids: np.ndarray
    vectors: np.ndarray

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.ids, self.sections, self.end_ordinals, self.book_ids, self.vectors))


def vec_table(model: str) -> str:
    """The vec0 table that holds one model's vectors."""
    return "vec_" + re.sub(r"[^0-9a-z]+", "_", model.lower()).strip("_")


class VectorStore:
    """Writes chunk vectors and finds the nearest ones, with the same filters as keyword search."""

    def __init__(
        self, library: Library, chunks: ChunkStore, backend: str = "auto", cache_bytes: int = CACHE_BYTES
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"vector backend must be one of {BACKENDS}")
        self.library = library
        available = has_vector_extension(library.conn)
        if backend == "sqlite-vec" and not available:
            raise LibraryError(
                "sqlite-vec cannot be loaded here (install sqlean-py and sqlite-vec); use the numpy backend"
            )
        self.backend = "sqlite-vec" if backend != "numpy" and available else "numpy"
        self._version = 0
        # The numpy backend's matrices, least recently used first, at most ``cache_bytes`` in all (the newest is
        # kept even when larger): searching fifty books once held 307 MB, and phones use this backend.
        self._cache: OrderedDict[tuple[str, int | None], _Matrix] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._cache_lock = threading.Lock()
        library.remove_hooks.append(self.delete_book)
        chunks.rechunk_hooks.append(self.delete_book)
        if self.backend == "sqlite-vec":
            self._sync_mirrors()

    # -- writing (inside the caller's transaction) --------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection to the library (``Library.conn``)."""
        return self.library.conn

    def _ensure_mirror(self, conn: sqlite3.Connection, model: str, dimension: int) -> str:
        table = vec_table(model)
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING vec0(chunk_id integer primary key, "
            f"embedding float[{dimension}] distance_metric=cosine, book_id integer, section_idx integer, end_ordinal integer)"
        )
        return table

    def add(self, conn: sqlite3.Connection, model: str, chunk_ids: list[int], vectors: np.ndarray) -> None:
        """Store vectors for chunks (ids must not have a vector yet)."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        marks = ",".join("?" * len(chunk_ids))
        meta = {
            r[0]: r
            for r in conn.execute(
                f"SELECT id, book_id, section_idx, end_ordinal FROM chunks WHERE id IN ({marks})", chunk_ids
            )
        }
        conn.executemany(
            "INSERT INTO chunk_vectors (chunk_id, book_id, model, embedding) VALUES (?,?,?,?)",
            [(cid, meta[cid][1], model, vectors[i].tobytes()) for i, cid in enumerate(chunk_ids)],
        )
        if self.backend == "sqlite-vec":
            table = self._ensure_mirror(conn, model, vectors.shape[1])
            conn.executemany(
                f"INSERT INTO {table} (chunk_id, embedding, book_id, section_idx, end_ordinal) VALUES (?,?,?,?,?)",
                [
                    (cid, vectors[i].tobytes(), meta[cid][1], meta[cid][2], meta[cid][3])
                    for i, cid in enumerate(chunk_ids)
                ],
            )
        self._version += 1

    def delete_book(self, conn: sqlite3.Connection, book_id: int) -> None:
        """Forget every vector of a book (all models)."""
        if self.backend == "sqlite-vec":
            for (model,) in conn.execute(
                "SELECT DISTINCT model FROM chunk_vectors WHERE book_id = ?", (book_id,)
            ).fetchall():
                conn.execute(
                    f"DELETE FROM {vec_table(model)} WHERE chunk_id IN (SELECT chunk_id FROM chunk_vectors WHERE book_id = ?)",
                    (book_id,),
                )
        conn.execute("DELETE FROM chunk_vectors WHERE book_id = ?", (book_id,))
        self._version += 1

    def _sync_mirrors(self) -> None:
        """Rebuild a model's vec0 table when it disagrees with the truth (e.g. written on a phone)."""
        conn = self.conn
        for model, count in conn.execute("SELECT model, COUNT(*) FROM chunk_vectors GROUP BY model").fetchall():
            table = vec_table(model)
            exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone()
            if exists and conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == count:
                continue
            with self.library.transaction():
                if exists:
                    conn.execute(f"DROP TABLE {table}")
                first = conn.execute("SELECT embedding FROM chunk_vectors WHERE model = ? LIMIT 1", (model,)).fetchone()
                self._ensure_mirror(conn, model, len(first[0]) // 4)
                conn.execute(
                    f"INSERT INTO {table} (chunk_id, embedding, book_id, section_idx, end_ordinal) "
                    "SELECT v.chunk_id, v.embedding, v.book_id, c.section_idx, c.end_ordinal "
                    "FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.model = ?",
                    (model,),
                )

    # -- reading ------------------------------------------------------------------------------
    def unembedded(self, book_id: int, near_ordinal: int) -> list[tuple[int, str]]:
        """(chunk id, text) of the book's chunks without a vector, nearest to ``near_ordinal`` first (earlier before
        later)."""
        rows = self.conn.execute(
            "SELECT c.id, c.text FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id "
            "WHERE c.book_id = ? AND v.chunk_id IS NULL "
            "ORDER BY ABS(c.start_ordinal - ?), c.start_ordinal",
            (book_id, near_ordinal),
        )
        return [(r[0], r[1]) for r in rows]

    def count(self, book_id: int, model: str) -> int:
        return int(
            self.conn.execute(
                "SELECT COUNT(*) FROM chunk_vectors WHERE book_id = ? AND model = ?", (book_id, model)
            ).fetchone()[0]
        )

    def search(self, model: str, query: np.ndarray, k: int, filters: Filters) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) of the ``k`` nearest chunks that pass the filters, best first."""
        if k <= 0:
            return []
        query = np.asarray(query, dtype=np.float32)
        if self.backend == "sqlite-vec" and not self._one_book_in_numpy(model, filters.book_id):
            return self._search_vec(model, query, k, filters)
        return self._search_numpy(model, query, k, filters)

    def _one_book_in_numpy(self, model: str, book_id: int | None) -> bool:
        """Whether a search of one book runs on its numpy matrix even where vec0 is loaded.

        vec0 scans every book's vectors, then filters: one book of 2,000 (92,282 vectors) took 25-29 ms there,
        against 0.03 ms on the book's matrix once read. A vec0 partition key on book_id made one book faster but
        a search of the whole library about 10x slower (``bench.scale`` has each as a reference row), so vec0
        keeps the whole library and a book too large to hold in memory (over ``NUMPY_BOOK_VECTORS``)."""
        if book_id is None:
            return False
        with self._cache_lock:
            if (model, book_id) in self._cache:
                return True
        return self.count(book_id, model) <= NUMPY_BOOK_VECTORS

    def _search_vec(self, model: str, query: np.ndarray, k: int, filters: Filters) -> list[tuple[int, float]]:
        table = vec_table(model)
        if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            return []
        clauses, params = filters.where("book_id", "end_ordinal", "section_idx")
        sql = [f"SELECT chunk_id, distance, book_id, end_ordinal FROM {table} WHERE embedding MATCH ? AND k = ?"]
        sql += [f"AND {clause}" for clause in clauses]
        sql.append("ORDER BY distance")
        # vec0 filters only on constants, so each book's own bound (a library search) is tested on more neighbours,
        # ten times as many, then more; past vec0's 4,096 the numpy path masks every row.
        wanted = k if filters.fence is None else k * 10
        while True:
            rows = self.conn.execute(" ".join(sql), [query.tobytes(), min(wanted, 4096), *params]).fetchall()
            found = [(r[0], 1.0 - r[1]) for r in rows if not filters.fenced(r[2], r[3])][:k]
            if len(found) >= k or len(rows) < min(wanted, 4096):
                return found
            if wanted >= 4096:
                return self._search_numpy(model, query, k, filters)
            wanted *= 8

    def _matrix(self, model: str, book_id: int | None) -> _Matrix:
        key = (model, book_id)
        with self._cache_lock:
            # Our own writes bump _version; the stored count of vector changes (kept by triggers) moves with any
            # thread's or process's (a book removed or indexed there), so a long-lived app never searches vectors
            # that are gone, and a page turn's saved place elsewhere does not throw the matrices away.
            version = (self._version, self.conn.execute("SELECT n FROM vector_changes").fetchone()[0])
            cached = self._cache.get(key)
            if cached is not None and cached.version == version:
                self._cache.move_to_end(key)
                return cached
            sql = (
                "SELECT v.chunk_id, c.section_idx, c.end_ordinal, v.book_id, v.embedding FROM chunk_vectors v "
                "JOIN chunks c ON c.id = v.chunk_id WHERE v.model = ?"
                + (" AND v.book_id = ?" if book_id is not None else "")
            )
            rows = self.conn.execute(sql, (model, book_id) if book_id is not None else (model,)).fetchall()
            if rows:
                vectors = np.frombuffer(b"".join(r[4] for r in rows), dtype=np.float32).reshape(len(rows), -1)
            else:
                vectors = np.zeros((0, 1), dtype=np.float32)
            matrix = _Matrix(
                version,
                np.array([r[0] for r in rows], dtype=np.int64),
                np.array([r[1] for r in rows], dtype=np.int64),
                np.array([r[2] for r in rows], dtype=np.int64),
                np.array([r[3] for r in rows], dtype=np.int64),
                vectors,
            )
            self._cache[key] = matrix
            self._cache.move_to_end(key)
            while len(self._cache) > 1 and sum(m.nbytes for m in self._cache.values()) > self._cache_bytes:
                self._cache.popitem(last=False)
            return matrix

    @property
    def cached_bytes(self) -> int:
        """What the numpy backend's matrices hold now."""
        with self._cache_lock:
            return sum(m.nbytes for m in self._cache.values())

    def _search_numpy(self, model: str, query: np.ndarray, k: int, filters: Filters) -> list[tuple[int, float]]:
        m = self._matrix(model, filters.book_id)
        if not len(m.ids):
            return []
        ids, vectors = m.ids, m.vectors
        if filters.max_ordinal is not None or filters.sections is not None or filters.fence is not None:
            mask = np.ones(len(m.ids), dtype=bool)  # the spoiler bound, a chapter, each book's own bound
            if filters.max_ordinal is not None:
                mask &= m.end_ordinals <= filters.max_ordinal
            if filters.fence is not None:
                mask &= m.end_ordinals <= _bounds(filters.fence, m.book_ids)
            if filters.sections is not None:
                mask &= (m.sections >= filters.sections[0]) & (m.sections <= filters.sections[1])
            if not mask.all():
                ids, vectors = ids[mask], vectors[mask]
                if not len(ids):
                    return []
        scores = vectors @ query
        if k < len(scores):
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top], kind="stable")]
        else:
            top = np.argsort(-scores, kind="stable")
        # Whole arrays to Python at once: item by item, the 20 results took longer than the search itself.
        return list(zip(ids[top].tolist(), scores[top].tolist(), strict=True))


def _bounds(fence: Mapping[int, int], book_ids: np.ndarray) -> np.ndarray:
    """Each row's book's bound (-1 for a book not in ``fence``: nothing of it read), as an array beside the rows."""
    if not len(book_ids):
        return np.zeros(0, dtype=np.int64)
    table = np.full(int(book_ids.max()) + 1, -1, dtype=np.int64)
    for book_id, bound in fence.items():
        if 0 <= book_id < len(table):
            table[book_id] = bound
    bounds: np.ndarray = table[book_ids]
    return bounds
