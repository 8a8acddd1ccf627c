"""Hybrid retrieval and indexing on real books, the real ONNX model and real SQLite, both vector back-ends."""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, book_path, vector_backends
from dbkit import inside
from httpkit import LocalServer, Reply, Request
from waiting import until

from core.errors import IndexCancelled
from core.library.db import has_vector_extension
from core.rag.chunk_store import Filters
from core.rag.vector_store import vec_table
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

QUERIES = [
    "Why did Alice follow the rabbit?",
    "the Cheshire cat grinning",
    "a mad tea party with the Hatter",
    "the Queen wants to cut off heads",
    "Alice grows very tall after drinking",
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library with Alice imported and fully indexed (with the numpy back-end, the portable one)."""
    folder = tmp_path_factory.mktemp("indexed")
    quire = Quire(folder, vector_backend="numpy")
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    quire.index(book.id)
    quire.close()
    return folder


@pytest.fixture(params=vector_backends())
def quire(indexed: Path, request: pytest.FixtureRequest) -> Quire:
    q = Quire(indexed, vector_backend=request.param)
    assert q.vector_backend == request.param
    yield q
    q.close()


def test_keyword_search_works_the_moment_a_book_is_imported(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    nahan = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book
    assert quire.index_status(nahan.id) is None
    for mode in ("keyword", "hybrid"):
        passages = quire.search(nahan.id, "孔乙己还欠十九个钱", mode=mode, k=5)
        assert passages and "十九个钱" in passages[0].text
    assert quire.search(nahan.id, "孔乙己", mode="vector") == []
    quire.close()


def test_both_backends_return_the_same_top_k(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.rag import vector_store as vectors

    if len(vector_backends()) < 2:
        pytest.skip("sqlite-vec cannot be loaded with this SQLite backend (it needs sqlean-py and sqlite-vec)")
    results, library_wide, in_vec0 = {}, {}, []
    real = vectors.VectorStore._search_vec
    monkeypatch.setattr(
        vectors.VectorStore, "_search_vec", lambda self, *a: in_vec0.append((name, a[3].book_id)) or real(self, *a)
    )
    # "large": vec0 searches one book too, as it does a book too large to hold as a numpy matrix
    for name, backend, limit in (
        ("numpy", "numpy", 0),
        ("sqlite-vec", "sqlite-vec", 20_000),
        ("large", "sqlite-vec", 0),
    ):
        monkeypatch.setattr(vectors, "NUMPY_BOOK_VECTORS", limit)
        quire = Quire(indexed, vector_backend=backend)
        results[name] = [
            [(p.chunk_id, round(p.score, 4)) for p in quire.search(1, q, mode="vector", k=8)] for q in QUERIES
        ]
        # every book at once: vec0 answers on desktops (one book's search is numpy's on both, see vector_store.py)
        store, conn = inside(quire).vectors, inside(quire).library.conn
        assert store.backend == backend
        rows = conn.execute("SELECT model, embedding FROM chunk_vectors ORDER BY chunk_id LIMIT 3").fetchall()
        library_wide[name] = [
            store.search(model, np.frombuffer(blob, np.float32), 8, where)
            for model, blob in rows
            for where in (Filters(), Filters(None, max_ordinal=120), Filters(None, sections=(5, 9)))
        ]
        quire.close()
    assert all(library_wide["numpy"]) and results["numpy"] == results["sqlite-vec"]
    assert {(name, book) for name, book in in_vec0} == {("sqlite-vec", None), ("large", None), ("large", 1)}
    pairs = [*zip(library_wide["numpy"], library_wide["sqlite-vec"], strict=True)]
    pairs += zip(results["numpy"], results["large"], strict=True)
    for ours, theirs in pairs:
        assert [i for i, _ in ours] == [i for i, _ in theirs]  # the same chunks, in the same order
        assert np.allclose([x for _, x in ours], [x for _, x in theirs], atol=1e-4)  # float32 sums in two orders


def test_vector_and_hybrid_find_the_right_chapter(quire: Quire) -> None:
    expected = {QUERIES[1]: "Pig And Pepper", QUERIES[2]: "A Mad Tea-Party"}
    for query, chapter in expected.items():
        for mode in ("vector", "hybrid"):
            top = quire.search(1, query, mode=mode, k=3)
            assert chapter in [p.section_title for p in top], (mode, query, [p.section_title for p in top])
    hybrid = quire.search(1, QUERIES[2], mode="hybrid", k=5)
    assert all(p.keyword_rank or p.vector_rank for p in hybrid)
    assert hybrid == sorted(hybrid, key=lambda p: -p.score)


def test_passage_locators_point_at_its_text(quire: Quire) -> None:
    for passage in quire.search(1, QUERIES[0], k=5):
        first = quire.text.show(1, passage.start.segment_locator)[0]
        assert passage.text.startswith(first.text[passage.start.offset :].strip()[:30])
        last = quire.text.show(1, passage.end.segment_locator)[0]
        assert passage.text.endswith(last.text[: passage.end.offset].strip()[-30:])
        assert passage.locators[0] == passage.start.segment_locator


def test_the_spoiler_bound_is_never_crossed(quire: Quire) -> None:
    bound = "6.0"  # the reader is at the start of chapter 4 (section 6)
    bound_ordinal = quire.text.ordinal_of(1, quire.text.show(1, bound)[0].locator)
    for query in [*QUERIES, "Off with her head", "tea party"]:
        for mode in ("keyword", "vector", "hybrid"):
            for passage in quire.search(1, query, mode=mode, k=10, before=bound):
                assert passage.end_ordinal <= bound_ordinal, (query, mode, str(passage.end))
    late = quire.search(1, "the Mad Hatter's tea party", k=10, before=bound)
    assert all(p.section_title != "A Mad Tea-Party" for p in late)


def test_section_range_filter(quire: Quire) -> None:
    for mode in ("keyword", "vector", "hybrid"):
        passages = quire.search(1, "Alice", mode=mode, k=10, sections=(4, 5))
        assert passages and {p.start.section for p in passages} <= {4, 5}


def test_library_wide_search_covers_every_indexed_book(quire: Quire) -> None:
    passages = quire.search(None, QUERIES[1], k=3)
    assert {p.book_id for p in passages} == {1}


def _openai_mock(request: Request) -> Reply:
    texts = request.json()["input"]
    rng = np.random.default_rng(abs(hash(tuple(texts))) % 2**32)
    return Reply(200, {"data": [{"index": i, "embedding": rng.standard_normal(8).tolist()} for i in range(len(texts))]})


@pytest.mark.parametrize("backend", vector_backends())
def test_partial_index_cancel_resume_and_model_change(tmp_path: Path, backend: str) -> None:
    quire = Quire(tmp_path, vector_backend=backend)
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    inside(quire).indexer.batch_size = 8
    middle = quire.book(book.id).segment_count // 2
    quire.save_position(book.id, quire.text.segments(book.id, middle, 1)[0].locator)
    cancel = threading.Event()
    with pytest.raises(IndexCancelled):
        quire.index(book.id, progress=lambda status: cancel.set(), cancel=cancel)
    status = quire.index_status(book.id)
    assert (status.status, status.done) == ("cancelled", 8) and status.total > 8
    # fan-out: the first batch is the chunks nearest the reader's position
    rows = (
        inside(quire)
        .library.conn.execute(
            "SELECT c.start_ordinal, v.chunk_id IS NOT NULL FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.book_id = ?",
            (book.id,),
        )
        .fetchall()
    )
    embedded = sorted(abs(r[0] - middle) for r in rows if r[1])
    others = sorted(abs(r[0] - middle) for r in rows if not r[1])
    assert embedded[-1] <= others[0]
    # a partly embedded book: hybrid still answers; vector hits come only from embedded chunks
    assert quire.search(book.id, "the Cheshire cat", mode="hybrid", k=5)
    embedded_ids = {r[0] for r in inside(quire).library.conn.execute("SELECT chunk_id FROM chunk_vectors")}
    assert {p.chunk_id for p in quire.search(book.id, "the Cheshire cat", mode="vector", k=20)} <= embedded_ids
    final = quire.index(book.id)
    assert (final.status, final.done) == ("done", final.total)
    assert inside(quire).vectors.count(book.id, "all-MiniLM-L6-v2") == inside(quire).chunks.count(book.id)
    # another model: re-chunked in its own tokens, the old vectors dropped, never mixed
    with LocalServer(_openai_mock) as server:
        name = quire.models.use_remote("openai:mock-embed", server.url + "/v1")
        status = quire.index(book.id, name)
        assert status.model == "openai:mock-embed" and status.done == status.total
        assert inside(quire).chunks.profile(book.id).tokenizer == "approximate"
        models = {r[0] for r in inside(quire).library.conn.execute("SELECT DISTINCT model FROM chunk_vectors")}
        assert models == {"openai:mock-embed"}
        if backend == "sqlite-vec":
            assert (
                inside(quire)
                .library.conn.execute(f"SELECT COUNT(*) FROM {vec_table('all-MiniLM-L6-v2')}")
                .fetchone()[0]
                == 0
            )
        assert quire.search(book.id, "rabbit", mode="vector", k=3)
    quire.close()


def test_removing_a_book_removes_its_chunks_and_vectors(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    book = quire.import_paths([book_path("minimal/epubcheck-minimal.epub")])[0].book
    quire.index(book.id)
    quire.remove(book.id)
    for table in ("chunks", "chunks_fts", "chunk_vectors", "chunk_sets", "book_index"):
        assert inside(quire).library.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    if quire.vector_backend == "sqlite-vec":
        assert (
            inside(quire).library.conn.execute(f"SELECT COUNT(*) FROM {vec_table('all-MiniLM-L6-v2')}").fetchone()[0]
            == 0
        )
    quire.close()


CHILD = """
import sys
from core.inside import inside
from core.services import Quire
quire = Quire(sys.argv[1])
inside(quire).indexer.batch_size = 4
quire.index(1)
"""


def test_a_killed_indexing_process_resumes_without_duplicates(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    total = inside(quire).chunks.count(book.id)
    quire.close()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    probe = sqlite3.connect(tmp_path / "library.db", timeout=10)

    def indexed() -> int:  # the child's progress, as committed to its database
        assert child.poll() is None, "the child finished before it could be killed: make the book bigger"
        row = (
            probe.execute("SELECT done FROM book_index WHERE book_id = ?", (book.id,)).fetchone()
            if _has_table(probe)
            else None
        )
        return row[0] if row else 0

    until(lambda: indexed() >= 12, 120, "the child to index 12 chunks")
    done = indexed()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    probe.close()
    assert 12 <= done < total
    quire = Quire(tmp_path)
    stored = inside(quire).library.conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0]
    assert stored == quire.index_status(book.id).done  # vectors and progress were committed together
    status = quire.index(book.id)
    assert status.done == status.total == total
    ids = [r[0] for r in inside(quire).library.conn.execute("SELECT chunk_id FROM chunk_vectors")]
    assert len(ids) == len(set(ids)) == total
    embedder = quire.models.embedder("all-MiniLM-L6-v2")
    sample = (
        inside(quire)
        .library.conn.execute(
            "SELECT c.text, v.embedding FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id ORDER BY c.id LIMIT 5"
        )
        .fetchall()
    )
    fresh = embedder.embed_documents([row[0] for row in sample])
    stored_vectors = np.stack([np.frombuffer(row[1], dtype=np.float32) for row in sample])
    assert np.abs(fresh - stored_vectors).max() < 1e-4
    quire.close()


def _has_table(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'book_index'").fetchone() is not None


def test_reciprocal_rank_fusion_with_weights() -> None:
    from core.rag.search import RRF_K, VECTOR_WEIGHT, VECTOR_WEIGHT_FOREIGN, reciprocal_rank_fusion, vector_weight

    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1]], [1.0, 0.5])
    k = RRF_K
    assert fused[1] == pytest.approx(1 / (k + 1) + 0.5 / (k + 2))
    assert fused[2] == pytest.approx(1 / (k + 2))
    assert fused[3] == pytest.approx(1 / (k + 3) + 0.5 / (k + 1))
    assert reciprocal_rank_fusion([[7], [7]]) == {7: pytest.approx(2 / (RRF_K + 1))}
    assert vector_weight(("en",), "en-US") == VECTOR_WEIGHT
    assert vector_weight(("en",), "zh") == VECTOR_WEIGHT_FOREIGN < VECTOR_WEIGHT
    assert vector_weight(("*",), "ja") == vector_weight(("en",), None) == VECTOR_WEIGHT


def test_indexing_runs_in_the_background_and_can_be_cancelled(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    inside(quire).indexer.batch_size = 4
    seen = []
    task = inside(quire).indexer.start(book.id, quire.models.embedder("all-MiniLM-L6-v2"), progress=seen.append)
    until(lambda: seen or not task.is_alive(), 60, "the background task's first progress")
    assert seen, f"no progress from the background task: {task.error!r}"
    task.cancel()
    with pytest.raises(IndexCancelled):
        task.result(timeout=60)
    assert not task.is_alive()
    status = quire.index_status(book.id)
    assert status.status == "cancelled" and 0 < status.done < status.total
    assert seen[0].rate > 0 and seen[0].eta_seconds > 0 and seen[0].done == 4
    quire.close()


def test_a_library_written_without_sqlite_vec_is_searchable_with_it(tmp_path: Path) -> None:
    phone = Quire(tmp_path, vector_extension=False)  # no extension loading, as on a phone
    assert not has_vector_extension(inside(phone).library.conn) and phone.vector_backend == "numpy"
    book = phone.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    inside(phone).indexer.batch_size = 64
    phone.index(book.id)
    on_phone = [(p.chunk_id, round(p.score, 4)) for p in phone.search(book.id, QUERIES[1], mode="vector", k=5)]
    phone.close()
    if len(vector_backends()) < 2:
        pytest.skip("sqlite-vec cannot be loaded with this SQLite backend (it needs sqlean-py and sqlite-vec)")
    desktop = Quire(tmp_path, vector_backend="sqlite-vec")  # the vec0 mirror is rebuilt from the stored vectors
    table = vec_table("all-MiniLM-L6-v2")
    assert inside(desktop).library.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == inside(
        desktop
    ).chunks.count(book.id)
    assert [
        (p.chunk_id, round(p.score, 4)) for p in desktop.search(book.id, QUERIES[1], mode="vector", k=5)
    ] == on_phone
    desktop.close()


def test_released_models_free_their_memory_and_load_again_when_needed(quire: Quire) -> None:
    before = quire.search(1, QUERIES[2], mode="hybrid", k=3)  # loads the on-device model
    assert quire.models.release() == 1
    assert quire.models.release() == 0  # nothing left loaded
    after = quire.search(1, QUERIES[2], mode="hybrid", k=3)  # loads it again, same answers
    assert [(p.chunk_id, round(p.score, 6)) for p in after] == [(p.chunk_id, round(p.score, 6)) for p in before]


def test_the_app_releases_the_model_when_its_last_index_job_ends(tmp_path: Path) -> None:
    from waiting import Threads

    from app.i18n import Translator
    from app.jobs import Jobs

    quire = Quire(tmp_path)
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    threads = Threads()
    jobs = Jobs(quire, lambda: Translator("en"), lambda: None, threads)
    jobs.start_index(book.id)
    threads.join()
    assert quire.index_status(book.id).status == "done"
    assert quire.models.release() == 0  # the job already let it go
    quire.close()


def test_window_ranking_prefers_the_question_words_close_together() -> None:
    from core.rag.proximity import window_ranking

    spread = "The rabbit slept. " + "Nothing happened for a long while. " * 6 + "Her eyes were pink."
    close = "A white rabbit with pink eyes ran close by her. It was late."
    ranking = window_ranking("Who ran by with pink eyes?", {1: spread, 2: close, 3: "No word of it here at all."})
    assert [pid for pid, _ in ranking] == [2, 1]  # the passage without a word of the question is left out
    assert window_ranking("the of and", {1: close}) == []  # nothing but function words: nothing to rank
    chinese = {1: "宝玉笑道。黛玉来了。", 2: "黛玉进了荣国府，拜见外祖母。"}
    assert window_ranking("黛玉进荣国府", chinese)[0][0] == 2


def test_hybrid_puts_the_passage_that_answers_first(tmp_path: Path) -> None:
    # keyword search ranks "The Fair" first (it names the lantern and green most often, never together); the
    # sentence that answers is in "The Night". Without the window list the fusion kept the keyword order.
    fair = " ".join(
        ["The lantern maker sold a lantern to every farmer at the fair, lantern after lantern."]
        + ["The farmers walked home across the fields while the sun went down."] * 3
        + ["Fires burn in the hearths, and the logs burn all night."]
        + ["The cows slept in the barn and the dogs slept by the door."] * 3
        + ["Green ribbons hung from every stall, green as spring grass, green as the river."]
    )
    night = " ".join(
        ["The wind rose over the sea and the boats came in to the harbour."] * 4
        + ["That night the lantern burned green, because the old woman had poured sea water into its oil."]
        + ["Nobody in the village slept until morning came."] * 4
    )
    body = "".join(f"<h2>{t}</h2><p>{p}</p>" for t, p in (("The Fair", fair), ("The Night", night)))
    html = f"<html><head><title>Lanterns</title></head><body>{body}</body></html>".encode()
    quire = Quire(tmp_path, vector_backend="numpy")
    book = quire.import_bytes(html, "lanterns.html").book
    quire.index(book.id)
    question = "Why did the lantern burn green?"
    assert quire.search(book.id, question, mode="keyword", k=1)[0].section_title == "The Fair"
    assert quire.search(book.id, question, mode="hybrid", k=1)[0].section_title == "The Night"
    quire.close()


def test_the_numpy_backends_matrices_are_bounded_least_recently_used_first(tmp_path: Path) -> None:
    """Issue 26: searching 48 books held 49 matrices, 307 MB, never let go (phones use this backend)."""
    from core.rag.chunk_store import Filters

    quire = Quire(tmp_path, vector_backend="numpy")
    library, vectors = inside(quire).library, inside(quire).vectors
    names = ["en/epubjs-alice.epub", "zh/luxun_nahan.txt", "minimal/epubcheck-minimal.epub"]
    books = [quire.import_paths([book_path(name)])[0].book.id for name in names]
    rng = np.random.default_rng(7)
    with library.transaction() as conn:
        for book in books:
            ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE book_id = ?", (book,))]
            vectors.add(conn, "test-model", ids, rng.standard_normal((len(ids), 32)).astype(np.float32))
    query = rng.standard_normal(32).astype(np.float32)
    found = {book: vectors.search("test-model", query, 3, Filters(book_id=book)) for book in books}
    sizes = {book: vectors._matrix("test-model", book).nbytes for book in books}
    vectors._cache_bytes = sizes[books[0]] + sizes[books[1]]  # room for the two largest, not all three
    vectors._cache.clear()
    for book in books:
        assert vectors.search("test-model", query, 3, Filters(book_id=book)) == found[book]
        assert vectors.cached_bytes <= vectors._cache_bytes or len(vectors._cache) == 1
    assert ("test-model", books[0]) not in vectors._cache  # the least recently used went first
    assert vectors.search("test-model", query, 3, Filters(book_id=books[0])) == found[books[0]]  # read again
    quire.close()
