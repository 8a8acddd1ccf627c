"""The chat view-model: the part reducer, and whole answers from a local OpenAI-compatible server.

The reducer turns events into parts (with throttling, stop and errors); the answers go through the real agent.
"""

import threading

from openai_mock import OpenAIMock, tool_call_deltas
from waiting import Threads

from app.screens.chat.model import ChatViewModel, PartReducer
from core.agent.citations import Citation
from core.agent.events import (
    CitationEvent,
    Done,
    ErrorEvent,
    ReasoningDelta,
    TextDelta,
    ToolArgsDelta,
    ToolCallReady,
    ToolCallStarted,
    ToolResult,
)
from core.agent.message import Message
from core.agent.provider_config import store_key
from core.agent.providers import ProviderConfig
from core.books.locator import Locator
from core.services import Quire
from platform_adapters.memory import MemorySecrets


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_reducer_builds_parts_in_stream_order_and_throttles_text() -> None:
    clock = Clock()
    message = Message("assistant", status="streaming")
    reducer = PartReducer(message, clock)
    reducer.apply(ReasoningDelta("Look for "))
    assert reducer.flush_due()  # a new part is drawn at once
    reducer.apply(ReasoningDelta("the cat."))
    assert not reducer.flush_due()  # more of the same part: wait for the interval
    reducer.apply(ToolCallStarted("c1", "keyword_search", 0))
    assert reducer.flush_due() and [p.kind for p in message.parts] == ["reasoning", "tool_call"]
    assert message.parts[1].state == "running" and message.parts[1].data["args"] is None  # card before its arguments
    reducer.apply(ToolArgsDelta(0, '{"query": '))
    reducer.apply(ToolArgsDelta(0, '"cat"}'))
    reducer.apply(ToolCallReady("c1", "keyword_search", {"query": "cat"}))
    reducer.apply(ToolResult("c1", "keyword_search", "[1] the cat grins"))
    assert message.parts[1].text == '{"query": "cat"}' and message.parts[1].state == "done"
    reducer.flush_due()
    reducer.apply(TextDelta("The cat"))
    assert reducer.flush_due()
    for word in (" grins", " because", " it"):
        clock.now += 0.03
        reducer.apply(TextDelta(word))
        assert not reducer.flush_due()  # 30 ms apart: no redraw yet
    clock.now += 0.02
    assert reducer.flush_due()  # 110 ms after the last redraw
    reducer.apply(CitationEvent(Citation(1, 1, Locator(8, 2, 10), Locator(8, 2, 25), "grins like that")))
    reducer.apply(Done())
    assert message.text == "The cat grins because it" and message.status == "complete"
    assert [(str(c.start), c.quote) for c in message.citations] == [("8.2:10", "grins like that")]


def test_reducer_marks_errors_and_stops() -> None:
    message = Message("assistant", status="streaming")
    reducer = PartReducer(message, Clock())
    reducer.apply(TextDelta("The Queen"))
    reducer.apply(ToolCallStarted("c1", "read_chapter", 0))
    reducer.apply(ErrorEvent("The provider closed the connection mid-answer: what arrived is kept."))
    reducer.apply(Done("error"))
    assert [p.kind for p in message.parts] == ["text", "tool_call", "error"]
    assert message.status == "error" and message.parts[1].state == "error"  # never left spinning
    stopped = Message("assistant", status="streaming")
    reducer = PartReducer(stopped, Clock())
    reducer.apply(TextDelta("Half an"))
    reducer.apply(Done("stopped"))
    assert stopped.status == "stopped" and stopped.text == "Half an"


def _script() -> list:
    return [
        [{"reasoning_content": "Search for the cat."}, *tool_call_deltas("c1", "keyword_search", {"query": "Cheshire cat grins"})],
        tool_call_deltas("c2", "cite", {"passage": 1, "quote": "grins like that"}),
        [{"content": "The cat grins "}, {"content": "because it is a Cheshire cat [1]."}],
    ]  # fmt: skip


def test_an_answer_streams_from_a_provider_and_is_saved(alice_quire: Quire) -> None:
    threads = Threads()
    changes = []
    with OpenAIMock(_script()) as mock:
        config = ProviderConfig("deepseek", "deepseek-reasoner", base_url=mock.url)  # streams its reasoning
        secrets = MemorySecrets()
        store_key(secrets, "provider:deepseek", "sk-test", mock.url)
        chat = ChatViewModel(
            alice_quire, 1, spawn=threads, provider=lambda: config, secrets=secrets, spoilers=lambda: True
        )
        assert chat.messages == [] and chat.mode == "deepseek"
        chat.ask("Why does the cat grin?", lambda: changes.append([p.kind for p in chat.messages[-1].parts]))
        threads.join()
    answer = chat.messages[-1]
    assert [p.kind for p in answer.shown_parts] == ["reasoning", "tool_call", "tool_call", "text"]
    assert answer.text == "The cat grins because it is a Cheshire cat [1]." and answer.status == "complete"
    assert answer.parts[1].state == "done" and answer.parts[1].data["result"].startswith("[1] ")
    [citation] = answer.citations
    assert "grins like that" in alice_quire.text.show(1, citation.start.segment_locator)[0].text
    assert ["reasoning", "tool_call"] in changes  # the tool card was drawn before any text arrived
    assert not chat.streaming and chat.thread_id is not None
    again = ChatViewModel(alice_quire, 1, spawn=threads)  # reopening the book shows the latest thread as it was
    assert [m.role for m in again.messages] == ["user", "assistant"]
    assert again.messages[1].text == answer.text and again.messages[1].citations[0].start == citation.start
    assert again.messages[1].parts == answer.parts  # stored and streamed folds agree


def test_stop_keeps_the_partial_answer_marked_stopped(alice_quire: Quire) -> None:
    threads = Threads()
    release = threading.Event()
    chat = ChatViewModel(alice_quire, 1, spawn=threads, spoilers=lambda: True)
    original = chat.events

    def slow_events(question, selection="", recap=False):  # the offline answer, with a pause after its first event
        for index, event in enumerate(original(question, selection)):
            yield event
            if index == 1:
                release.wait(10)

    chat.events = slow_events
    chat.ask("White Rabbit", lambda: None)
    while len(chat.messages[-1].parts) < 1:
        pass
    chat.stop()
    assert chat.messages[-1].status == "stopped"  # shown at once, while the worker still waits on the stream
    release.set()
    threads.join()
    assert chat.messages[-1].status == "stopped" and chat.messages[-1].text
    saved = ChatViewModel(alice_quire, 1, spawn=threads).messages[-1]
    assert saved.status == "stopped" and saved.text == chat.messages[-1].text


def test_threads_new_rename_delete_and_regenerate(alice_quire: Quire) -> None:
    threads = Threads()
    chat = ChatViewModel(alice_quire, 1, spawn=threads, spoilers=lambda: True)
    assert chat.mode == "offline"
    chat.ask("White Rabbit", lambda: None)
    threads.join()
    first = chat.thread_id
    assert chat.messages[-1].citations  # offline answers cite the passages they found
    chat.new_thread()
    chat.ask("Queen of Hearts", lambda: None)
    threads.join()
    assert chat.thread_id != first and next(t.id for t in chat.threads()) == chat.thread_id
    chat.rename("Royalty 皇后")
    assert chat.title == "Royalty 皇后"
    chat.regenerate(lambda: None)
    threads.join()
    assert [m.role for m in chat.messages] == ["user", "assistant"]  # the answer replaced, not added
    assert len(alice_quire.chats.messages(chat.thread_id)) == 2
    chat.delete_thread()
    assert chat.thread_id == first and [t.id for t in chat.threads()] == [first]


def test_what_the_panel_drew_is_what_a_reopened_thread_shows(alice_quire: Quire) -> None:
    """One fold: the parts drawn while streaming are the parts stored, error and unfinished tool call included."""
    from dbkit import inside

    from core.agent.message import MessageFold
    from core.agent.threads_store import ChatStore

    live = Message("assistant", status="streaming", book_id=1)
    fold = MessageFold(live)
    for event in (
        TextDelta("Looking"),
        ToolCallStarted("c1", "read_chapter", 0),
        ToolArgsDelta(0, '{"entry": '),  # cut mid-arguments
        ErrorEvent("The provider closed the connection mid-answer: what arrived is kept."),
        Done("error"),
    ):
        fold.add(event)
    assert [(p.kind, p.state) for p in live.parts] == [("text", "done"), ("tool_call", "error"), ("error", "done")]
    store = ChatStore(inside(alice_quire).library)
    thread = store.new_thread(1, "q")
    store.add_message(thread, "assistant", live.parts, live.status)
    [saved] = alice_quire.chats.messages(thread)
    assert saved.status == "error" and [(p.kind, p.state, p.text) for p in saved.parts] == [
        ("text", "done", "Looking"),
        ("tool_call", "error", ""),  # what streamed of the arguments is not stored
        ("error", "done", "The provider closed the connection mid-answer: what arrived is kept."),
    ]
    assert store.history(thread)[0].tool_calls == []  # a call without arguments is not replayed to the model
