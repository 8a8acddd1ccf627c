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
from typing import Protocol

import numpy as np

from core.books.textutil import CJK_RANGES, CJK_RUN
from core.library.db import scratch
from core.library.fts import CHUNK_TOKENIZER, any_terms

K1 = 1.2  # FTS5's bm25() constants (fts5_aux.c)
B = 0.75
IDF_FLOOR = 1e-6  # FTS5's idf for a term in more than half the passages
_BATCH = 5000  # passages tokenized at a time: the in-memory index never holds a very long book whole
_TERMS = 4096  # terms' runs found at a time (a batch of 红楼梦 holds 100,000 terms)
_CODE_POINTS = 1 << 19  # index texts' characters read as code points at a time: 2 MB an array
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


@dataclass(frozen=True, slots=True)
class CjkCharacters:
    """Which code points ``index_text`` pairs (``cjk``) and which of those FTS5's tokenizer gives back unchanged as
    a token of their own (``kept``), as tables indexed by code point."""

    cjk: np.ndarray
    kept: np.ndarray


@dataclass(frozen=True, slots=True)
class CjkTokens:
    """A batch's CJK tokens counted apart from FTS5: each one's term and passage, and each text without them."""

    keys: np.ndarray  # a token's characters as one number: the first's code point above the second's (or 0)
    passages: np.ndarray
    rest: list[str]


def _cjk_counted(
    texts: list[str], first: int, characters: CjkCharacters, wide: bool, lengths: np.ndarray
) -> tuple[dict[str, bytes], list[str]]:
    """The postings of the CJK tokens of index texts that FTS5 would make as they stand (a run of one or two
    characters, each kept by the tokenizer), and the texts left for FTS5, those tokens blanked; each passage's
    tokens are added to ``lengths``. The texts are read as code points a slice at a time: memory stays flat."""
    postings: dict[str, bytes] = {}
    rest: list[str] = []
    start = 0
    while start < len(texts):
        end, size = start + 1, len(texts[start])
        while end < len(texts) and size + len(texts[end]) < _CODE_POINTS:
            size += len(texts[end]) + 1
            end += 1
        found = _cjk_slice(texts[start:end], first + start, characters)
        lengths += np.bincount(found.passages, minlength=len(lengths)).astype(lengths.dtype)
        for term, blob in _cjk_postings(found, wide).items():  # slices in order: a term's passages stay in order
            postings[term] = postings[term] + blob if term in postings else blob
        rest += found.rest
        start = end
    return postings, rest


def _cjk_slice(texts: list[str], first: int, characters: CjkCharacters) -> CjkTokens:
    joined = "\n".join(texts)  # a newline is no CJK character: no run crosses two texts
    codes = np.frombuffer(bytearray(joined.encode("utf-32-le")), dtype="<u4")
    cjk = characters.cjk[codes]
    starts = np.flatnonzero(cjk & ~np.concatenate(([False], cjk[:-1])))
    ends = np.flatnonzero(cjk & ~np.concatenate((cjk[1:], [False]))) + 1
    if not len(starts):
        return CjkTokens(np.empty(0, np.uint64), np.empty(0, np.uint32), texts)
    held = np.logical_or.reduceat(cjk & ~characters.kept[codes], starts)  # a character FTS5 drops or splits at
    ours = (ends - starts <= 2) & ~held  # a pair or a lone character, all kept as they stand
    starts, pairs = starts[ours], (ends - starts)[ours] == 2
    second = np.zeros(len(starts), dtype=np.uint64)
    second[pairs] = codes[starts[pairs] + 1]
    keys = codes[starts].astype(np.uint64) << np.uint64(21) | second
    offsets = np.cumsum([0] + [len(text) + 1 for text in texts])
    passages = (np.searchsorted(offsets, starts, side="right") - 1 + first).astype(np.uint32)
    codes[starts] = 0x20  # blanked for FTS5: a space
    codes[starts[pairs] + 1] = 0x20
    blanked = codes.tobytes().decode("utf-32-le")
    # What is left is mostly spaces, closed up (FTS5 splits at any space alike): a tenth of the text to hold and read.
    rest = [" ".join(blanked[offsets[i] : offsets[i + 1] - 1].split()) for i in range(len(texts))]
    return CjkTokens(keys, passages, rest)


def _cjk_postings(tokens: CjkTokens, wide: bool) -> dict[str, bytes]:
    """Each CJK token's postings, by its term."""
    if not len(tokens.keys):
        return {}
    order = np.argsort(tokens.keys, kind="stable")  # by term; stable, so each term's passages stay in order
    keys = tokens.keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    chars = np.empty((len(starts), 2), dtype="<u4")  # each term's two characters (a lone one: then a NUL)
    chars[:, 0], chars[:, 1] = keys[starts] >> np.uint64(21), keys[starts] & np.uint64(0x1FFFFF)
    terms = chars.view("<U2").ravel().tolist()  # numpy drops the trailing NUL of a lone character
    return dict(zip(terms, _postings_of(tokens.passages[order], starts, wide), strict=True))


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


_CHARACTERS: dict[str, CjkCharacters] = {}  # by SQLite's version: its tokenizer's tables
_CHARACTERS_LOCK = threading.Lock()


def cjk_characters(conn: sqlite3.Connection) -> CjkCharacters:
    """The CJK characters FTS5's tokenizer keeps as they stand, found once from this SQLite's own tokenizer (0.1 s).

    Of the 39,488 code points ``index_text`` pairs, SQLite 3.50 (sqlean) and 3.54 (apsw) drop or split at the same
    six (the kana's four voiced-sound marks and two of its punctuation marks); a token holding one is left to FTS5."""
    version = conn.execute("SELECT sqlite_version()").fetchone()[0]
    with _CHARACTERS_LOCK:
        if version not in _CHARACTERS:
            ranges = _code_ranges(CJK_RANGES)
            cjk = np.zeros(0x110000, dtype=bool)  # every code point: 1.1 MB, looked up without bounds checks
            kept = np.zeros_like(cjk)
            conn.execute("DROP TABLE IF EXISTS chars")  # left by a try cut short
            conn.execute(f"CREATE VIRTUAL TABLE chars USING fts5(body, content = '', tokenize = '{CHUNK_TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS chars_terms USING fts5vocab(chars, instance)")
            for start, end in ranges:  # a row per character, its code point as its rowid
                cjk[start : end + 1] = True
                conn.execute(
                    "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x < ?) "
                    "INSERT INTO chars (rowid, body) SELECT x, char(x) FROM c",
                    (start, end),
                )
            found = "SELECT doc FROM chars_terms GROUP BY doc HAVING count(*) = 1 AND min(term) = char(doc)"
            kept[[row[0] for row in conn.execute(found)]] = True
            conn.execute("DROP TABLE chars_terms")
            conn.execute("DROP TABLE chars")
            _CHARACTERS[version] = CjkCharacters(cjk, kept & cjk)
        return _CHARACTERS[version]


class TermCounter:
    """FTS5's tokenizer on a private in-memory connection: a book's postings, and a query's terms as tokens."""

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None
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
        if any(CJK_RUN.search(text) for text in texts):
            cjk, texts = _cjk_counted(texts, first, cjk_characters(conn), wide, lengths)
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


class Postings(Protocol):
    """A book's stored postings, read where they are kept (``ChunkStore``): (term, postings) for each exact term
    that has any, and ("*" + prefix, postings) for each term a prefix begins."""

    def __call__(self, exact: list[str], prefixes: list[str]) -> Iterator[tuple[str, bytes]]: ...


def rank(lengths: bytes | None, phrases: list[Phrase], read: Postings) -> list[tuple[int, float]] | None:
    """(passage number, BM25 relevance) for the book's passages that hold any phrase, best first (ties in
    reading order); None when the book has no statistics of its own yet (chunked before they were kept).

    ``lengths`` are the book's passage lengths as stored; ``read`` gives each wanted term's postings (a prefix's
    terms under the prefix)."""
    if lengths is None:
        return None
    sizes = np.frombuffer(lengths, dtype="<u4")
    count = len(sizes)
    if count == 0 or not phrases:
        return []
    average = float(sizes.sum()) / count
    norm = K1 * (1 - B + B * sizes / average)
    scores = np.zeros(count)
    matched = np.zeros(count, dtype=bool)
    postings = _postings(read, phrases, _pairs(count))
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


def _postings(read: Postings, phrases: list[Phrase], dtype: np.dtype) -> dict[str, list[np.ndarray]]:
    """Each wanted token's (passage, count) pairs; a prefix's under the prefix, one array per term it covers."""
    found: dict[str, list[np.ndarray]] = {}
    exact = sorted({token for phrase in phrases if not phrase.prefix for token in phrase.tokens})
    prefixes = sorted({phrase.tokens[0] for phrase in phrases if phrase.prefix})
    for term, blob in read(exact, prefixes):
        found.setdefault(term, []).append(np.frombuffer(blob, dtype=dtype))
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
