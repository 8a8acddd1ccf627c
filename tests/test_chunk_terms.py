"""Keyword search in one book ranks by that book alone: FTS5's own BM25 on a library of that book is the oracle."""

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from conftest import book_path
from dbkit import inside

from core.books.textutil import CJK_RUN
from core.library.fts import CHUNK_TOKENIZER, index_text, match_any_expression
from core.library.migrations import CHUNKS_FTS, MIGRATIONS
from core.rag.chunk_store import ChunkProfile, Filters
from core.rag.chunk_terms import TermCounter
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

BOOKS = {
    "en/idpf-moby-dick.epub": [
        "Who is Captain Ahab?",
        "the white whale's jaw",
        "whales hunted by harpooneers",  # stems: whale, hunt, harpoon
        "What did Ishmael eat at the inn?",
        "a naïve café, CAPTAIN",  # diacritics and case folded as the index folds them
        "Queequeg_and_Ishmael",  # one word to our terms, three tokens to FTS5
        "the of and",  # nothing but stop words
    ],
    "zh/luxun_nahan.txt": [
        "孔乙己还欠十九个钱",
        "狂人日记",
        "阿Q正传 赵太爷",
        "鲁",
        "人",
    ],  # a lone character: a prefix
    "ja/idpf-kusamakura-japanese-vertical-writing.epub": ["智に働けば角が立つ", "山路を登りながら"],
}


def _fts_alone(conn: sqlite3.Connection, book_id: int, query: str) -> list[tuple[int, float]]:
    """(passage number, relevance) as FTS5 ranks the passages of a library holding this book alone."""
    expression = match_any_expression(query)
    if expression is None:
        return []
    rows = conn.execute(
        "SELECT c.idx, -k.rank FROM (SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank) k "
        "JOIN chunks c ON c.id = k.rowid WHERE c.book_id = ? ORDER BY k.rank",
        (expression, book_id),
    ).fetchall()
    return [(row[0], row[1]) for row in rows]


def _same(mine: list[tuple[int, float]], oracle: list[tuple[int, float]]) -> bool:
    """The same passages with the same scores; passages that tie may come in either order."""
    if len(mine) != len(oracle):
        return False
    if any(abs(a[1] - b[1]) > 1e-9 for a, b in zip(mine, oracle, strict=True)):
        return False
    return sorted((round(s, 9), p) for p, s in mine) == sorted((round(s, 9), p) for p, s in oracle)


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> tuple[Quire, dict[str, int], dict[str, Quire]]:
    """One library with every book and Alice besides, and one library per book holding it alone."""
    folder = tmp_path_factory.mktemp("terms")
    shared = Quire(folder / "shared")
    names = [*BOOKS, "en/epubjs-alice.epub"]
    ids = {name: r.book.id for name, r in zip(names, shared.import_paths([book_path(n) for n in names]), strict=True)}
    alone = {}
    for name in BOOKS:
        alone[name] = Quire(folder / name.replace("/", "-"))
        alone[name].import_paths([book_path(name)])
    yield shared, ids, alone
    shared.close()
    for quire in alone.values():
        quire.close()


def test_a_book_ranks_among_others_exactly_as_fts5_ranks_it_alone(
    libraries: tuple[Quire, dict[str, int], dict[str, Quire]],
) -> None:
    shared, ids, alone = libraries
    chunks = inside(shared).chunks
    assert CHUNK_TOKENIZER in CHUNKS_FTS  # the statistics are counted by the index's own tokenizer
    for name, queries in BOOKS.items():
        alone_conn = inside(alone[name]).library.conn
        alone_id = alone[name].books()[0].id
        for query in queries:
            got = chunks.keyword(query, Filters(book_id=ids[name]), 10_000)
            passage = dict(shared_conn_rows(shared, ids[name]))
            mine = [(passage[chunk_id], score) for chunk_id, score in got]
            oracle = _fts_alone(alone_conn, alone_id, query)
            if "_" in query:  # FTS5 reads a phrase of three words; here: passages holding all three
                assert {p for p, _ in oracle} <= {p for p, _ in mine}, query
                continue
            assert _same(mine, oracle), (name, query, mine[:3], oracle[:3])
            assert mine or query == "the of and", (name, query)
    # the same book's score differs where FTS5 counts the whole library: the statistics are the book's own
    whole = chunks._fts_keyword("whale Ahab", Filters(book_id=ids["en/idpf-moby-dick.epub"]), 5)
    own = chunks.keyword("whale Ahab", Filters(book_id=ids["en/idpf-moby-dick.epub"]), 5)
    assert [s for _, s in whole] != pytest.approx([s for _, s in own])


def shared_conn_rows(quire: Quire, book_id: int) -> list[tuple[int, int]]:
    return inside(quire).library.conn.execute("SELECT id, idx FROM chunks WHERE book_id = ?", (book_id,)).fetchall()


def test_the_spoiler_bound_and_sections_filter_the_ranking_without_reordering_it(
    libraries: tuple[Quire, dict[str, int], dict[str, Quire]],
) -> None:
    shared, ids, _ = libraries
    chunks, conn = inside(shared).chunks, inside(shared).library.conn
    book = ids["en/idpf-moby-dick.epub"]
    ends = dict(conn.execute("SELECT id, end_ordinal FROM chunks WHERE book_id = ?", (book,)).fetchall())
    sections = dict(conn.execute("SELECT id, section_idx FROM chunks WHERE book_id = ?", (book,)).fetchall())
    everything = chunks.keyword("whale", Filters(book_id=book), 100_000)
    assert len(everything) > 500  # past the over-fetch: the whole ranking is filtered
    bound = sorted(ends.values())[len(ends) // 10]  # a tenth of the way in: most matches are past it
    for limit in (5, 20, 400):
        bounded = chunks.keyword("whale", Filters(book_id=book, max_ordinal=bound), limit)
        expected = [hit for hit in everything if ends[hit[0]] <= bound][:limit]
        assert bounded == expected and bounded
        ranged = chunks.keyword("whale", Filters(book_id=book, sections=(20, 30)), limit)
        assert ranged == [hit for hit in everything if 20 <= sections[hit[0]] <= 30][:limit] and ranged


def test_a_book_chunked_before_the_statistics_gets_them_and_loses_them_with_its_chunks(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book
    chunks, library = inside(quire).chunks, inside(quire).library
    fresh = chunks.keyword("孔乙己还欠十九个钱", Filters(book_id=book.id), 20)
    stored = library.conn.execute("SELECT count(*) FROM chunk_terms WHERE book_id = ?", (book.id,)).fetchone()[0]
    assert fresh and stored > 1000
    with library.transaction() as conn:  # what a library chunked before migration 20 holds
        conn.execute("DELETE FROM chunk_terms")
        conn.execute("UPDATE chunk_sets SET term_lengths = NULL")
    whole_library = quire.search(book.id, "孔乙己还欠十九个钱", mode="keyword", k=20)
    assert whole_library[0].text == chunks.rows([fresh[0][0]])[fresh[0][0]]["text"]  # FTS5 ranks it meanwhile
    assert library.conn.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == 0  # a search never waits
    quire.text.prepare(book.id)  # the worker behind an opened book
    assert chunks.keyword("孔乙己还欠十九个钱", Filters(book_id=book.id), 20) == fresh
    assert library.conn.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == stored

    profile = chunks.profile(book.id)
    other = ChunkProfile(profile.tokenizer, profile.target_tokens // 2, profile.overlap)
    _, count = inside(quire).default_chunking()
    assert chunks.ensure(book.id, other, count)  # cut again: the statistics are counted again with it
    rechunked = chunks.keyword("孔乙己还欠十九个钱", Filters(book_id=book.id), 20)
    assert rechunked and rechunked != fresh
    passages = library.conn.execute("SELECT count(*) FROM chunks WHERE book_id = ?", (book.id,)).fetchone()[0]
    lengths = library.conn.execute("SELECT term_lengths FROM chunk_sets WHERE book_id = ?", (book.id,)).fetchone()[0]
    assert len(lengths) == 4 * passages

    quire.remove(book.id)
    assert library.conn.execute("SELECT count(*) FROM chunk_terms").fetchone()[0] == 0
    assert (20, "chunk terms") in [(version, name) for version, name, _ in MIGRATIONS]
    quire.close()


def _fts5_postings(indexed: list[str]) -> dict[str, list[tuple[int, int]]]:
    """The oracle: each term's (passage, times) as FTS5's own vocabulary counts the index texts, capped at 255."""
    oracle = sqlite3.connect(":memory:")
    oracle.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, content = '', tokenize = '{CHUNK_TOKENIZER}')")
    oracle.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    oracle.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", enumerate(indexed))
    expected: dict[str, list[tuple[int, int]]] = {}
    for term, doc, times in oracle.execute("SELECT term, doc, count(*) FROM v GROUP BY term, doc ORDER BY term, doc"):
        expected.setdefault(term, []).append((doc, min(times, 255)))
    return expected


def _lengths_by_fts5(indexed: list[str]) -> list[int]:
    """The oracle of each passage's length: how many tokens FTS5 makes of it."""
    oracle = sqlite3.connect(":memory:")
    oracle.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, content = '', tokenize = '{CHUNK_TOKENIZER}')")
    oracle.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    oracle.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", enumerate(indexed))
    lengths = [0] * len(indexed)
    for doc, count in oracle.execute("SELECT doc, count(*) FROM v GROUP BY doc"):
        lengths[doc] = count
    return lengths


ODD_CJK = [
    "アイ・ウエ。アイ",  # the middle dot splits a pair for FTS5 ("イ・" gives "イ"), and "イ" stands alone too
    "ガ゛゜゠ヷ",  # the kana's combining marks (NFKC makes ゛ a space and U+3099) and its double hyphen
    "豈更車",  # compatibility ideographs, folded to unified ones
    "\u3097\u9fff\u4dbf한국어",  # unassigned kana, the newest ideograph, extension A, Hangul
    "whale鲸鱼sea 〇 ＡＢＣ１２",  # Latin and CJK touching, an ideographic zero (not paired), full-width forms
    "鲸",
    "",
]


@pytest.mark.parametrize(
    "name", ["zh/hongloumeng_120.md", "zh/luxun_nahan.txt", "ja/idpf-kusamakura-japanese-vertical-writing.epub"]
)
def test_cjk_pairs_counted_with_numpy_are_fts5s_own_counts(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A book's CJK pairs, counted apart from FTS5 where the tokenizer keeps them as they stand, give the postings
    and lengths FTS5 gives the same index texts, odd characters and pairs it splits included."""
    from core.books.formats import parse_book
    from core.rag import chunk_terms

    apart: list[int] = []  # how many tokens the numpy path counted, batch by batch
    found_apart = chunk_terms._cjk_slice
    monkeypatch.setattr(chunk_terms, "_cjk_slice", lambda *a: apart.append(len((t := found_apart(*a)).keys)) or t)
    path = book_path(name)
    book = parse_book(path.read_bytes(), path.name)
    texts = [segment.text for section in book.sections for segment in section.segments] + ODD_CJK
    indexed = [index_text(text) for text in texts] + ["红楼梦 石头记"]  # runs no index text has: FTS5 counts them
    terms = TermCounter().count(iter(indexed), len(indexed))
    assert sum(apart) > 0.9 * sum(1 for text in indexed for token in text.split() if CJK_RUN.fullmatch(token))
    found = {
        term: np.frombuffer(blob, dtype=[("p", ">u2"), ("t", "u1")]).tolist() for term, blob in terms.postings.items()
    }
    assert found == _fts5_postings(indexed)
    assert np.frombuffer(terms.lengths, dtype="<u4").tolist() == _lengths_by_fts5(indexed)
    odd = len(texts) - len(ODD_CJK)
    assert (odd, 2) in found["イ"] and found["鲸鱼"] == [(odd + 4, 1)]


@pytest.mark.parametrize("passages", [3, 70_000], ids=["two-byte passage numbers", "four-byte passage numbers"])
def test_the_counted_postings_are_fts5s_own_counts_of_each_term_in_each_passage(passages: int) -> None:
    """The postings read back as FTS5's vocabulary counts them (term, passage, times), a term's count capped at
    255: the counting groups by term alone and finds the passages' runs itself, in batches of 5,000."""
    texts = [f"whale{n % 7} sea x{n} 鲸鱼" if n % 3 else "" for n in range(passages)]
    texts[1] = "the " * 300 + "sea seas"  # a count past a byte's reach; porter folds seas into sea
    indexed = [index_text(text) for text in texts]
    terms = TermCounter().count(iter(indexed), passages)
    expected = _fts5_postings(indexed)
    pairs = np.dtype([("passage", ">u2" if passages <= 0xFFFF else ">u4"), ("times", "u1")])
    found = {term: np.frombuffer(blob, dtype=pairs).tolist() for term, blob in terms.postings.items()}
    assert found == expected
    assert found["the"] == [(1, 255)] and found["sea"][:2] == [(1, 2), (2, 1)]
    assert len(found["x69998" if passages > 3 else "x2"]) == 1
    lengths = np.frombuffer(terms.lengths, dtype="<u4")
    assert lengths[1] == 302 and lengths[0] == 0 and len(lengths) == passages
