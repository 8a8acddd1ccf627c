"""Where the reader asks to go, typed: the next or previous page, a locator, a share of the book, or what the
reader typed in the "Go to" field (parsed in one place, where a mistake is said)."""

from __future__ import annotations

from dataclasses import dataclass

from core import Locator


@dataclass(frozen=True, slots=True)
class NextPage:
    pass


@dataclass(frozen=True, slots=True)
class PreviousPage:
    pass


@dataclass(frozen=True, slots=True)
class GoTo:
    locator: Locator
    from_contents: bool = False  # a row of the contents list: the list stays as it is, its marks move


@dataclass(frozen=True, slots=True)
class GoToPercent:
    percent: float  # 0 to 100


@dataclass(frozen=True, slots=True)
class Typed:
    """What the reader typed: a locator ("12.3") or a percentage ("40%")."""

    text: str


Where = NextPage | PreviousPage | GoTo | GoToPercent | Typed
