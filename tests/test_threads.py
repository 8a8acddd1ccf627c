"""Threads: answers stored as parts, history rebuilt exactly, stopped answers kept, the ask command."""

import json
from pathlib import Path

import pytest
from conftest import book_path
from dbkit import inside
from fakechat import ScriptedChatModel
from openai_mock import OpenAIMock, tool_call_deltas

from app.cli import main
from core.agent.threads_store import ChatStore
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture
def quire(alice_quire: Quire) -> Quire:
    return alice_quire


TURNS = [
    [("reasoning", "Look it up."), ("tool", "keyword_search", '{"query": "Cheshire cat grins"}', "call_a")],
    [("tool", "cite", '{"passage": 1, "quote": "grins like that"}', "call_b")],
    [("reasoning", "Answer now."), ("text", "It is a Cheshire cat [1].")],
]


def test_an_answer_is_stored_as_parts_and_rebuilds_the_model_history(quire: Quire) -> None:
    model = ScriptedChatModel(turns=[list(t) for t in TURNS])
    events = list(quire.ask(1, "Why does the cat grin?", model=model, spoilers=True))
    thread_id = events[0].thread_id
    store = ChatStore(inside(quire).library)
    user, answer = store.messages(thread_id)
    assert (user.role, user.text, answer.role, answer.status) == (
        "user",
        "Why does the cat grin?",
        "assistant",
        "complete",
    )
    assert [p.kind for p in answer.parts] == ["reasoning", "tool_call", "tool_call", "citation", "reasoning", "text"]
    assert answer.parts[1].data["id"] == "call_a" and "<book_text>" in answer.parts[1].data["result"]
    assert answer.text == "It is a Cheshire cat [1]. "
    history = store.history(thread_id)
    assert [type(m).__name__ for m in history] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    assert (
        history[1].tool_calls[0]["id"] == "call_a"
        and history[1].additional_kwargs["reasoning_content"] == "Look it up."
    )
    assert history[2].tool_call_id == "call_a" and history[4].content.startswith("Citation [1] verified")
    # the next question in the thread sends that history to the model
    follow = ScriptedChatModel(turns=[[("text", "Yes.")]])
    list(quire.ask(1, "And then?", thread_id=thread_id, model=follow, spoilers=True))
    sent = follow.seen[0]
    assert [type(m).__name__ for m in sent][1:] == [*(type(m).__name__ for m in history), "HumanMessage"]


def test_stopping_mid_answer_keeps_the_partial_answer_marked_stopped(quire: Quire) -> None:
    model = ScriptedChatModel(turns=[[("text", "The Queen of Hearts shouts off with their heads")]])
    stream = quire.ask(1, "Who shouts?", model=model, spoilers=True)
    received = []
    for event in stream:
        received.append(event)
        if event.kind == "text" and len(received) > 4:
            break
    stream.close()  # the reader pressed Stop
    answer = quire.chats.messages(received[0].thread_id)[-1]
    assert answer.status == "stopped"
    assert answer.text and "The Queen of Hearts shouts off with their heads".startswith(answer.text.strip())


def test_threads_are_listed_per_book(quire: Quire) -> None:
    list(quire.ask(1, "first question", spoilers=True))
    list(quire.ask(1, "second question", spoilers=True))
    titles = [t.title for t in quire.chats.threads(1)]
    assert titles == ["second question", "first question"]


def test_cli_ask_with_a_provider_streams_json_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_LLM_API_KEY", "sk-cli-test")
    lib = ["--library", str(tmp_path / "lib")]
    main(["import", str(book_path("en/epubjs-alice.epub")), *lib])
    capsys.readouterr()
    responses = [tool_call_deltas("c1", "keyword_search", {"query": "White Rabbit"}), [{"content": "A watch."}]]
    with OpenAIMock(responses) as mock:
        code = main(["ask", "1", "What does the rabbit carry?", "--spoilers", "--provider", "openai-compatible",
                     "--model", "mock", "--base-url", mock.url, "--json", *lib])  # fmt: skip
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert [e["type"] for e in events if e["type"] in ("tool_call_started", "tool_call_ready", "tool_result", "text", "done")] == [
        "tool_call_started", "tool_call_ready", "tool_result", "text", "done"]  # fmt: skip
    assert events[-1]["reason"] == "finished" and events[-1]["fence"] is None  # --spoilers: no fence to show
    quire = Quire(tmp_path / "lib")
    quire.save_position(1, "4.2")  # read into chapter 2 (a reading move: the fence comes with it)
    read = quire.position(1)
    quire.close()
    responses = [tool_call_deltas("c1", "keyword_search", {"query": "White Rabbit"}), [{"content": "A watch."}]]
    with OpenAIMock(responses) as mock:
        main(["ask", "1", "What does the rabbit carry?", "--provider", "openai-compatible", "--model", "mock",
              "--base-url", mock.url, "--json", *lib])  # fmt: skip
    fence = [json.loads(line) for line in capsys.readouterr().out.splitlines()][-1]["fence"]
    assert fence["locator"] == str(read.furthest) and fence["sent"]  # issue 61: what the AI was given, by place
    from core import parse_locator

    assert all(parse_locator(p["start"]).sort_key() <= read.furthest.sort_key() for p in fence["sent"])
    with OpenAIMock([401]) as mock:
        code = main(
            ["ask", "1", "again", "--provider", "openai-compatible", "--model", "mock", "--base-url", mock.url, *lib]
        )
    assert code == 1 and "refused the API key" in capsys.readouterr().err


def test_a_selected_passage_reaches_the_agent_as_its_own_tool(quire: Quire) -> None:
    from core.agent.events import ToolResult

    passage = "Alice was beginning to get very tired of sitting by her sister on the bank"
    turns = [[("tool", "selected_text", "{}", "call_s")], [("text", "She is bored.")]]
    model = ScriptedChatModel(turns=[list(t) for t in turns])
    events = list(quire.ask(1, "Why is she tired?", model=model, spoilers=True, selection=passage))
    assert "selected_text" in model.bound[0]  # offered because something is selected
    [result] = [e for e in events if isinstance(e, ToolResult)]
    assert passage in result.content  # the whole passage, not the first 200 characters pasted into the question
    plain = ScriptedChatModel(turns=[[("text", "Nothing selected.")]])
    list(quire.ask(1, "Why?", model=plain, spoilers=True))
    assert "selected_text" not in plain.bound[0]
