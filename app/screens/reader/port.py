"""What the reader's controller and its parts may use of the app: the narrow port, and what reading needs besides.

The window's size and theme, the phone's page-turn haptics, the chat beside the page, closing the book. Not the
shell and not the page: the reader never imports ``app.shell``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

from app.port import Port

if TYPE_CHECKING:
    from app.screens.chat.controller import ChatController
    from app.screens.notes.intents import NotesHandler

A = TypeVar("A")


class PageTurns(Protocol):
    """The device's answer to a page turn (a short vibration on phones, when the reader asked for it)."""

    def page_turned(self, haptic: bool) -> None: ...


class ReaderPort(Port, Protocol):
    """The app as the open book sees it."""

    chat: ChatController  # the chat panel beside the page, and "explain this" / a recap asked in it
    device: PageTurns

    @property
    def width(self) -> float: ...
    @property
    def height(self) -> float: ...
    @property
    def dark(self) -> bool: ...
    def field_focused(self) -> bool: ...  # a text field of the window holds the keyboard (keys type, not turn)
    def close_book(self) -> None: ...
    def guard_book(self, actions: A) -> A: ...  # the same actions, each ignored once the book is closed
    def settings_changed(self) -> None: ...
    def notes_handler(self, book_id: int | None) -> NotesHandler: ...
