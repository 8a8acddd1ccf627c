"""What the chat panel asks for, as typed intents: the panel posts one to one handler (``ChatController.handle``)
instead of holding a bag of callables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core import Citation


@dataclass(frozen=True, slots=True)
class Ask:
    question: str


@dataclass(frozen=True, slots=True)
class Recap:
    """The story so far, up to the furthest place read (offline, cited)."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop the answer streaming; what came stays."""


@dataclass(frozen=True, slots=True)
class NewThread:
    pass


@dataclass(frozen=True, slots=True)
class OpenThread:
    thread_id: int


@dataclass(frozen=True, slots=True)
class RenameThread:
    pass


@dataclass(frozen=True, slots=True)
class DeleteThread:
    pass


@dataclass(frozen=True, slots=True)
class Regenerate:
    pass


@dataclass(frozen=True, slots=True)
class ReadToHere:
    """ "I've read up to here", from an answer that found nothing read: the fence moves on, the question is asked
    again."""


@dataclass(frozen=True, slots=True)
class Copy:
    text: str


@dataclass(frozen=True, slots=True)
class OpenCitation:
    citation: Citation


@dataclass(frozen=True, slots=True)
class SetSpoilers:
    protected: bool  # True: spoiler protection on


@dataclass(frozen=True, slots=True)
class StartIndex:
    pass


@dataclass(frozen=True, slots=True)
class CancelIndex:
    pass


@dataclass(frozen=True, slots=True)
class OpenSettings:
    pass


ChatIntent = (
    Ask | Recap | Stop | NewThread | OpenThread | RenameThread | DeleteThread | Regenerate | Copy | OpenCitation
    | SetSpoilers | StartIndex | CancelIndex | OpenSettings | ReadToHere
)  # fmt: skip
Post = Callable[[ChatIntent], object]
