"""A chat message as ordered parts, and the one fold of the agent's event stream into them.

The same fold feeds what is stored (``ChatStore.add_message``), what the chat panel draws while an answer
streams, and what a saved thread shows when it is opened again, so the three cannot disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

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

PartKind = Literal["text", "reasoning", "tool_call", "citation", "error", "fence"]
Role = Literal["user", "assistant"]
Status = Literal["complete", "stopped", "error", "streaming"]  # streaming: while an answer arrives

# How a run's end reason reads as a stored message status.
STATUS: dict[str, Status] = {
    "finished": "complete",
    "error": "error",
    "stopped": "stopped",
    "limit": "complete",
    "repeated": "complete",
}
TRANSIENT = ("args_text",)  # what a part holds only while it streams: never stored


@dataclass
class Part:
    """One piece of a message, in the order it streamed: text, reasoning, tool_call, citation or error."""

    kind: PartKind
    data: dict[str, Any]
    turn: int = 0  # which model turn of the run produced it (a turn ends when its tool results arrive)

    @property
    def text(self) -> str:
        """The text of a text, reasoning or error part; a tool call's arguments (as they stream, then whole)."""
        if self.kind == "tool_call":
            args = self.data.get("args")
            return self.data.get("args_text", "") if args is None else json.dumps(args, ensure_ascii=False)
        return str(self.data.get("text", ""))

    @property
    def state(self) -> str:
        """A tool call's state: running, done or error (other parts are always done)."""
        if self.kind != "tool_call":
            return "done"
        if self.data.get("error") or self.data.get("unfinished"):
            return "error"
        return "done" if "result" in self.data else "running"

    def stored(self) -> dict[str, Any]:
        """The part's data as saved (streaming leftovers dropped)."""
        return {k: v for k, v in self.data.items() if k not in TRANSIENT}


@dataclass
class Message:
    """A question or an answer: its parts, and whether it is complete, stopped, streaming or ended in error."""

    role: Role
    status: Status = "complete"
    parts: list[Part] = field(default_factory=list)
    id: int | None = None  # set once stored
    book_id: int = 0  # the book its citations point into

    @property
    def text(self) -> str:
        return "".join(p.data["text"] for p in self.parts if p.kind == "text")

    @property
    def citations(self) -> list[Citation]:
        return [Citation.from_dict(p.data, self.book_id) for p in self.parts if p.kind == "citation"]

    @property
    def shown_parts(self) -> list[Part]:
        """The parts drawn inline, in order (citations and the fence's receipt are drawn under the answer)."""
        return [p for p in self.parts if p.kind not in ("citation", "fence")]

    @property
    def fence(self) -> dict[str, Any] | None:
        """The receipt of the answer's fence (``Done.fence``): the furthest place it could use, or None."""
        return next((dict(p.data) for p in self.parts if p.kind == "fence"), None)


class MessageFold:
    """Folds agent events into a Message: consecutive deltas merge, tool calls gather their arguments and results."""

    def __init__(self, message: Message) -> None:
        self.message = message
        self._turn = 0
        self._after_result = False
        self._streaming_calls: dict[int, Part] = {}  # by the provider's tool-call index

    def add(self, event: AgentEvent) -> bool:
        """Fold one event in; True when something appeared or changed state (a redraw should not wait)."""
        parts = self.message.parts
        if isinstance(event, ReasoningDelta | TextDelta | ToolCallStarted | ToolCallReady) and self._after_result:
            self._turn += 1
            self._after_result = False
        if isinstance(event, ReasoningDelta | TextDelta):
            kind: PartKind = "reasoning" if isinstance(event, ReasoningDelta) else "text"
            last = parts[-1] if parts else None
            if last and last.kind == kind and last.turn == self._turn:
                last.data["text"] += event.text
                return False
            parts.append(Part(kind, {"text": event.text}, self._turn))
        elif isinstance(event, ToolCallStarted):  # the card appears as soon as the name is known
            call = Part(
                "tool_call", {"id": event.call_id, "name": event.name, "args": None, "args_text": ""}, self._turn
            )
            parts.append(call)
            self._streaming_calls[event.index] = call
        elif isinstance(event, ToolArgsDelta):
            streaming = self._streaming_calls.get(event.index)
            if streaming is not None and "args_text" in streaming.data:
                streaming.data["args_text"] += event.text
            return False
        elif isinstance(event, ToolCallReady):
            call = self._call(event.call_id, event.name)
            call.data["args"] = event.args
            call.data.pop("args_text", None)  # the whole arguments replace what streamed
        elif isinstance(event, ToolResult):
            self._call(event.call_id, event.name).data.update(result=event.content, error=event.error)
            self._after_result = True
        elif isinstance(event, CitationEvent):
            parts.append(Part("citation", event.citation.to_dict(), self._turn))
        elif isinstance(event, ErrorEvent):
            parts.append(Part("error", {"text": event.message, "type": event.error_type}, self._turn))
        elif isinstance(event, Done):
            if event.fence is not None:  # the receipt: what of the book the answer could use, kept with it
                parts.append(Part("fence", dict(event.fence), self._turn))
            self.end(STATUS.get(event.reason, "complete"))
        else:
            return False
        return True

    def end(self, status: Status) -> None:
        """The run is over: a tool call that never got its result is marked unfinished (never left spinning)."""
        self.message.status = status
        for part in self.message.parts:
            if part.kind == "tool_call" and "result" not in part.data:
                part.data["unfinished"] = True

    def _call(self, call_id: str, name: str) -> Part:
        for part in self.message.parts:
            if part.kind == "tool_call" and part.data["id"] == call_id:
                return part
        call = Part("tool_call", {"id": call_id, "name": name, "args": None}, self._turn)  # no start event came
        self.message.parts.append(call)
        return call
