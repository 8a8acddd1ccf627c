"""What the reader's and the library's controllers may use of the app besides the narrow ``app.port.Port``.

They are handed the shell, typed as this; they never import ``app.shell``, so the shell and its controllers import
no circle (issue 27). Anything smaller (a settings section, a dialog flow) is typed ``Port`` instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

from app.port import Port

if TYPE_CHECKING:
    import flet as ft

    from app.phone.device import ReadingDevice
    from app.screens.chat.controller import ChatController
    from app.screens.notes.intents import NotesHandler
    from core import Locator

A = TypeVar("A")


class Host(Port, Protocol):
    """The app as the reader's and the library's controllers see it: the port, the page, the chat, the device, and
    opening and closing books."""

    page: ft.Page
    chat: ChatController
    device: ReadingDevice

    @property
    def width(self) -> float: ...
    @property
    def dark(self) -> bool: ...
    def open_book(self, book_id: int) -> None: ...
    def open_passage(self, book_id: int, first: Locator, last: Locator) -> None: ...
    def close_book(self) -> None: ...
    def guard_book(self, actions: A) -> A: ...
    def settings_changed(self) -> None: ...
    def start_index(self, book_id: int | None = None) -> None: ...
    def notes_handler(self, book_id: int | None) -> NotesHandler: ...
