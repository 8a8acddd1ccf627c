"""What the reader does to the text: the selection bar (highlight, note, copy, share, ask about it), a tapped
highlight's menu (note, colour, delete) and the bookmark on the current page."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import flet as ft

from app.dialogs import note_dialog
from app.screens.reader.model import ReaderViewModel
from app.screens.reader.view import ReaderActions

if TYPE_CHECKING:
    from app.screens.reader.port import ReaderPort


class ReaderScreen(Protocol):
    """What marking needs of the reader's controller: the open book, its panel, and a redraw."""

    model: ReaderViewModel | None
    panel: str | None

    def actions(self) -> ReaderActions: ...
    def redraw(self) -> None: ...
    def change(self, step: Callable[[ReaderViewModel], object]) -> None: ...


class MarkingController:
    """``reading.marking``: the selection and highlight handlers of the reader screen."""

    def __init__(self, app: ReaderPort, screen: ReaderScreen) -> None:
        self.app = app
        self.screen = screen

    def _show_bar(self) -> None:
        """Draw the bar under the text: the page is not drawn again (what it shows is the same), so the selection
        the reader just made stays on it."""
        self.screen.redraw()

    def select(self, ordinal: int, start: int, end: int, run: tuple[int, int] | None = None) -> None:
        """Text selected (a range), a tap (a collapsed range: on a highlight it opens that highlight's menu), or
        the bar closed (ordinal -1)."""
        model = self.screen.model
        if model is None:
            return
        if ordinal >= 0 and start == end:
            # a caret: a tap, or a redraw of the text. Only a tap inside a highlight changes anything.
            if model.notes.tap(ordinal, start) is not None:
                model.notes.selection = None
                self._show_bar()
            return
        model.notes.tapped = None
        model.notes.select(ordinal, start, end, run)
        self._show_bar()

    def highlight(self, color: str) -> None:
        self.screen.change(lambda model: model.notes.highlight_selection(color))

    def recolour_tapped(self, color: str) -> None:
        self.screen.change(lambda model: model.notes.recolour_tapped(color))

    def remove_tapped(self) -> None:
        if self.screen.model is not None:
            self.screen.model.notes.remove_tapped()
            self.screen.redraw()
            self.app.notify(self.app.t("reader.highlight.removed"))

    def note_selection(self) -> None:
        """The selection bar's "Note": highlight the selection (yellow) and open the note box for it at once."""
        model = self.screen.model
        if model is None or model.notes.selection is None:
            return
        model.notes.tapped = model.notes.highlight_selection("yellow")
        self.screen.redraw()
        self.note_tapped()

    def note_tapped(self) -> None:
        model, app = self.screen.model, self.app
        if model is None or model.notes.tapped is None:
            return

        def save(text: str) -> None:
            model.notes.note_tapped(text)
            model.notes.tapped = None  # saved: the highlight's bar goes with the dialog
            app.pop_dialog()
            self.screen.redraw()

        app.show_dialog(note_dialog(model.notes.tapped, app.t, save, lambda: app.pop_dialog()))

    def copy(self, text: str) -> None:
        async def run() -> None:
            await ft.Clipboard().set(text)
            self.app.notify(self.app.t("reader.copied"))

        self.app.workers.later(run)

    def share(self, text: str) -> None:
        async def run() -> None:
            await ft.Share().share_text(text)

        self.app.workers.later(run)

    def toggle_bookmark(self) -> None:
        if self.screen.model is not None:
            added = self.screen.model.notes.toggle_bookmark()
            self.screen.redraw()
            self.app.notify(self.app.t("reader.bookmark.added") if added else self.app.t("reader.bookmark.removed"))

    def ask_about_selection(self) -> None:
        """'Ask about this': open the chat and ask about the selected passage."""
        model, app = self.screen.model, self.app
        if model is None or model.notes.selection is None:
            return
        passage = model.notes.selection.text
        self.screen.panel = "chat"
        self.screen.redraw()
        excerpt = passage if len(passage) <= 80 else passage[:80].rstrip() + "…"  # the agent reads it whole
        app.chat.ask(model, app.t("chat.suggest.explain", passage=excerpt))

    def who_is(self) -> None:
        """'Who is this?': the X-Ray entry of the selected name opens (its first mention, its introducing sentences),
        from what the reader has read only; a name the book has not used so far is said so."""
        model, app = self.screen.model, self.app
        if model is None or model.notes.selection is None:
            return
        name = model.notes.selection.text.strip()
        if model.who_is(name) is None:
            app.notify(app.t("xray.unknown", name=name))
            return
        self.screen.panel = "xray"
        self.screen.redraw()
