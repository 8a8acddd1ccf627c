"""How a tool is declared: the rule that says when it is offered, and whether it returns an artifact."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class ToolState(NamedTuple):
    """What decides which tools are offered: read once per model call."""

    book_open: bool
    indexed: bool
    selected: bool


Rule = Callable[[ToolState], bool]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One agent tool: the session method that runs it, when it is offered, what it is for.

    ``artifact``: the method returns (text for the model, a value for Quire) and the value rides on the tool
    message (``cite`` and its verified Citation).
    """

    name: str
    purpose: str  # library, reading, searching, citing
    offered: Rule
    artifact: bool = False


def always(state: ToolState) -> bool:
    return True


def book_open(state: ToolState) -> bool:
    return state.book_open


def selected(state: ToolState) -> bool:
    return state.book_open and state.selected


def indexed(state: ToolState) -> bool:
    return state.book_open and state.indexed


def not_indexed(state: ToolState) -> bool:
    return state.book_open and not state.indexed


def tool(offered: Rule, *, artifact: bool = False) -> Callable[[F], F]:
    """Mark a session method as an agent tool, offered when ``offered`` holds (its docstring is its description)."""

    def mark(method: F) -> F:
        method.__quire_tool__ = (offered, artifact)  # type: ignore[attr-defined]
        return method

    return mark


def specs(*groups: type) -> tuple[ToolSpec, ...]:
    """The tools declared on each group class (its ``purpose``), in declaration order."""
    found = []
    for group in groups:
        for name, member in vars(group).items():
            marked = getattr(member, "__quire_tool__", None)
            if marked is not None:
                found.append(ToolSpec(name, group.purpose, marked[0], marked[1]))  # type: ignore[attr-defined]
    return tuple(found)
