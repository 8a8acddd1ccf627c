"""The agent through real provider clients (ChatOpenAI, ChatDeepSeek) against a local SSE server."""

import pytest
from openai_mock import OpenAIMock, tool_call_deltas

from core.agent.events import CitationEvent, Done, ErrorEvent, ReasoningDelta, TextDelta, ToolCallStarted, ToolResult
from core.agent.providers import ProviderConfig, make_chat_model
from core.agent.runner import ReadingAgent
from core.agent.tools import ReadingSession
from core.errors import ProviderError
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture
def quire(alice_quire: Quire) -> Quire:
    return alice_quire


def _agent(quire: Quire, mock: OpenAIMock, kind: str = "openai-compatible", retries: int = 0) -> ReadingAgent:
    config = ProviderConfig(kind, "mock-model", base_url=mock.url, max_retries=retries, timeout=10)
    return ReadingAgent(ReadingSession(quire, 1, spoilers_allowed=True), make_chat_model(config), provider=config)


def test_streamed_tool_call_then_cited_answer(quire: Quire, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIRE_LLM_API_KEY", "sk-local-test")
    responses = [
        tool_call_deltas("call_1", "keyword_search", {"query": "Cheshire cat grins"}),
        tool_call_deltas("call_2", "cite", {"passage": 1, "quote": "grins like that"}),
        [{"content": "It is a Cheshire cat"}, {"content": " [1]."}],
    ]
    with OpenAIMock(responses) as mock:
        events = list(_agent(quire, mock).stream("Why does the cat grin?"))
    kinds = [e.kind for e in events]
    assert (
        kinds.index("tool_call_started")
        < kinds.index("tool_call_ready")
        < kinds.index("tool_result")
        < kinds.index("text")
    )
    assert isinstance(events[0], ToolCallStarted) and events[0].name == "keyword_search"
    assert [e.citation.quote for e in events if isinstance(e, CitationEvent)] == ["grins like that"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It is a Cheshire cat [1]."
    assert events[-1] == Done("finished")
    first = mock.requests[0]
    assert {k.lower(): v for k, v in first["headers"].items()}["authorization"] == "Bearer sk-local-test"
    offered = {t["function"]["name"] for t in first["body"]["tools"]}
    assert offered == {
        "list_books", "reading_progress", "search_notes", "table_of_contents", "read_chapter",
        "current_chapter", "around_position", "keyword_search", "cite", "search_library",
    }  # fmt: skip
    tool_reply = mock.requests[1]["body"]["messages"][-1]
    assert tool_reply["role"] == "tool" and "<book_text>" in tool_reply["content"]


def test_deepseek_reasoning_is_streamed_and_sent_back_on_tool_turns(
    quire: Quire, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek-test")
    responses = [
        [{"reasoning_content": "The reader asks about the rabbit; "}, {"reasoning_content": "search first."},
         *tool_call_deltas("call_1", "keyword_search", {"query": "White Rabbit watch"})],
        [{"reasoning_content": "Found it."}, {"content": "The White Rabbit carries a watch."}],
    ]  # fmt: skip
    with OpenAIMock(responses, strict_deepseek=True) as mock:
        events = list(_agent(quire, mock, kind="deepseek").stream("What does the rabbit carry?"))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)).startswith(
        "The reader asks about the rabbit"
    )
    assert events[-1] == Done("finished"), [e for e in events if isinstance(e, ErrorEvent)]
    assistant = next(m for m in mock.requests[1]["body"]["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_content"] == "The reader asks about the rabbit; search first."


@pytest.mark.parametrize(
    ("status", "message"),
    [(401, "refused the API key"), (404, "does not know the model 'mock-model'"), (429, "rate-limiting")],
)
def test_provider_errors_end_the_run_with_a_clear_message(
    quire: Quire, status: int, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_LLM_API_KEY", "sk-secret-777")
    with OpenAIMock([status]) as mock:
        events = list(_agent(quire, mock).stream("hello"))
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert message in error.message and "sk-secret-777" not in error.message
    assert events[-1] == Done("error")


def test_a_stream_cut_in_half_keeps_what_arrived(quire: Quire) -> None:
    with OpenAIMock([("cut", [{"content": "The Queen"}, {"content": " shouts"}])]) as mock:
        events = list(_agent(quire, mock).stream("Who shouts?"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The Queen shouts"
    assert isinstance(events[-2], ErrorEvent) and events[-1] == Done("error")


def test_connection_refused_is_clear(quire: Quire) -> None:
    from httpkit import closed_port

    config = ProviderConfig(
        "ollama", "llama3", base_url=f"http://127.0.0.1:{closed_port()}/v1", max_retries=0, timeout=3
    )
    agent = ReadingAgent(ReadingSession(quire, 1, spoilers_allowed=True), make_chat_model(config), provider=config)
    events = list(agent.stream("hi"))
    assert "cannot connect to 127.0.0.1" in next(e for e in events if isinstance(e, ErrorEvent)).message


def test_a_missing_key_says_where_to_add_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("QUIRE_LLM_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="no API key for openai: add one in Settings"):
        make_chat_model(ProviderConfig("openai", "gpt-4o-mini"))
    with pytest.raises(ProviderError, match="unknown provider"):
        make_chat_model(ProviderConfig("clippy", "x"))


def test_tool_results_reach_the_provider_only_once(quire: Quire) -> None:
    responses = [tool_call_deltas("c1", "keyword_search", {"query": "rabbit"}), [{"content": "ok"}]]
    with OpenAIMock(responses) as mock:
        events = list(_agent(quire, mock).stream("rabbit?"))
    assert len([e for e in events if isinstance(e, ToolResult)]) == 1
    assert sum(m["role"] == "tool" for m in mock.requests[1]["body"]["messages"]) == 1


def test_anthropic_extended_thinking_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    model = make_chat_model(ProviderConfig("anthropic", "claude-sonnet-4-5", thinking_tokens=4000, max_tokens=2048))
    assert model.thinking == {"type": "enabled", "budget_tokens": 4000}
    assert model.max_tokens >= 5024 and model.temperature == 1.0
    plain = make_chat_model(ProviderConfig("anthropic", "claude-sonnet-4-5"))
    assert plain.thinking is None


def test_check_connection_lists_models_and_explains_failures() -> None:
    from httpkit import closed_port

    from core.agent.connection import check_connection
    from core.agent.provider_config import store_key
    from core.errors import ProviderError
    from core.network_policy import LocalOnlyError, NetworkPolicy
    from platform_adapters.memory import MemorySecrets

    secrets = MemorySecrets()
    with OpenAIMock([]) as mock:
        config = ProviderConfig("openai-compatible", "test-model", base_url=mock.url)
        assert check_connection(config, secrets) == "connected: 2 models, including 'test-model'"
        other = ProviderConfig("openai-compatible", "gpt-9", base_url=mock.url)
        assert check_connection(other, secrets).startswith("connected: 2 models, but not 'gpt-9'")
        store_key(secrets, "provider:deepseek", "sk-revoked", mock.url)
        with pytest.raises(ProviderError, match="refused the API key") as refused:
            check_connection(ProviderConfig("deepseek", "deepseek-chat", base_url=mock.url), secrets)
        assert "sk-revoked" not in str(refused.value)
        assert mock.requests[-1]["headers"]["authorization"] == "Bearer sk-revoked"
        check_connection(config, secrets, NetworkPolicy(local_only=True))  # 127.0.0.1 is local: allowed
    with pytest.raises(ProviderError, match="cannot reach"):
        check_connection(ProviderConfig("ollama", "llama3", base_url=f"http://127.0.0.1:{closed_port()}/v1"))
    with pytest.raises(LocalOnlyError):
        check_connection(ProviderConfig("openai", "gpt-4o-mini"), secrets, NetworkPolicy(local_only=True))


def test_a_provider_that_cannot_be_reached_gives_the_offline_answer_and_says_so(quire: Quire) -> None:
    """Issue 60 item 5: with a provider saved that cannot be reached, the chat showed only "cannot connect to
    localhost…". The offline answer stands in, after a notice saying the provider could not be reached."""
    from httpkit import closed_port

    from core import NOTICES

    config = ProviderConfig(
        "ollama", "llama3", base_url=f"http://127.0.0.1:{closed_port()}/v1", max_retries=0, timeout=3
    )
    quire.save_position(1, quire.text.segments(1, quire.book(1).segment_count - 1, 1)[0].locator)
    events = list(quire.ask(1, "What did the bottle say on its label?", provider=config))
    notice = next(e for e in events if isinstance(e, ErrorEvent))
    assert notice.error_type == "ProviderUnreachable" and notice.error_type in NOTICES
    assert "cannot connect to 127.0.0.1" in notice.message and "offline" in notice.message
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip()  # the book's own words
    assert isinstance(events[-1], Done) and events[-1].reason != "error"
    thread = quire.chats.store().history(next(e.thread_id for e in events if hasattr(e, "thread_id")))
    assert thread  # the answer is kept with its thread, as any other
