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


def test_quire_recap_streams_the_answer_events_with_citations(tmp_path, capsys, monkeypatch) -> None:
    library = str(tmp_path / "lib")
    assert cli(["--library", library, "import", str(book_path("en/epubjs-alice.epub"))]) == 0
    capsys.readouterr()
    assert cli(["--library", library, "recap", "1", "--json"]) == 1  # not started: said, typed
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["type"] == "error" and events[0]["error_type"] == "NotStarted"
    assert events[-1]["fence"] == {"locator": None, "percent": 0.0}  # issue 61: nothing of the book could be used
    assert cli(["--library", library, "position", "1", "4.10"]) == 0
    capsys.readouterr()
    assert cli(["--library", library, "recap", "1", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["type"] == "text" and "**Down The Rabbit-Hole**" in events[0]["text"]
    assert events[-1]["fence"]["locator"] == "4.10" and events[-1]["fence"]["percent"] > 0  # the receipt
    cited = [e for e in events if e["type"] == "citation"]
    assert cited and [c["passage"] for c in cited] == list(range(1, len(cited) + 1))
    assert all(int(c["start"].split(".")[0]) <= 4 for c in cited) and events[-1]["type"] == "done"
    from openai_mock import OpenAIMock

    monkeypatch.setenv("QUIRE_LLM_API_KEY", "sk-cli-test")
    summaries = [[{"content": "Alice falls down a rabbit-hole. [1]"}], [{"content": "Alice cries a pool. [2]"}]]
    with OpenAIMock(summaries) as mock:
        code = cli(["--library", library, "recap", "1", "--provider", "openai-compatible", "--model", "mock",
                    "--base-url", mock.url, "--json"])  # fmt: skip
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and len(mock.requests) == 2 and events[0]["type"] == "thread"
    assert "".join(e["text"] for e in events if e["type"] == "text") == (
        "**Down The Rabbit-Hole**\nAlice falls down a rabbit-hole. [1]\n\n**The Pool Of Tears**\nAlice cries a pool. [2]"
    )
    assert [e["type"] for e in events[-3:]] == ["citation", "citation", "done"]


def _sent_sentences(request: dict) -> list[str]:
    import re

    prompt = request["body"]["messages"][-1]["content"]
    return re.findall(r"\[\d+\] <book_text>(.*?)</book_text>", prompt)


def test_with_a_provider_each_chapter_is_summarised_once_from_before_the_place_and_cited(quire: Quire) -> None:
    """Issue 28: the story so far by the AI. Each chapter's key sentences (all before the place) are sent; a whole
    chapter's summary is kept, so a later recap asks only for the chapters read since; a summary citing nothing
    that was sent is replaced by the chapter's own key sentences; a provider failure ends the answer typed, after
    the chapters already told."""
    from openai_mock import OpenAIMock

    from core import ProviderConfig
    from core.agent.events import CitationEvent, Done, ErrorEvent, TextDelta

    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    quire.save_position(book, "5.6")  # chapters 3 and 4 read, chapter 5 begun
    first_round = [
        [{"content": "Alice follows a White Rabbit [1] down a hole "}, {"content": "and falls a long way. [2][3]"}],
        [{"content": "Alice meets the Hatter and the Queen. [99]"}],  # cites nothing it was sent
        [{"content": "Alice and the animals dry themselves. [1]"}],
    ]
    second_round = [
        [{"content": "Alice cries a pool of tears and swims in it. [2]"}],
        [{"content": "The animals run a race; everyone wins. [1][4]"}],
        401,
    ]
    with OpenAIMock([*first_round, *second_round]) as mock:
        config = ProviderConfig("openai-compatible", "test-model", base_url=mock.url)
        events = list(quire.ask(book, "The story so far", provider=config, recap=True))
        bound = quire.position(book).furthest_ordinal
        assert len(mock.requests) == 3  # one per chapter begun, the title page left out
        for request in mock.requests:
            prompt = request["body"]["messages"][-1]["content"]
            assert "not use anything you remember" in prompt and len(_sent_sentences(request)) >= 3
            for sentence in _sent_sentences(request):  # every sentence sent is the book's, before the place
                assert any(sentence in s.text for s in quire.text.segments(book, 0, bound + 1))
        text = "".join(e.text for e in events if isinstance(e, TextDelta))
        citations = [e.citation for e in events if isinstance(e, CitationEvent)]
        assert (
            "**Down The Rabbit-Hole**\nAlice follows a White Rabbit [1] down a hole and falls a long way. [2][3]"
            in text
        )
        assert "Hatter" not in text and "[99]" not in text  # the uncited line is not shown ...
        assert "**The Pool Of Tears**\n“" in text  # ... the chapter's own sentences are, quoted
        assert "dry themselves. [6]" in text and [c.passage for c in citations] == [1, 2, 3, 4, 5, 6]
        for citation in citations:  # each the book's own words, before the place
            assert quire.text.ordinal_of(book, citation.start) <= bound
            segment = quire.text.show(book, citation.start.segment_locator)[0]
            assert segment.text[citation.start.offset : citation.end.offset] == citation.quote
        fence = {
            "locator": str(quire.position(book).furthest),
            "percent": round(quire.position(book).furthest_percent, 1),
        }
        assert events[-1] == Done(fence=fence)  # issue 61: the receipt of what the recap could use

        quire.save_position(book, "6.3")  # read on: chapter 5 whole, chapter 6 begun
        again = list(quire.ask(book, "The story so far", provider=config, recap=True))
        assert len(mock.requests) == 6  # chapter 3 was kept; 4 (uncited before), 5 (now whole) and 6 asked
        told = "".join(e.text for e in again if isinstance(e, TextDelta))
        assert "Alice follows a White Rabbit [1]" in told and "swims in it. [4]" in told and "everyone wins" in told
        assert isinstance(again[-2], ErrorEvent) and again[-2].error_type == "ProviderError"
        assert again[-1].reason == "error" and again[-1].fence == {
            "locator": "6.3",
            "percent": again[-1].fence["percent"],
        }
