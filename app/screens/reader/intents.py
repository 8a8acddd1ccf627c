"""What the reader view asks for, as typed intents posted to one handler (``ReaderController.handle``): the moves
of ``app.navigation`` and the rest of what a tap, a key or a scroll in the reader asks."""

from __future__ import annotations

from dataclasses import dataclass

from app.screens.reader.navigation import Where


@dataclass(frozen=True, slots=True)
class Back:
    """Close the book: back to the library."""


@dataclass(frozen=True, slots=True)
class OpenPanel:
    name: str | None  # a panel (app.screens.reader.panels) by name; None closes the open one, the same name toggles it


@dataclass(frozen=True, slots=True)
class Scrolled:
    fraction: float  # of the list's length
    pixels: float | None = None


@dataclass(frozen=True, slots=True)
class Select:
    ordinal: int  # -1: nothing selected
    start: int
    end: int
    run: tuple[int, int] | None = None  # a vertical column's text it was made in (it may continue the one before)


@dataclass(frozen=True, slots=True)
class Highlight:
    color: str


@dataclass(frozen=True, slots=True)
class ToggleBookmark:
    pass


@dataclass(frozen=True, slots=True)
class AskAbout:
    """Ask the chat about the selected passage."""


@dataclass(frozen=True, slots=True)
class WhoIs:
    """The X-Ray entry of the selected name."""


@dataclass(frozen=True, slots=True)
class Define:
    """The selected word's definition card."""


@dataclass(frozen=True, slots=True)
class Translate:
    """The selection's paragraph, by the AI provider."""


@dataclass(frozen=True, slots=True)
class Recap:
    """ "Previously…": the story so far in the chat."""


@dataclass(frozen=True, slots=True)
class ReadAloud:
    """Start reading aloud from the page, or stop."""


@dataclass(frozen=True, slots=True)
class Describe:
    """X-Ray: a line per name by the AI provider."""


@dataclass(frozen=True, slots=True)
class TellMore:
    name: str  # X-Ray: ask the chat about this name


@dataclass(frozen=True, slots=True)
class CorrectXray:
    """X-Ray corrected on one name (``core``'s ``Companion.correct``): what is None stays as said before."""

    name: str
    hide: bool | None = None
    into: str | None = None  # the entry it is the same as
    rename: str | None = None
    kind: str | None = None
    add: bool | None = None


@dataclass(frozen=True, slots=True)
class OpenName:
    name: str  # an underlined name in the page: its X-Ray card, open and first (as "Who is this?")


@dataclass(frozen=True, slots=True)
class ForgetCorrection:
    name: str  # X-Ray: take back what the reader said of this name (a hidden one shows again)


@dataclass(frozen=True, slots=True)
class Search:
    query: str


@dataclass(frozen=True, slots=True)
class OpenHit:
    index: int  # into the model's search hits


@dataclass(frozen=True, slots=True)
class MoreHits:
    pass


@dataclass(frozen=True, slots=True)
class LoadMore:
    forward: bool


@dataclass(frozen=True, slots=True)
class Grow:
    """Scroll mode, near the window's end: the next segments go below it (the list keeps its scroll)."""


@dataclass(frozen=True, slots=True)
class GoBack:
    """Back to where the reader was before the last jump."""


@dataclass(frozen=True, slots=True)
class ReadUpToHere:
    """The furthest place read moves back to the current one."""


@dataclass(frozen=True, slots=True)
class ReadToHere:
    """The furthest place read moves on to the current one."""


@dataclass(frozen=True, slots=True)
class Copy:
    text: str


@dataclass(frozen=True, slots=True)
class Share:
    text: str  # the phone's share sheet


@dataclass(frozen=True, slots=True)
class RecolourTapped:
    color: str


@dataclass(frozen=True, slots=True)
class NoteTapped:
    pass


@dataclass(frozen=True, slots=True)
class NoteSelection:
    """Highlight the selection and write its note."""


@dataclass(frozen=True, slots=True)
class RemoveTapped:
    pass


@dataclass(frozen=True, slots=True)
class PageView:
    on: bool  # a text PDF: its pages as printed (True) or the text


ReaderIntent = (
    Where | Back | OpenPanel | Scrolled | Select | Highlight | ToggleBookmark | AskAbout | WhoIs | Define | Translate
    | Recap | ReadAloud | Describe | TellMore | CorrectXray | ForgetCorrection | OpenName | Search | OpenHit | MoreHits | LoadMore | Grow | GoBack | ReadUpToHere
    | ReadToHere | Copy | Share | RecolourTapped | NoteTapped | NoteSelection | RemoveTapped | PageView
)  # fmt: skip
