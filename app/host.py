"""What a screen's controller may use of the app that hosts it: a Protocol the shell satisfies.

The reader and library controllers are handed the shell, typed as this; they never import ``app.shell``, so the
shell and its controllers import no circle (issue 27).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    import flet as ft

    from app.i18n import Translator
    from app.phone.device import ReadingDevice
    from app.screens import Screen
    from app.screens.chat.controller import ChatController
    from app.screens.notes.intents import NotesHandler
    from app.settings import Settings, SettingsStore
    from app.workers import Workers
    from core import Locator, Quire

A = TypeVar("A")


class Host(Protocol):
    """The app as its screens' controllers see it: the page, the library, settings, and moving between screens."""

    page: ft.Page
    quire: Quire
    t: Translator
    settings: Settings
    store: SettingsStore
    chat: ChatController
    device: ReadingDevice
    message: str  # the last notice or import summary (screen readers and tests read it)
    workers: Workers  # background work, and anything scheduled onto the UI loop (``workers.later``)
    screen: Screen  # what the window shows

    @property
    def width(self) -> float: ...
    @property
    def on_phone(self) -> bool: ...
    @property
    def dark(self) -> bool: ...
    def render(self) -> None: ...
    def go(self, screen: Screen) -> None: ...
    def notify(self, text: str) -> None: ...
    def open_book(self, book_id: int) -> None: ...
    def open_passage(self, book_id: int, first: Locator, last: Locator) -> None: ...
    def close_book(self) -> None: ...
    def guard_book(self, actions: A) -> A: ...
    def settings_changed(self) -> None: ...
    def start_index(self, book_id: int | None = None) -> None: ...
    def notes_handler(self, book_id: int | None) -> NotesHandler: ...
