"""The story so far, offline: key sentences of each chapter read, cited, and nothing past the place (issue 28)."""

import json

import pytest
from conftest import book_path

from app.cli import main as cli
from core.companion.recap import EARLIER, LATEST, rank
from core.services import Quire

pytestmark = pytest.mark.storage  # new tables and queries: CI runs them again on the phones' backend (apsw)


def test_the_central_sentence_of_a_chapter_ranks_first() -> None:
    sentences = [
        "The whale rose beside the ship and the whale dived again.",
        "Ahab watched the whale from the deck of the ship.",
        "The cook burned the biscuits.",
        "The ship turned to follow the whale, and Ahab called the boats.",
    ]
    scores = rank(sentences)
    assert scores.index(min(scores)) == 2  # the sentence that shares nothing with the others
    assert rank(["one", "two"]) == [1.0, 1.0]  # too few to rank: kept as they come


def test_each_chapter_read_is_told_up_to_the_place_and_no_further(quire: Quire) -> None:
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book
    assert quire.companion.recap(book.id) == []  # not started: nothing to tell
    place = quire.text.segments(book.id, book.segment_count // 3, 1)[0]
    quire.save_position(book.id, place.locator)
    chapters = quire.companion.recap(book.id)
    assert len(chapters) > 20 and chapters[-1].partial and not any(c.partial for c in chapters[:-1])
    assert chapters[-1].section == place.locator.section
    for chapter in chapters:
        for quote in chapter.quotes:
            assert quire.text.ordinal_of(book.id, quote.start) <= place.ordinal  # nothing past the place
            segment = quire.text.show(book.id, quote.start.segment_locator)[0]
            assert segment.text[quote.start.offset : quote.end.offset] == quote.quote  # the book's own words
    assert {len(c.quotes) for c in chapters[-2:]} <= set(range(1, LATEST + 1))
    assert max(len(c.quotes) for c in chapters[:-2]) == EARLIER  # fuller for the latest chapters only
    ordinals = [quire.text.ordinal_of(book.id, q.start) for c in chapters for q in c.quotes]
    assert ordinals == sorted(ordinals)  # told in the book's order


def test_whole_chapters_are_ranked_once(quire: Quire, monkeypatch) -> None:
    from core.companion import recap as recap_module

    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    quire.save_position(book.id, "6.10")
    quire.companion.recap(book.id)
    ranked = []
    real = recap_module.rank
    monkeypatch.setattr(recap_module, "rank", lambda sentences: ranked.append(len(sentences)) or real(sentences))
    quire.companion.recap(book.id)
    assert len(ranked) == 1  # only the chapter the reader is in is ranked again (it grows as they read)


def test_quire_recap_streams_the_answer_events_with_citations(tmp_path, capsys) -> None:
    library = str(tmp_path / "lib")
    assert cli(["--library", library, "import", str(book_path("en/epubjs-alice.epub"))]) == 0
    capsys.readouterr()
    assert cli(["--library", library, "recap", "1", "--json"]) == 1  # not started: said, typed
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["type"] == "error" and events[0]["error_type"] == "NotStarted"
    assert cli(["--library", library, "position", "1", "4.10"]) == 0
    capsys.readouterr()
    assert cli(["--library", library, "recap", "1", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["type"] == "text" and "**Down The Rabbit-Hole**" in events[0]["text"]
    cited = [e for e in events if e["type"] == "citation"]
    assert cited and [c["passage"] for c in cited] == list(range(1, len(cited) + 1))
    assert all(int(c["start"].split(".")[0]) <= 4 for c in cited) and events[-1]["type"] == "done"
