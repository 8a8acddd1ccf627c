"""Run the reading agent (LangChain ``create_agent``) and turn its stream into Quire's events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallLimitMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
from langgraph.errors import GraphRecursionError

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
from core.agent.middleware import ReadingContextMiddleware, RepeatedCallGuard
from core.agent.prompt import SYSTEM_PROMPT
from core.agent.tools import ReadingSession

TOOL_CALL_LIMIT = 12
RECURSION_LIMIT = 60  # graph steps; a backstop behind the tool-call limit


class ReadingAgent:
    """One conversation about one book (or the library), with a chat model and the book tools."""

    def __init__(
        self, session: ReadingSession, model: BaseChatModel, *, tool_call_limit: int = TOOL_CALL_LIMIT
    ) -> None:
        self.session = session
        self.guard = RepeatedCallGuard()
        self.limit = ToolCallLimitMiddleware(run_limit=tool_call_limit, exit_behavior="end")
        self.agent = create_agent(
            model,
            session.tools(),
            system_prompt=SYSTEM_PROMPT,
            middleware=[ReadingContextMiddleware(session), self.guard, self.limit],
        )

    def stream(self, question: str, history: list | None = None) -> Iterator[AgentEvent]:
        """Events in the order they happen; always ends with Done."""
        messages = [*(history or []), {"role": "user", "content": question}]
        cited = len(self.session.citations)
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
                        for event in _update_events(node, update or {}):
                            tool_calls += isinstance(event, ToolCallReady)
                            yield event
                        for citation in self.session.citations[cited:]:
                            yield CitationEvent(
                                citation.passage, str(citation.start), str(citation.end), citation.quote
                            )
                        cited = len(self.session.citations)
        except GraphRecursionError:
            yield ErrorEvent("the agent took too many steps and was stopped; try a narrower question")
            yield Done("limit")
            return
        if self.guard.repeated:
            yield Done("repeated")
        elif tool_calls >= self.limit.run_limit:
            yield Done("limit")
        else:
            yield Done()


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
            elif block.get("type") == "text" and block.get("text"):
                yield TextDelta(block["text"])
    reasoning = chunk.additional_kwargs.get("reasoning_content")
    if reasoning:
        yield ReasoningDelta(reasoning)
    for piece in chunk.tool_call_chunks:
        if piece.get("name"):
            yield ToolCallStarted(piece.get("id") or "", piece["name"], piece.get("index") or 0)
        if piece.get("args"):
            yield ToolArgsDelta(piece.get("index") or 0, piece["args"])


def _update_events(node: str, update: dict) -> Iterator[AgentEvent]:
    for message in update.get("messages", []):
        if isinstance(message, AIMessage) and node == "model":
            for call in message.tool_calls:
                yield ToolCallReady(call.get("id") or "", call["name"], call.get("args", {}))
        elif isinstance(message, ToolMessage):
            content = message.content if isinstance(message.content, str) else json.dumps(message.content)
            yield ToolResult(message.tool_call_id, message.name or "", content, message.status == "error")
