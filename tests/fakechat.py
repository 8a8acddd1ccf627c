"""A scripted chat model for agent tests: it streams reasoning, text and tool-call chunks like a provider.

Each turn is a list of parts: ("reasoning", text), ("text", text) or ("tool", name, args_json, call_id).
Tool arguments stream in two pieces after the name, and every turn ends with an empty last chunk, as
real providers do. ``bound`` records the tool names offered on each call.
"""

from __future__ import annotations

from collections.abc import Iterator

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field


class ScriptedChatModel(BaseChatModel):
    turns: list
    bound: list = Field(default_factory=list)  # tool names offered, per call (shared by bound copies)
    seen: list = Field(default_factory=list)  # the messages of each call
    offered: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        names = sorted(getattr(t, "name", None) or t["function"]["name"] for t in tools)
        clone = self.model_copy()
        clone.offered = names
        return clone

    def _chunks(self, messages) -> Iterator[AIMessageChunk]:
        self.bound.append(self.offered)
        self.seen.append(messages)
        turn = self.turns.pop(0) if self.turns else [("text", "(the script has ended)")]
        for index, part in enumerate(turn):
            if part[0] == "reasoning":
                yield AIMessageChunk(content=[{"type": "reasoning", "reasoning": part[1], "index": 0}])
            elif part[0] == "text":
                for word in part[1].split(" "):
                    yield AIMessageChunk(content=word + " ")
            else:
                _, name, args, call_id = part
                yield AIMessageChunk(
                    content="", tool_call_chunks=[{"name": name, "args": "", "id": call_id, "index": index}]
                )
                half = len(args) // 2
                for piece in (args[:half], args[half:]):
                    yield AIMessageChunk(
                        content="", tool_call_chunks=[{"name": None, "args": piece, "id": None, "index": index}]
                    )
        yield AIMessageChunk(content="", chunk_position="last")

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            yield ChatGenerationChunk(message=chunk)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        total = None
        for chunk in self._chunks(messages):
            total = chunk if total is None else total + chunk
        message = AIMessage(content=total.content, tool_calls=total.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=message)])
