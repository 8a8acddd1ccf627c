"""Run the reading agent (LangChain ``create_agent``) and turn its stream into Quire's events."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware, ToolCallLimitMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
from langgraph.errors import GraphRecursionError

from core.agent.citations import Citation
from core.agent.events import (
    AgentEvent,
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
from core.agent.middleware import ReadingContextMiddleware, RepeatedCallGuard, ToolTimeoutMiddleware
from core.agent.prompt import SYSTEM_PROMPT
from core.agent.provider_config import ProviderConfig
from core.agent.providers import describe_provider_error
from core.agent.tools import ReadingSession
from core.errors import ProviderError, QuireError, StreamCut
from core.redact import redact

TOOL_CALL_LIMIT = 12
TOOL_TIMEOUT_SECONDS = 20.0
PROVIDER_ERRORS: tuple[type[BaseException], ...] = (httpx.HTTPError, ProviderError)
for _sdk in ("openai", "anthropic", "httpx2"):  # each provider SDK's error base, where it is installed
    try:
        _module = __import__(_sdk)
        PROVIDER_ERRORS += (getattr(_module, "APIError", None) or _module.HTTPError,)
    except ImportError:  # pragma: no cover - only without that SDK
        pass


def complete(
    model: BaseChatModel,
    prompt: str,
    on_text: Callable[[str], object] | None = None,
    stop: threading.Event | None = None,
) -> str:
    """A model's reply to one prompt outside the agent (X-Ray's lines, a word explained, a translation), streamed
    as every answer is (some OpenAI-compatible servers only stream); ProviderError when it fails.

    ``on_text`` is told the reply so far as it comes; ``stop``, once set, ends the reply there (what came is
    returned, and the stream is closed)."""
    text = ""
    try:
        for chunk in model.stream(prompt):
            text += str(chunk.content)
            if on_text is not None:
                on_text(text)
            if stop is not None and stop.is_set():
                break
    except PROVIDER_ERRORS as error:
        raise ProviderError(describe_provider_error(error) or "the AI provider failed") from error
    return text.strip()


RECURSION_LIMIT = 60  # graph steps; a backstop behind the tool-call limit


class ReadingAgent:
    """One conversation about one book (or the library), with a chat model and the book tools."""

    def __init__(
        self,
        session: ReadingSession,
        model: BaseChatModel,
        *,
        tool_call_limit: int = TOOL_CALL_LIMIT,
        tool_timeout: float = TOOL_TIMEOUT_SECONDS,
        provider: ProviderConfig | None = None,
    ) -> None:
        self.session = session
        self.provider = provider
        self.guard = RepeatedCallGuard()
        self.limit = ToolCallLimitMiddleware(run_limit=tool_call_limit, exit_behavior="end")
        self.agent = create_agent(
            model,
            session.tools(),
            system_prompt=SYSTEM_PROMPT,
            middleware=[
                ReadingContextMiddleware(session),
                self.guard,
                self.limit,
                ToolTimeoutMiddleware(tool_timeout),
                *_summarization(model, provider),
            ],
        )

    def stream(self, question: str, history: list[Any] | None = None) -> Iterator[AgentEvent]:
        """Events in the order they happen; always ends with Done."""
        messages = [*(history or []), {"role": "user", "content": question}]
        tool_calls = 0
        try:
            stream = self.agent.stream(
                {"messages": messages},
                stream_mode=["messages", "updates"],
                version="v2",
                config={"recursion_limit": RECURSION_LIMIT},
            )
            for item in stream:
                if item["type"] == "messages":
                    yield from _message_events(item["data"][0])
                elif item["type"] == "updates":
                    for node, update in item["data"].items():
                        if self.provider is not None and node == "model" and _cut_short(update or {}):
                            yield ErrorEvent(
                                describe_provider_error(StreamCut(), self.provider) or "the answer broke off",
                                "StreamCut",
                            )
                            yield Done("error")
                            return
                        for event in _update_events(node, update or {}):
                            tool_calls += isinstance(event, ToolCallReady)
                            yield event
        except GraphRecursionError:
            yield ErrorEvent("the agent took too many steps and was stopped; try a narrower question", "StepLimit")
            yield Done("limit")
            return
        except PROVIDER_ERRORS as error:
            message = describe_provider_error(error, self.provider) or f"the AI provider failed: {redact(str(error))}"
            yield ErrorEvent(message, "ProviderUnreachable" if _unreachable(error) else _error_type(error))
            yield Done("error")
            return
        if self.guard.repeated:
            yield Done("repeated")
        elif self.limit.run_limit is not None and tool_calls >= self.limit.run_limit:
            yield Done("limit")
        else:
            yield Done()


def _unreachable(error: BaseException) -> bool:
    """Whether the provider was never reached (the SDK's connection error, httpx's connect error or timeout on
    connecting), as opposed to one that answered with an error."""
    cause: BaseException | None = error
    while cause is not None:
        if type(cause).__name__ in ("APIConnectionError", "APITimeoutError", "ConnectError", "ConnectTimeout"):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _error_type(error: BaseException) -> str:
    """The core error type a provider failure reads as (ours when one was raised inside the SDK)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, QuireError):
            return type(cause).__name__
        cause = cause.__cause__ or cause.__context__
    return "ProviderError"


def _summarization(model: BaseChatModel, provider: ProviderConfig | None) -> list[Any]:
    """Old turns are summarised only when a real conversation nears the model's context window."""
    if provider is None:
        return []
    return [
        SummarizationMiddleware(model, trigger=("tokens", int(provider.context_window * 0.75)), keep=("messages", 20))
    ]


def _cut_short(update: dict[str, Any]) -> bool:
    """True when the model's message never got a finish reason: its stream broke off."""
    messages = [m for m in update.get("messages", []) if isinstance(m, AIMessage)]
    return (
        bool(messages)
        and not any(m.response_metadata.get("finish_reason") for m in messages)
        and any(m.response_metadata.get("model_provider") for m in messages)
    )


def _message_events(chunk: Any) -> Iterator[AgentEvent]:
    if not isinstance(chunk, AIMessageChunk):
        return
    content = chunk.content
    if isinstance(content, str):
        if content:
            yield TextDelta(content)
    else:
        for block in content:
            if isinstance(block, str):
                yield TextDelta(block)
            elif block.get("type") == "reasoning" and block.get("reasoning"):
                yield ReasoningDelta(block["reasoning"])
            elif block.get("type") == "thinking" and block.get("thinking"):  # Anthropic's raw blocks
                yield ReasoningDelta(block["thinking"])
            elif block.get("type") == "text" and block.get("text"):
                yield TextDelta(block["text"])
    reasoning = chunk.additional_kwargs.get("reasoning_content")
    if reasoning:
        yield ReasoningDelta(reasoning)
    for piece in chunk.tool_call_chunks:
        name, args = piece.get("name"), piece.get("args")
        if name:
            yield ToolCallStarted(piece.get("id") or "", name, piece.get("index") or 0)
        if args:
            yield ToolArgsDelta(piece.get("index") or 0, args)


def _update_events(node: str, update: dict[str, Any]) -> Iterator[AgentEvent]:
    for message in update.get("messages", []):
        if isinstance(message, AIMessage) and node == "model":
            for call in message.tool_calls:
                yield ToolCallReady(call.get("id") or "", call["name"], call.get("args", {}))
        elif isinstance(message, ToolMessage):
            content = message.content if isinstance(message.content, str) else json.dumps(message.content)
            yield ToolResult(message.tool_call_id, message.name or "", content, message.status == "error")
            if isinstance(message.artifact, Citation):  # the cite tool's verified citation, with its result
                yield CitationEvent(message.artifact)
