"""Searching and asking the whole library: each book fenced at its own furthest place, every hit naming its book."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import book_path, vector_backends
from fakechat import ScriptedChatModel

from app.cli import main
from core.agent.events import CitationEvent, Done, ErrorEvent, TextDelta, ToolResult
from core.agent.runner import ReadingAgent
from core.agent.tools import ReadingSession
from core.inside import Filters, inside
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture
def two_books(tmp_path: Path) -> Quire:
    """Alice (book 1) read to the end of chapter 2, Pride and Prejudice (book 2) never opened."""
    quire = Quire(tmp_path / "lib")
    quire.import_paths([book_path("en/epubjs-alice.epub"), book_path("en/standardebooks-pride-and-prejudice.epub")])
    yield quire
    quire.close()


def _read_alice_to(quire: Quire, title: str) -> None:
    """The reader's place: the last paragraph of the Alice chapter before ``title``."""
    rows = quire.text.toc(1)
    index = next(i for i, row in enumerate(rows) if row.title == title)
    first = quire.text.ordinal_of(1, rows[index].locator)
    quire.save_position(1, quire.text.segments(1, first - 1, 1)[0].locator)


def _read_pride(quire: Quire) -> None:
    book = quire.book(2)
    quire.save_position(2, quire.text.segments(2, book.segment_count // 4, 1)[0].locator)


def test_each_book_is_searched_only_as_far_as_it_was_read(two_books: Quire) -> None:
    quire = two_books
    _read_alice_to(quire, "Pig And Pepper")  # the Cheshire Cat first grins there
    assert quire.search_library("Cheshire", mode="keyword") == []
    everything = quire.search_library("Cheshire", mode="keyword", spoilers=True)
    assert everything and {p.book_id for p in everything} == {1}
    # a book never opened gives nothing; read a quarter of it, its first quarter only
    assert quire.search_library("Bennet", mode="keyword") == []
    _read_pride(quire)
    bound = quire.position(2).furthest_ordinal
    found = quire.search_library("Bennet", mode="keyword", k=20)
    assert found and {p.book_id for p in found} == {2} and all(p.end_ordinal <= bound for p in found)
    rabbit = quire.search_library("White Rabbit waistcoat", mode="hybrid", k=5)
    assert rabbit and rabbit[0].book_id == 1 and rabbit[0].start.section <= 3
    # moving Alice's furthest place back ("I haven't read past here") narrows it again
    quire.set_furthest(1, quire.text.segments(1, 0, 1)[0].locator)
    assert all(p.book_id == 2 for p in quire.search_library("Alice rabbit Bennet", mode="keyword", k=20))


@pytest.mark.parametrize("backend", vector_backends())
def test_vector_search_of_the_library_keeps_each_books_fence(tmp_path: Path, backend: str) -> None:
    quire = Quire(tmp_path / "lib", vector_backend=backend)
    quire.import_paths([book_path("en/epubjs-alice.epub"), book_path("en/standardebooks-pride-and-prejudice.epub")])
    store = inside(quire)
    rng = np.random.default_rng(7)
    with store.library.transaction() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
        store.vectors.add(conn, "fence", ids, rng.standard_normal((len(ids), 16)).astype(np.float32))
    query = rng.standard_normal(16).astype(np.float32)
    fence = {1: 40}  # Alice read to its 40th paragraph, Pride and Prejudice never opened
    hits = store.vectors.search("fence", query, 10, Filters(fence=fence))
    ends = dict(store.library.conn.execute("SELECT id, end_ordinal FROM chunks WHERE book_id = 1"))
    assert hits and all(cid in ends and ends[cid] <= 40 for cid, _ in hits)
    allowed = [cid for cid, end in ends.items() if end <= 40]
    assert len(hits) == min(10, len(allowed))
    unfenced = store.vectors.search("fence", query, 10, Filters())
    assert any(cid not in ends for cid, _ in unfenced)  # without the fence the other book comes in
    quire.close()


def test_asking_the_library_offline_quotes_the_right_book(two_books: Quire) -> None:
    quire = two_books
    events = list(quire.ask(None, "Why was Alice so small?"))
    notices = [e.error_type for e in events if isinstance(e, ErrorEvent)]
    assert notices == ["NoneStarted"] and not any(isinstance(e, CitationEvent) for e in events)  # nothing read
    _read_alice_to(quire, "Pig And Pepper")
    _read_pride(quire)
    events = list(quire.ask(None, "What did the bottle say on its label?"))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    cited = [e.citation for e in events if isinstance(e, CitationEvent)]
    assert cited and cited[0].book_id == 1 and "DRINK ME" in cited[0].quote
    assert "Alice" in text.split("\n")[0]  # the quote sits under its book's title
    assert isinstance(events[-1], Done)
    events = list(quire.ask(None, "Who is Mr. Bingley's friend at the ball?"))
    assert {e.citation.book_id for e in events if isinstance(e, CitationEvent)} == {2}
    nothing = list(quire.ask(None, "zeppelin hovercraft"))
    assert any(isinstance(e, ErrorEvent) and e.error_type == "NothingFoundInLibrary" for e in nothing)


def test_the_agent_searches_the_library_and_cites_another_books_passage(two_books: Quire) -> None:
    quire = two_books
    _read_alice_to(quire, "Pig And Pepper")
    session = ReadingSession(quire, None)
    turns = [
        [("tool", "search_library", '{"query": "Cheshire"}', "c1")],
        [("tool", "search_library", '{"query": "bottle DRINK ME"}', "c2")],
        [("tool", "cite", '{"passage": 1, "quote": "DRINK ME"}', "c3")],
        [("text", "The bottle said DRINK ME [1].")],
    ]
    model = ScriptedChatModel(turns=turns, bound=[], seen=[])
    events = list(ReadingAgent(session, model).stream("What did the bottle say?"))
    assert "search_library" in model.bound[0] and "cite" in model.bound[0]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert "Nothing the reader has read" in results[0].content  # the grin comes later in Alice: fenced
    assert "<book_text>Alice's Adventures in Wonderland, " in results[1].content
    cited = [e.citation for e in events if isinstance(e, CitationEvent)]
    assert len(cited) == 1 and cited[0].book_id == 1 and cited[0].quote == "DRINK ME"


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_search_and_ask_all_from_the_command_line(capsys: pytest.CaptureFixture[str], two_books: Quire) -> None:
    quire = two_books
    _read_alice_to(quire, "Pig And Pepper")
    _read_pride(quire)
    lib = ["--library", str(quire.folder)]
    code, out, _ = _cli(capsys, "search", "--all", "Bennet daughters", "--mode", "keyword", "--json", *lib)
    hits = json.loads(out)
    assert code == 0 and hits and all(h["book_id"] == 2 and h["start"] for h in hits)
    code, out, _ = _cli(capsys, "search", "--all", "rabbit", "--mode", "keyword", *lib)
    assert code == 0 and "Alice's Adventures in Wonderland · [" in out
    code, out, _ = _cli(capsys, "search", "--all", "Cheshire grin", "--mode", "keyword", *lib)
    assert "No passages found for 'Cheshire grin' in what you have read." in out
    code, out, _ = _cli(capsys, "search", "--all", "Cheshire grin", "--mode", "keyword", "--spoilers", *lib)
    assert "Pig And Pepper" in out or "Cheshire" in out
    code, out, _ = _cli(capsys, "ask", "--all", "What did the bottle say on its label?", "--json", *lib)
    events = [json.loads(line) for line in out.splitlines()]
    citations = [e for e in events if e["type"] == "citation"]
    assert code == 0 and citations and citations[0]["book_id"] == 1 and citations[0]["start"]
    alice = quire.position(1)  # issue 61: the receipt names each book quoted at its own fence, and what was searched
    receipt = {"book": 1, "locator": str(alice.furthest), "percent": round(alice.furthest_percent, 1)}
    assert events[-1]["fence"] == {"books": [receipt], "searched": 2}
    code, out, _ = _cli(capsys, "ask", "--all", "What did the bottle say on its label?", *lib)
    assert re.search(r"\[1\] Alice's Adventures in Wonderland \d+\.\d+", out)  # each citation names its book
    assert (
        f"(Used Alice's Adventures in Wonderland up to {alice.furthest}, {receipt['percent']:g}%: 2 books searched, "
        "each up to where you have read.)"
    ) in out
    code, out, _ = _cli(capsys, "ask", "--all", "What did the bottle say on its label?", "--json", "--spoilers", *lib)
    assert json.loads(out.splitlines()[-1])["fence"] is None  # with spoilers allowed, no fence to show
    for args, said in (
        (["search", "--all", "alice", "rabbit"], "give only the query"),
        (["search", "--all", "rabbit", "--before", "1.0"], "--before is one book's place"),
        (["search", "alice"], "or use --all"),
        (["ask"], "quire ask BOOK QUESTION, or --all QUESTION"),
        (["ask", "--all", "  "], "the question is empty"),
    ):
        code, out, err = _cli(capsys, *args, *lib)
        assert code == 1 and said in err and out == ""
