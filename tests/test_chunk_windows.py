"""Hybrid search's window re-rank reads an indexed book's stored sentences: the same windows, the same ranking
and the same passages as finding them in the text again, stored when the book is indexed (or opened, indexed
before), dropped with its passages."""

from __future__ import annotations

import pytest
from conftest import book_path
from dbkit import inside

from core.rag.proximity import _stored_windows, _windows, sentence_terms, window_ranking
from core.services import Quire

pytestmark = pytest.mark.storage

QUESTIONS = [
    "Why was the White Rabbit late?",
    "What did Alice drink from the bottle?",
    "Who painted the roses red?",
    "Where did the Cheshire Cat sit?",
    "How did Alice feel when she grew so tall?",
    "the Queen of Hearts",
]


def test_stored_sentences_give_every_passage_the_same_windows_and_ranking(alice_quire: Quire) -> None:
    conn = inside(alice_quire).library.conn
    texts = dict(conn.execute("SELECT id, text FROM chunks WHERE book_id = 1").fetchall())
    texts[0] = ""  # no sentence at all
    texts[-1] = "。"  # a sentence with no word in it
    stored = {cid: sentence_terms(text) for cid, text in texts.items()}
    for cid, text in texts.items():
        assert _stored_windows(stored[cid], 2) == _windows(text, 2), cid
    nahan = alice_quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book
    assert nahan is not None
    alice_quire.text.prepare(nahan.id)
    for (text,) in conn.execute("SELECT text FROM chunks WHERE book_id = ? LIMIT 200", (nahan.id,)):
        assert _stored_windows(sentence_terms(text), 2) == _windows(text, 2)  # Chinese: character pairs
    for question in QUESTIONS:
        ranked = window_ranking(question, texts)
        assert ranked and window_ranking(question, {}, stored=stored) == ranked


def test_indexing_stores_them_hybrid_search_reads_them_and_a_new_cut_drops_them(alice_quire: Quire) -> None:
    conn = inside(alice_quire).library.conn
    chunks = inside(alice_quire).chunks
    assert conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0] == 0
    assert alice_quire.text.prepare(1) is False  # not indexed: nothing to store for it when it is opened
    alice_quire.index(1)
    passages = conn.execute("SELECT count(*) FROM chunks WHERE book_id = 1").fetchone()[0]
    assert conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0] == passages
    hybrid = [alice_quire.search(1, q, mode="hybrid", k=8) for q in QUESTIONS]
    with inside(alice_quire).library.transaction() as writing:  # a library indexed before they were kept
        writing.execute("DELETE FROM chunk_windows")
    assert [alice_quire.search(1, q, mode="hybrid", k=8) for q in QUESTIONS] == hybrid  # the same passages
    assert alice_quire.text.prepare(1) is True  # opened: an indexed book's sentences are stored behind it
    assert conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0] == passages

    profile = chunks.profile(1)
    assert profile is not None
    other = type(profile)(profile.tokenizer, profile.target_tokens // 2, profile.overlap)
    assert chunks.ensure(1, other, inside(alice_quire).default_chunking()[1])  # cut again: the old ones go
    assert conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0] == 0
    alice_quire.index(1)
    alice_quire.remove(1)
    assert conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0] == 0
