"""Chunks of each book: made at import (so keyword search works at once), re-made for a new tokenizer."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from core.library.db import book_rows, now
from core.library.fts import index_text, match_any_expression
from core.library.store import Library
from core.rag.chunk_terms import BookTerms, Phrase, TermCounter, rank
from core.rag.chunker import DEFAULT_OVERLAP, DEFAULT_TARGET_TOKENS, Chunk, SegmentText, TokenCounter, chunk_segments
from core.rag.proximity import sentence_terms


@dataclass(frozen=True, slots=True)
class ChunkProfile:
    """How a book was chunked: whose tokens, what size, how much overlap."""

    tokenizer: str
    target_tokens: int = DEFAULT_TARGET_TOKENS
    overlap: float = DEFAULT_OVERLAP


@dataclass(frozen=True, slots=True)
class Filters:
    """Where a search may look: one book (None: all), a section range, and the spoiler bound.

    ``fence``, for a search of the whole library: each book's own bound (its furthest place read); a book not in it
    has nothing read, so nothing of it may be found."""

    book_id: int | None = None
    max_ordinal: int | None = None  # only chunks that end at or before this segment ordinal
    sections: tuple[int, int] | None = None  # inclusive section index range
    fence: Mapping[int, int] | None = None  # book id -> the last segment ordinal a chunk of it may end at

    def fenced(self, book_id: int, end_ordinal: int) -> bool:
        """Whether a chunk of ``book_id`` ending at ``end_ordinal`` lies past its book's fence."""
        return self.fence is not None and end_ordinal > self.fence.get(book_id, -1)

    def where(self, book: str, end_ordinal: str, section: str) -> tuple[list[str], list[int]]:
        """SQL conditions (for the caller to AND together) and their parameters, on the given columns."""
        clauses: list[str] = []
        params: list[int] = []
        if self.book_id is not None:
            clauses.append(f"{book} = ?")
            params.append(self.book_id)
        if self.max_ordinal is not None:
            clauses.append(f"{end_ordinal} <= ?")
            params.append(self.max_ordinal)
        if self.sections is not None:
            clauses += [f"{section} >= ?", f"{section} <= ?"]
            params += list(self.sections)
        return clauses, params


class ChunkStore:
    """Reads and writes the ``chunks`` table and its keyword index, inside the library's transactions."""

    def __init__(self, library: Library, default: Callable[[], tuple[ChunkProfile, TokenCounter]]) -> None:
        self.library = library
        self.default = default
        self.rechunk_hooks: list[Callable[[sqlite3.Connection, int], None]] = []  # e.g. drop the old vectors
        self.terms = TermCounter()
        library.remove_hooks.append(self.on_remove)

    # -- writing ------------------------------------------------------------------------------
    def ensure_default(self, book_id: int) -> bool:
        """Chunk a book the default way if it has no chunks yet (just imported, or an import cut short)."""
        if self.profile(book_id) is not None:
            return False
        profile, count = self.default()
        return self.ensure(book_id, profile, count)

    def on_remove(self, conn: sqlite3.Connection, book_id: int) -> None:
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE book_id = ?)", (book_id,))
        conn.execute(
            "DELETE FROM chunk_windows WHERE chunk_id IN (SELECT id FROM chunks WHERE book_id = ?)", (book_id,)
        )
        conn.execute("DELETE FROM chunk_terms WHERE book_id = ?", (book_id,))

    def ensure_windows(self, book_id: int, *, indexed_only: bool = False) -> int:
        """Store the sentences of the book's passages that lack them, as the window re-rank reads them (done
        when a book is indexed: Moby-Dick's 2,081 passages take about 0.2 s and 0.84 MB); how many it stored.
        ``indexed_only``: only where the book has vectors (a book indexed before these were kept, opened)."""
        read = self.library.conn.execute
        if (
            indexed_only
            and read("SELECT 1 FROM chunk_vectors WHERE book_id = ? LIMIT 1", (book_id,)).fetchone() is None
        ):
            return 0
        rows = read(
            "SELECT c.id, c.text FROM chunks c LEFT JOIN chunk_windows w ON w.chunk_id = c.id "
            "WHERE c.book_id = ? AND w.chunk_id IS NULL",
            (book_id,),
        ).fetchall()
        if not rows:
            return 0
        found = [(chunk_id, sentence_terms(text)) for chunk_id, text in rows]
        with self.library.transaction() as conn:  # OR IGNORE: another process may have stored some meanwhile
            live = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE book_id = ?", (book_id,))}
            conn.executemany(
                "INSERT OR IGNORE INTO chunk_windows VALUES (?, ?)", [row for row in found if row[0] in live]
            )
        return len(found)

    def windows(self, chunk_ids: list[int]) -> tuple[dict[int, str], dict[int, str]]:
        """For hybrid search's re-rank: (stored sentence terms by chunk, the text of those that have none)."""
        if not chunk_ids:
            return {}, {}
        marks = ",".join("?" * len(chunk_ids))
        stored, texts = {}, {}
        for chunk_id, terms, text in self.library.conn.execute(
            f"SELECT c.id, w.terms, CASE WHEN w.terms IS NULL THEN c.text END FROM chunks c "
            f"LEFT JOIN chunk_windows w ON w.chunk_id = c.id WHERE c.id IN ({marks})",
            chunk_ids,
        ):
            if terms is not None:
                stored[chunk_id] = terms
            else:
                texts[chunk_id] = text
        return stored, texts

    def on_new_text(self, conn: sqlite3.Connection, book_id: int) -> None:
        """Forget a book's passages, their vectors and its index state: its text was replaced (a long PDF read
        in part, now whole); they are cut again from the new text when next read."""
        for hook in self.rechunk_hooks:
            hook(conn, book_id)
        self.on_remove(conn, book_id)
        for table in ("chunks", "chunk_sets", "book_index"):
            conn.execute(f"DELETE FROM {table} WHERE book_id = ?", (book_id,))

    def ensure_terms(self, book_id: int) -> bool:
        """Count the book's keyword statistics from its stored chunks when it has chunks and none yet (chunked
        before they were kept; its searches are ranked by FTS5 until then); True when it did. Done behind an
        opened book and by the indexer, never by a search, which would wait for it."""
        row = self.library.conn.execute(
            "SELECT created_at, chunk_count FROM chunk_sets WHERE book_id = ? AND term_lengths IS NULL", (book_id,)
        ).fetchone()
        if row is None:
            return False
        texts = self.library.conn.execute("SELECT text FROM chunks WHERE book_id = ? ORDER BY idx", (book_id,))
        terms = self.terms.count((index_text(text) for (text,) in texts), row[1])
        with self.library.transaction() as conn:
            if conn.execute(  # the same chunks still, and nobody counted them meanwhile
                "SELECT 1 FROM chunk_sets WHERE book_id = ? AND created_at = ? AND term_lengths IS NULL",
                (book_id, row[0]),
            ).fetchone():
                self._store_terms(conn, book_id, terms)
        return True

    @staticmethod
    def _store_terms(conn: sqlite3.Connection, book_id: int, terms: BookTerms) -> None:
        conn.execute("DELETE FROM chunk_terms WHERE book_id = ?", (book_id,))
        conn.executemany("INSERT INTO chunk_terms (book_id, term, postings) VALUES (?,?,?)", terms.rows(book_id))
        conn.execute("UPDATE chunk_sets SET term_lengths = ? WHERE book_id = ?", (terms.lengths, book_id))

    def profile(self, book_id: int) -> ChunkProfile | None:
        row = self.library.conn.execute("SELECT * FROM chunk_sets WHERE book_id = ?", (book_id,)).fetchone()
        return ChunkProfile(row["tokenizer"], row["target_tokens"], row["overlap"]) if row else None

    def ensure(self, book_id: int, profile: ChunkProfile, count: TokenCounter) -> bool:
        """Re-chunk the book if it was chunked another way; True when it was (its vectors are gone then).

        The chunks are made (tokenized) before the write transaction, which only stores them: the
        library stays writable for others (a reading position, another process) while a long book is cut.
        """
        if self.profile(book_id) == profile:
            self.ensure_terms(book_id)
            return False
        segments = [
            SegmentText(r["ordinal"], r["section_idx"], r["text"])
            for r in self.library.conn.execute(
                "SELECT ordinal, section_idx, text FROM segments WHERE book_id = ? ORDER BY ordinal", (book_id,)
            )
        ]
        chunks = chunk_segments(segments, count, profile.target_tokens, profile.overlap)
        del segments
        indexed = [index_text(chunk.text) for chunk in chunks]  # once: the keyword index and the counting both read it
        terms = self.terms.count(indexed, len(chunks))
        with self.library.transaction() as conn:
            if self.profile(book_id) == profile:
                return False  # another process made the same chunks meanwhile
            for hook in self.rechunk_hooks:
                hook(conn, book_id)
            self.on_remove(conn, book_id)
            conn.execute("DELETE FROM chunks WHERE book_id = ?", (book_id,))
            self._store(conn, book_id, profile, chunks, indexed, terms)
        return True

    def _store(
        self,
        conn: sqlite3.Connection,
        book_id: int,
        profile: ChunkProfile,
        chunks: list[Chunk],
        indexed: list[str],
        terms: BookTerms,
    ) -> None:
        """Store the chunks, their keyword index (``indexed``: each one's ``index_text``, in order) and statistics."""
        conn.executemany(
            "INSERT INTO chunks (book_id, idx, section_idx, start_ordinal, start_offset, end_ordinal, end_offset, tokens, text)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            (
                (
                    book_id,
                    c.index,
                    c.section,
                    c.start_ordinal,
                    c.start_offset,
                    c.end_ordinal,
                    c.end_offset,
                    c.tokens,
                    c.text,
                )
                for c in chunks
            ),
        )
        stored = conn.execute("SELECT id FROM chunks WHERE book_id = ? ORDER BY idx", (book_id,))
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, body) VALUES (?,?)",
            zip((row[0] for row in stored), indexed, strict=True),
        )
        conn.execute(
            "INSERT OR REPLACE INTO chunk_sets (book_id, tokenizer, target_tokens, overlap, chunk_count, created_at)"
            " VALUES (?,?,?,?,?,?)",
            (book_id, profile.tokenizer, profile.target_tokens, profile.overlap, len(chunks), now()),
        )
        self._store_terms(conn, book_id, terms)

    # -- reading ------------------------------------------------------------------------------
    def count(self, book_id: int) -> int:
        return int(self.library.conn.execute("SELECT COUNT(*) FROM chunks WHERE book_id = ?", (book_id,)).fetchone()[0])

    def chunks(self, book_id: int) -> list[Chunk]:
        rows = self.library.conn.execute("SELECT * FROM chunks WHERE book_id = ? ORDER BY idx", (book_id,))
        return [_chunk(r) for r in rows]

    def ids_in_section(self, book_id: int, section: int, max_ordinal: int | None = None) -> list[int]:
        """The chunks of one section in reading order, those that end by ``max_ordinal`` when it is given."""
        rows = self.library.conn.execute(
            "SELECT id FROM chunks WHERE book_id = ? AND section_idx = ? AND end_ordinal <= ? ORDER BY idx",
            (book_id, section, max_ordinal if max_ordinal is not None else 1 << 62),
        )
        return [r[0] for r in rows]

    def rows(self, chunk_ids: list[int]) -> dict[int, sqlite3.Row]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        return {r["id"]: r for r in self.library.conn.execute(f"SELECT * FROM chunks WHERE id IN ({marks})", chunk_ids)}

    def layout(self, chunk_id: int) -> list[tuple[int, int, int, int]]:
        """Where a chunk's text comes from: (position in the chunk text, ordinal, offset in segment, length).

        Mirrors how the chunker joins text: each covered segment's slice, stripped, joined by newlines.
        """
        row = self.library.conn.execute("SELECT * FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
        segments = self.library.conn.execute(
            "SELECT ordinal, text FROM segments WHERE book_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
            (row["book_id"], row["start_ordinal"], row["end_ordinal"]),
        ).fetchall()
        layout, position = [], 0
        for ordinal, text in segments:
            start = row["start_offset"] if ordinal == row["start_ordinal"] else 0
            end = row["end_offset"] if ordinal == row["end_ordinal"] else len(text)
            piece = text[start:end]
            if not piece.strip():
                continue
            lead = len(piece) - len(piece.lstrip())
            length = len(piece.strip())
            layout.append((position, ordinal, start + lead, length))
            position += length + 1  # the newline that joins pieces
        return layout

    def keyword(self, query: str, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """(chunk id, BM25 relevance, higher is better) for chunks matching any term, best first.

        In one book, BM25 over that book alone (``chunk_terms``), so a book ranks the same whatever else the
        library holds and the time does not grow with it; across the library (or in a book chunked before its
        statistics were kept), FTS5's own. The spoiler and section filters apply to an over-fetched top list,
        and when they leave too few the whole ranking is filtered, so no filter is ever loosened to save time.
        """
        if filters.book_id is not None:
            ranked = self._ranked(filters.book_id, self.terms.phrases(query))
            if ranked is not None:
                return self._chunks_of(filters, ranked, limit)
        return self._fts_keyword(query, filters, limit)

    def _ranked(self, book_id: int, phrases: list[Phrase]) -> list[tuple[int, float]] | None:
        """BM25 over the book's own statistics (``chunk_terms.rank``), None when it has none yet."""
        read = self.library.conn.execute
        row = read("SELECT term_lengths FROM chunk_sets WHERE book_id = ?", (book_id,)).fetchone()

        def postings(exact: list[str], prefixes: list[str]) -> Iterator[tuple[str, bytes]]:
            if exact:
                marks = ",".join("?" * len(exact))
                sql = f"SELECT term, postings FROM chunk_terms WHERE book_id = ? AND term IN ({marks})"
                yield from read(sql, (book_id, *exact))
            for start in prefixes:
                sql = "SELECT postings FROM chunk_terms WHERE book_id = ? AND term >= ? AND term < ?"
                for (blob,) in read(sql, (book_id, start, start + "\U0010ffff")):
                    yield "*" + start, blob

        return rank(row[0] if row is not None else None, phrases, postings)

    def _chunks_of(self, filters: Filters, ranked: list[tuple[int, float]], limit: int) -> list[tuple[int, float]]:
        """The ranked passage numbers of one book as chunk ids, those the filters allow, the first ``limit``."""
        clauses, params = Filters(None, filters.max_ordinal, filters.sections).where("", "end_ordinal", "section_idx")
        where = "".join(f" AND {clause}" for clause in clauses)
        fetch = limit if not clauses else limit * 10
        while True:
            wanted = ranked[:fetch] if fetch < len(ranked) else ranked
            if wanted is ranked and len(ranked) > 500:  # every passage: read the book's allowed ones once
                sql, values = f"SELECT idx, id FROM chunks WHERE book_id = ?{where}", [filters.book_id, *params]
            else:
                marks = ",".join("?" * len(wanted))
                sql = f"SELECT idx, id FROM chunks WHERE book_id = ? AND idx IN ({marks}){where}"
                values = [filters.book_id, *(passage for passage, _ in wanted), *params]
            ids = dict(self.library.conn.execute(sql, values).fetchall())
            found = [(ids[passage], score) for passage, score in wanted if passage in ids][:limit]
            if len(found) >= limit or wanted is ranked:
                return found
            fetch = len(ranked)

    def _fts_keyword(self, query: str, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """FTS5's ranking (``ORDER BY rank`` inside the index, about 3x faster than sorting on ``bm25()`` after a
        join), its statistics the whole library's."""
        expression = match_any_expression(query)
        if expression is None:
            return []
        inner = "SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ?"
        inner_params: list[Any] = [expression]
        if filters.book_id is not None:
            # FTS5 seeks to the book's rowid range instead of reading every match in the library; the chunk's
            # own book_id is tested too, so a gap in the run could never let another book in.
            run = book_rows(self.library.conn, "chunks", filters.book_id)
            if run is None:
                return []
            inner += " AND rowid BETWEEN ? AND ?"
            inner_params += [*run]
        clauses, params = Filters(None, filters.max_ordinal, filters.sections).where(
            "", "c.end_ordinal", "c.section_idx"
        )
        outer = " ".join(f"AND {clause}" for clause in clauses)
        if filters.book_id is not None:
            outer += " AND c.book_id = ?"
            params = [*params, filters.book_id]
        # Each book's own fence (a search of the library) is tested here on the over-fetched rows, as the other
        # filters are in SQL: the bound differs by book, and a join on the reader's places slowed every match.
        fenced = filters.fence is not None
        fetch = limit if not (clauses or fenced) else limit * 10
        while True:
            sql = (
                f"SELECT c.id, k.rank, c.book_id, c.end_ordinal FROM ({inner} ORDER BY rank LIMIT ?) k "
                f"JOIN chunks c ON c.id = k.rowid WHERE 1 {outer} ORDER BY k.rank" + ("" if fenced else " LIMIT ?")
            )
            values = [*inner_params, fetch, *params] + ([] if fenced else [limit])
            rows = self.library.conn.execute(sql, values).fetchall()
            if fenced:
                rows = [r for r in rows if not filters.fenced(r[2], r[3])][:limit]
            if len(rows) >= limit or not (clauses or fenced) or fetch == -1:
                return [(r[0], -r[1]) for r in rows]
            fetch = -1  # SQLite: no limit


def _chunk(row: sqlite3.Row) -> Chunk:
    return Chunk(
        row["idx"], row["section_idx"], row["start_ordinal"], row["start_offset"], row["end_ordinal"],
        row["end_offset"], row["tokens"], row["text"],
    )  # fmt: skip
