"""The narrow port a screen's controller or a settings section is handed: what it may use of the app, no more.

Not the shell and not the page: the library (``quire``), words (``t``), settings, notices, dialogs, moving between
screens and background work. A screen that needs more lists it in its own port beside it, extending this one
(``app/screens/reader/port.py``: the window's size, the chat, closing the book; ``app/screens/library/port.py``:
opening books, indexing); a controller typed with ``Port`` cannot reach those, nor the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import flet as ft

    from app.i18n import Translator
    from app.screens import Screen
    from app.settings import Settings, SettingsStore
    from app.workers import Workers
    from core import Quire


class Port(Protocol):
    """The app as a settings section, a dialog flow or a small controller sees it."""

    quire: Quire
    t: Translator
    settings: Settings
    store: SettingsStore
    message: str  # the last notice or import summary (screen readers and tests read it)
    workers: Workers  # background work, and anything scheduled onto the UI loop (``workers.later``)
    screen: Screen  # what the window shows

    @property
    def web(self) -> bool: ...  # a browser tab: its file pickers give no paths
    @property
    def on_phone(self) -> bool: ...
    def render(self) -> None: ...
    def update(self) -> None: ...  # send what changed in place (a control patched) without drawing the screen again
    def go(self, screen: Screen) -> None: ...
    def notify(self, text: str) -> None: ...
    def show_dialog(self, dialog: ft.DialogControl) -> None: ...
    def pop_dialog(self) -> None: ...
