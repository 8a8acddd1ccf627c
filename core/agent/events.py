"""The one event stream the UI and the CLI read while the agent works."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from core.agent.citations import Citation

if TYPE_CHECKING:
    from core.library.records import Position


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """Base of every event; ``kind`` names it on the wire (JSON lines)."""

    kind = "event"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, **asdict(self)}


@dataclass(frozen=True, slots=True)
class ThreadEvent(AgentEvent):
    """The thread this answer belongs to (first event of every run)."""

    thread_id: int
    kind = "thread"


@dataclass(frozen=True, slots=True)
class ReasoningDelta(AgentEvent):
    text: str
    kind = "reasoning"


@dataclass(frozen=True, slots=True)
class ToolCallStarted(AgentEvent):
    """A tool call's name has arrived; its arguments are still streaming."""

    call_id: str
    name: str
    index: int
    kind = "tool_call_started"


@dataclass(frozen=True, slots=True)
class ToolArgsDelta(AgentEvent):
    index: int
    text: str
    kind = "tool_args"


@dataclass(frozen=True, slots=True)
class ToolCallReady(AgentEvent):
    """The complete arguments of a tool call."""

    call_id: str
    name: str
    args: dict[str, Any]
    kind = "tool_call_ready"


@dataclass(frozen=True, slots=True)
class ToolResult(AgentEvent):
    call_id: str
    name: str
    content: str
    error: bool = False
    kind = "tool_result"


@dataclass(frozen=True, slots=True)
class TextDelta(AgentEvent):
    """A piece of the answer's text, as it streams."""

    text: str
    kind = "text"


@dataclass(frozen=True, slots=True)
class CitationEvent(AgentEvent):
    """A verified citation (the one ``Citation`` value, typed locators included), as the ``cite`` tool made it."""

    citation: Citation
    kind = "citation"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, **self.citation.to_dict()}


NOTICES = frozenset(("NotAnswered", "MightAnswer", "ProviderUnreachable"))
"""The ``error_type`` of error events that come with an answer rather than instead of one (the offline answer's
"does not seem to answer" and "may answer, not certain", the provider that could not be reached): said plainly,
not as a failure."""


@dataclass(frozen=True, slots=True)
class ErrorEvent(AgentEvent):
    """The answer failed: a message for people and the core error's type name for clients."""

    message: str  # for people, in English; a client in another language words it from ``error_type``
    error_type: str = "QuireError"  # a core error's type name (core.errors), e.g. ProviderError; or StepLimit
    kind = "error"


@dataclass(frozen=True, slots=True)
class Done(AgentEvent):
    """The answer ended: why, and for offline answers whether the quotes answer the question."""

    reason: str = "finished"  # finished, stopped, limit, repeated, error
    answered: bool | None = None  # offline answers: the quotes answer (True) or are only the closest passages
    # The receipt of the fence: what of the book the answer was allowed to use, {"locator": "2.121", "percent":
    # 13.2} (the furthest place read; a locator of None: nothing read yet); None with spoilers allowed, or for an
    # answer from the whole library (each book fenced at its own place)
    fence: dict[str, Any] | None = None
    kind = "done"


def fence_receipt(position: Position | None) -> dict[str, Any]:
    """The receipt of an answer's fence (``Done.fence``) from the book's saved position: the furthest place read
    (None: nothing yet) and its percentage."""
    if position is None or position.furthest is None:
        return {"locator": None, "percent": 0.0}
    return {"locator": str(position.furthest), "percent": round(position.furthest_percent, 1)}


def with_fence(events: Iterable[AgentEvent], fence: dict[str, Any] | None) -> Iterator[AgentEvent]:
    """The events, their ``Done`` carrying the fence's receipt (unchanged when there is none: spoilers allowed)."""
    for event in events:
        yield replace(event, fence=fence) if isinstance(event, Done) and fence is not None else event
