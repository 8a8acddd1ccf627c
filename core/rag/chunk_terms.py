"""Each book's own keyword statistics, so a search in one book is ranked by BM25 over that book alone.

FTS5's ``bm25()`` counts each term's passages over the whole library (its doclists hold every book), so a search in
one book of 520 took 6x the same search with the book alone, and more as the library grew. Here each book keeps,
for each term, which of its passages hold it and how often (``chunk_terms``), and each passage's length in terms
(``chunk_sets.term_lengths``). A search reads its terms' rows and computes BM25 as FTS5 does (k1 1.2, b 0.75, its
floor for a term in most passages), so a book ranks the same in any library as it does alone, at a cost that does
not grow with the library.

The terms are FTS5's own: passages and queries go through the index's tokenizer (Porter stems, Unicode folding)
in a private in-memory table and are read back through ``fts5vocab``; a hand-written stemmer would drift from it.
The one exception is the Chinese, Japanese and Korean pairs an index text is made of (``index_text``): each is one
FTS5 token as it stands, made of characters the tokenizer was seen to give back unchanged, so those are counted
with numpy instead (FTS5's insert and vocabulary read were 1.0 s of 红楼梦's 3.9 s import).
"""

from __future__ import annotations

import itertools
import math
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.books.textutil import CJK_CHAR, CJK_RANGES
from core.library.db import scratch
from core.library.fts import CHUNK_TOKENIZER, any_terms

K1 = 1.2  # FTS5's bm25() constants (fts5_aux.c)
B = 0.75
IDF_FLOOR = 1e-6  # FTS5's idf for a term in more than half the passages
_BATCH = 5000  # passages tokenized at a time: the in-memory index never holds a very long book whole
_TERMS = 4096  # terms' runs found at a time (a batch of 红楼梦 holds 100,000 terms)
_NARROW = 0xFFFF  # up to this many passages, a passage number takes two bytes (four beyond)
_MOST_TIMES = 255  # a term's count in one passage is stored in a byte (a 200-token passage never nears it)


@dataclass(frozen=True, slots=True)
class BookTerms:
    """A book's postings (term -> its passages and counts, as stored) and each passage's length in terms."""

    postings: dict[str, bytes]
    lengths: bytes

    def rows(self, book_id: int) -> Iterator[tuple[int, str, bytes]]:
        return ((book_id, term, blob) for term, blob in self.postings.items())


@dataclass(frozen=True, slots=True)
class Phrase:
    """One query term as the index's tokens (more than one: they must all be in a passage), or a prefix."""

    tokens: tuple[str, ...]
    prefix: bool = False


def _pairs(passages: int) -> np.dtype:
    """A posting as stored: the passage's number (big-endian, as SQL's hex writes it) and the term's count."""
    return np.dtype([("passage", ">u2" if passages <= _NARROW else ">u4"), ("times", "u1")])


def _varint(blob: bytes) -> int:
    """The first of SQLite's variable-length integers in ``blob`` (FTS5's passage sizes are stored so)."""
    value = 0
    for i, byte in enumerate(blob[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            break
    return value


def _runs(occurrences: list[bytes], wide: bool) -> list[bytes]:
    """Each term's postings as stored, from its passages listed once per occurrence (sorted): a run of one
    passage becomes (passage, times), all terms' runs found at once."""
    width = 4 if wide else 2
    passages = np.frombuffer(b"".join(occurrences), dtype=">u4" if wide else ">u2")
    ends = np.cumsum([len(blob) // width for blob in occurrences])  # where each term's occurrences end
    return _postings_of(passages, np.concatenate(([0], ends[:-1])), wide)


def _postings_of(passages: np.ndarray, starts: np.ndarray, wide: bool) -> list[bytes]:
    """Each term's postings as stored, from every occurrence's passage, sorted by term then passage, and where each
    term's occurrences start."""
    new = np.ones(len(passages), dtype=bool)  # an occurrence that opens a run: another passage, or another term
    new[1:] = passages[1:] != passages[:-1]
    new[starts[starts < len(passages)]] = True
    opens = np.flatnonzero(new)
    pairs = np.empty(len(opens), dtype=_pairs(_NARROW + 1 if wide else 0))
    pairs["passage"] = passages[opens]
    pairs["times"] = np.minimum(np.diff(np.append(opens, len(passages))), _MOST_TIMES)
    data = pairs.tobytes()
    bounds = np.searchsorted(opens, np.append(starts, len(passages))) * pairs.itemsize  # each term's first run
    return [data[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)]


def _cjk_postings(found: list[list[str]], first: int, wide: bool) -> dict[str, bytes]:
    """Each CJK token's postings, from the tokens ``found`` in each passage of a batch whose first is ``first``."""
    flat = list(itertools.chain.from_iterable(found))
    if not flat:
        return {}
    tokens = np.array(flat)  # as wide as the longest token: a pair of characters in an index text
    codes = tokens.view(np.uint32).reshape(len(flat), -1)
    order = np.lexsort(codes.T[::-1])  # by the token's characters; stable, so each token's passages stay in order
    codes = codes[order]
    passages = np.repeat(np.arange(first, first + len(found)), [len(tokens) for tokens in found])[order]
    starts = np.flatnonzero(np.concatenate(([True], (codes[1:] != codes[:-1]).any(axis=1))))
    return dict(zip(tokens[order[starts]].tolist(), _postings_of(passages, starts, wide), strict=True))


def _merged(one: bytes, other: bytes, wide: bool) -> bytes:
    """One term's postings from two counts of the same passages, as one: a passage in both has their times added."""
    dtype = _pairs(_NARROW + 1 if wide else 0)
    pairs = np.concatenate((np.frombuffer(one, dtype=dtype), np.frombuffer(other, dtype=dtype)))
    pairs = pairs[np.argsort(pairs["passage"], kind="stable")]
    passages, firsts = np.unique(pairs["passage"], return_index=True)
    times = np.add.reduceat(pairs["times"].astype(np.int64), firsts)
    merged = np.empty(len(passages), dtype=dtype)
    merged["passage"], merged["times"] = passages, np.minimum(times, _MOST_TIMES)
    return merged.tobytes()


def _code_ranges(ranges: str) -> list[tuple[int, int]]:
    """The code points of a regular expression's character ranges ('a-z' and single characters)."""
    return [(ord(a), ord(b or a)) for a, b in re.findall(r"(.)(?:-(.))?", ranges, flags=re.DOTALL)]


def _class_of(points: list[int]) -> str:
    """A regular expression's character class body holding exactly ``points`` (sorted), as ranges."""
    runs: list[list[int]] = []
    for point in points:
        if runs and point == runs[-1][1] + 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in runs)


_ANY_CJK = re.compile(CJK_CHAR)


class TermCounter:
    """FTS5's tokenizer on a private in-memory connection: a book's postings, and a query's terms as tokens."""

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None
        self._cjk: re.Pattern[str] | None = None
        self._lock = threading.Lock()  # the indexing worker and a search may both count
        self._tokens = lru_cache(maxsize=4096)(self._tokenize)  # a reader asks about the same few names

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = scratch()
            for table in ("passages", "query"):
                conn.execute(  # an index alone (no copy of the text), emptied at once with 'delete-all'
                    f"CREATE VIRTUAL TABLE {table} USING fts5(body, content = '', tokenize = '{CHUNK_TOKENIZER}')"
                )
                conn.execute(f"CREATE VIRTUAL TABLE {table}_terms USING fts5vocab({table}, instance)")
            self._conn = conn
        return self._conn

    def count(self, index_texts: Iterable[str], passages: int) -> BookTerms:
        """The postings of a book's ``passages`` passages, given in order as the index stores them (``index_text``).

        SQLite tokenizes and hands over each term's passages, one per time the term occurs, already in order
        (``fts5vocab`` walks its index by term, then passage: grouping by the term alone needs no sort, grouping by
        term and passage sorted 730,000 rows for 红楼梦); numpy turns the runs into (passage, times) pairs."""
        postings: dict[str, bytes] = {}
        lengths = np.zeros(passages, dtype="<u4")
        wide = passages > _NARROW
        with self._lock:
            conn = self._connection()
            batch: list[str] = []
            first = 0
            for text in index_texts:
                batch.append(text)
                if len(batch) == _BATCH:
                    self._count_batch(conn, batch, first, wide, postings, lengths)
                    first, batch = first + len(batch), []
            self._count_batch(conn, batch, first, wide, postings, lengths)
        return BookTerms(postings, lengths.tobytes())

    def _cjk_tokens(self, conn: sqlite3.Connection) -> re.Pattern[str]:
        """The CJK tokens of an index text (a pair of characters, or a run's last, alone between spaces) that FTS5's
        tokenizer keeps as they stand: every character of the token was given back unchanged as a token of its own.

        Found once, from this SQLite's own tokenizer (0.1 s): of the 39,488 characters ``index_text`` pairs, it
        drops or splits at six (the kana's combining marks and its two punctuation marks); a token holding one of
        those is left to FTS5."""
        if self._cjk is None:
            conn.execute(f"CREATE VIRTUAL TABLE chars USING fts5(body, content = '', tokenize = '{CHUNK_TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE chars_terms USING fts5vocab(chars, instance)")
            for start, end in _code_ranges(CJK_RANGES):  # a row per character, its code point as its rowid
                conn.execute(
                    "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x < ?) "
                    "INSERT INTO chars (rowid, body) SELECT x, char(x) FROM c",
                    (start, end),
                )
            kept = conn.execute(
                "SELECT doc FROM chars_terms GROUP BY doc HAVING count(*) = 1 AND min(term) = char(doc) ORDER BY doc"
            ).fetchall()
            conn.execute("DROP TABLE chars_terms")
            conn.execute("DROP TABLE chars")
            self._cjk = re.compile(f"(?<!{CJK_CHAR})[{_class_of([row[0] for row in kept])}]+(?!{CJK_CHAR})")
        return self._cjk

    def _count_batch(
        self,
        conn: sqlite3.Connection,
        texts: list[str],
        first: int,
        wide: bool,
        postings: dict[str, bytes],
        lengths: np.ndarray,
    ) -> None:
        if not texts:
            return
        cjk: dict[str, bytes] = {}
        if any(_ANY_CJK.search(text) for text in texts):
            pattern = self._cjk_tokens(conn)
            pairs = [pattern.findall(text) for text in texts]
            cjk = _cjk_postings(pairs, first, wide)
            lengths[first : first + len(texts)] += np.array([len(tokens) for tokens in pairs], dtype=lengths.dtype)
            texts = [pattern.sub(" ", text) if tokens else text for text, tokens in zip(texts, pairs, strict=True)]
        conn.executemany("INSERT INTO passages (rowid, body) VALUES (?, ?)", enumerate(texts, start=first))
        cursor = conn.execute(  # each term's passages as big-endian hex, one per occurrence, in passage order
            "SELECT term, unhex(group_concat(printf(?, doc), '')) FROM passages_terms GROUP BY term",
            ("%08x" if wide else "%04x",),
        )
        found = iter(cursor)  # (iterated, not fetchmany: the phones' apsw cursor has no fetchmany)
        while rows := list(itertools.islice(found, _TERMS)):  # a few thousand terms at a time: memory stays flat
            for term, blob in zip((row[0] for row in rows), _runs([row[1] for row in rows], wide), strict=True):
                if term in cjk:  # a CJK token FTS5 made of a pair it splits ("イ・" gives "イ"), counted also above
                    blob = _merged(blob, cjk.pop(term), wide)
                postings[term] = postings[term] + blob if term in postings else blob
        for term, blob in cjk.items():
            postings[term] = postings[term] + blob if term in postings else blob
        for passage, size in conn.execute("SELECT id, sz FROM passages_docsize"):
            lengths[passage] += _varint(size)
        conn.execute("INSERT INTO passages (passages) VALUES ('delete-all')")

    def phrases(self, query: str) -> list[Phrase]:
        """The query's terms (``any_terms``: stop words dropped, CJK as pairs) as the index's tokens."""
        phrases = []
        for term, prefix in any_terms(query):
            tokens = self._tokens(term)
            if tokens:
                phrases.append(Phrase(tokens, prefix))
        return phrases

    def _tokenize(self, term: str) -> tuple[str, ...]:
        with self._lock:
            conn = self._connection()
            conn.execute("INSERT INTO query (rowid, body) VALUES (1, ?)", (term,))
            tokens = conn.execute("SELECT term FROM query_terms ORDER BY offset").fetchall()
            conn.execute("INSERT INTO query (query) VALUES ('delete-all')")
        return tuple(token[0] for token in tokens)


def rank(conn: sqlite3.Connection, book_id: int, phrases: list[Phrase]) -> list[tuple[int, float]] | None:
    """(passage number, BM25 relevance) for the book's passages that hold any phrase, best first (ties in
    reading order); None when the book has no statistics of its own yet (chunked before they were kept)."""
    row = conn.execute("SELECT term_lengths FROM chunk_sets WHERE book_id = ?", (book_id,)).fetchone()
    if row is None or row[0] is None:
        return None
    lengths = np.frombuffer(row[0], dtype="<u4")
    count = len(lengths)
    if count == 0 or not phrases:
        return []
    average = float(lengths.sum()) / count
    norm = K1 * (1 - B + B * lengths / average)
    scores = np.zeros(count)
    matched = np.zeros(count, dtype=bool)
    postings = _postings(conn, book_id, phrases, _pairs(count))
    for phrase in phrases:
        passages, times = _phrase(phrase, postings, count)
        if not len(passages):
            continue
        hits = len(passages)
        idf = math.log((count - hits + 0.5) / (hits + 0.5))
        idf = idf if idf > 0 else IDF_FLOOR
        scores[passages] += idf * (times * (K1 + 1.0)) / (times + norm[passages])
        matched[passages] = True
    found = np.flatnonzero(matched)
    order = found[np.lexsort((found, -scores[found]))]
    return list(zip(order.tolist(), scores[order].tolist(), strict=True))


def _postings(
    conn: sqlite3.Connection, book_id: int, phrases: list[Phrase], dtype: np.dtype
) -> dict[str, list[np.ndarray]]:
    """Each wanted token's (passage, count) pairs; a prefix's under the prefix, one array per term it covers."""
    found: dict[str, list[np.ndarray]] = {}
    exact = sorted({token for phrase in phrases if not phrase.prefix for token in phrase.tokens})
    if exact:
        marks = ",".join("?" * len(exact))
        sql = f"SELECT term, postings FROM chunk_terms WHERE book_id = ? AND term IN ({marks})"
        for term, blob in conn.execute(sql, (book_id, *exact)):
            found[term] = [np.frombuffer(blob, dtype=dtype)]
    for phrase in phrases:
        if phrase.prefix:
            start = phrase.tokens[0]
            rows = conn.execute(
                "SELECT postings FROM chunk_terms WHERE book_id = ? AND term >= ? AND term < ?",
                (book_id, start, start + "\U0010ffff"),
            )
            found["*" + start] = [np.frombuffer(r[0], dtype=dtype) for r in rows]
    return found


def _phrase(phrase: Phrase, postings: dict[str, list[np.ndarray]], count: int) -> tuple[np.ndarray, np.ndarray]:
    """The passages holding the phrase and how many times: a prefix sums its terms; a phrase of several tokens
    (a word FTS5 splits, such as ``snake_case``) counts the passages holding them all, as often as the rarest."""
    if phrase.prefix:
        pairs = postings.get("*" + phrase.tokens[0], [])
        if not pairs:
            return np.empty(0, dtype=np.int64), np.empty(0)
        joined = np.concatenate(pairs)
        times = np.bincount(joined["passage"], weights=joined["times"], minlength=count)
        passages = np.flatnonzero(times)
        return passages, times[passages]
    per_token: list[np.ndarray] = []
    for token in phrase.tokens:
        stored = postings.get(token)
        if not stored:
            return np.empty(0, dtype=np.int64), np.empty(0)
        per_token.append(stored[0])
    if len(per_token) == 1:
        return per_token[0]["passage"].astype(np.int64), per_token[0]["times"].astype(np.float64)
    times = np.full(count, np.inf)
    held = np.ones(count, dtype=bool)
    for token_pairs in per_token:
        here = np.zeros(count, dtype=bool)
        here[token_pairs["passage"]] = True
        held &= here
        times[token_pairs["passage"]] = np.minimum(times[token_pairs["passage"]], token_pairs["times"])
    passages = np.flatnonzero(held)
    return passages, times[passages]
