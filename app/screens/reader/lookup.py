"""The reader's dictionary: a selected word's definition card (offline), kept in the book's vocabulary list, and
"Explain in this context" by the AI provider (the sentence and the word, nothing more of the book); and a
paragraph translated by the provider."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING

import flet as ft

from app.a11y import relabel, selectable
from app.screens.reader.marking import ReaderScreen
from core import Definition, QuireError, sentence_around

if TYPE_CHECKING:
    from app.port import Port

CARD_WIDTH = 420
CARD_HEIGHT = 360


class LookupController:
    """``reading.lookup``: the selection bar's "Look up" and what its card does."""

    def __init__(self, app: Port, screen: ReaderScreen) -> None:
        self.app = app
        self.screen = screen
        self.explanation = selectable("", size=14)
        self.translating: dict[int, threading.Event] = {}  # ordinal -> the stop of its translation coming now

    def define(self) -> None:
        """Open the definition card for the selected word."""
        model, app = self.screen.model, self.app
        if model is None or model.notes.selection is None:
            return
        selection = model.notes.selection
        word = selection.text.strip()
        found = app.quire.dictionary.define(word, model.book.id)
        segment = next((s for s in model.visible if s.ordinal == selection.ordinal), None)
        sentence = sentence_around(segment.text, selection.start) if segment is not None else word
        locator = str(segment.locator) if segment is not None else ""
        relabel(self.explanation, "")
        app.message = found[0].word if found else app.t("define.none", word=word)  # for screen readers and tests
        app.show_dialog(self._card(word, found, sentence, locator))

    def translate(self) -> None:
        """The selection's paragraph (else the one at the top of the page) translated by the AI provider, drawn
        under the paragraph as it comes (bilingual reading), into the language chosen in Settings (by default the
        reader's; for a book in it, the app's other one); kept once translated. Asked again while it comes, it
        stops and what came stays; asked again after, the translation is hidden."""
        model, app = self.screen.model, self.app
        config = app.settings.provider_config()
        if model is None or model.current is None or config is None:
            return
        ordinal = model.notes.selection.ordinal if model.notes.selection is not None else model.current.ordinal
        segment = next((s for s in model.visible if s.ordinal == ordinal), None)
        if segment is None:
            return
        if ordinal in self.translating:  # coming: stop it, keeping what came
            self.translating[ordinal].set()
            return
        if ordinal in model.translations:  # shown: hide it
            del model.translations[ordinal]
            self.screen.redraw()
            return
        target = app.settings.translate_to or app.quire.translation.target(model.book.id, app.t.language)
        model.translations[ordinal] = app.t("translate.working")
        stop = self.translating[ordinal] = threading.Event()
        self.screen.redraw()
        shown = [0.0]

        def came(text: str) -> None:  # on the translation's thread: drawn at most four times a second
            model.translations[ordinal] = text
            if time.monotonic() - shown[0] >= 0.25:
                shown[0] = time.monotonic()
                app.workers.later(self._redraw, model)

        async def run() -> None:
            try:
                text = await asyncio.to_thread(
                    app.quire.translation.paragraph, model.book.id, segment.locator, target, config,
                    app.store.secrets, on_text=came, stop=stop,
                )  # fmt: skip
            except QuireError as error:
                model.translations.pop(ordinal, None)
                app.notify(app.t.error(error))
                return
            finally:
                self.translating.pop(ordinal, None)
            if not text:  # stopped before anything came
                model.translations.pop(ordinal, None)
            else:
                model.translations[ordinal] = text + (" …" if stop.is_set() else "")
            app.message = text
            await self._redraw(model)

        app.workers.later(run)

    async def _redraw(self, model: object) -> None:
        if self.screen.model is model:  # the same book is still open
            self.screen.redraw()

    def _card(self, word: str, found: list[Definition], sentence: str, locator: str) -> ft.AlertDialog:
        app, t = self.app, self.app.t
        rows: list[ft.Control] = []
        for definition in found:
            via = f"  ·  {t('define.from', word=definition.looked_up)}" if definition.looked_up else ""
            rows += [
                ft.Text(definition.dictionary + via, size=12, color=ft.Colors.ON_SURFACE_VARIANT),
                selectable(definition.word, size=18, weight=ft.FontWeight.W_600),
                selectable(definition.text, size=14),
                ft.Divider(),
            ]
        if not found:
            known = app.quire.dictionary.all()
            rows.append(ft.Text(t("define.none", word=word) if known else t("define.no_dictionaries")))
        rows.append(self.explanation)
        actions: list[ft.Control] = []
        book = self.screen.model.book.id if self.screen.model is not None else None
        if found and book is not None:
            first = found[0]

            def keep(e: ft.Event[ft.TextButton]) -> None:
                app.quire.dictionary.keep(book, first.word, locator, sentence, first.text)
                app.notify(t("define.kept", word=first.word))

            actions.append(ft.TextButton(t("define.keep"), icon=ft.Icons.BOOKMARK_ADD_OUTLINED, on_click=keep))
        if app.settings.provider_config() is not None:
            actions.append(
                ft.TextButton(
                    t("define.explain"), icon=ft.Icons.AUTO_AWESOME, on_click=lambda e: self._explain(word, sentence)
                )
            )
        actions.append(ft.TextButton(t("common.close"), on_click=lambda e: app.pop_dialog()))
        return ft.AlertDialog(
            title=ft.Text(word),
            content=ft.Container(
                ft.Column(rows, tight=True, scroll=ft.ScrollMode.AUTO, spacing=6), width=CARD_WIDTH, height=CARD_HEIGHT
            ),
            actions=actions,
        )

    def _explain(self, word: str, sentence: str) -> None:
        app = self.app
        config = app.settings.provider_config()
        if config is None:
            return
        relabel(self.explanation, app.t("define.explaining"))
        app.update()

        async def run() -> None:
            try:
                text = await asyncio.to_thread(app.quire.dictionary.explain, word, sentence, config, app.store.secrets)
            except QuireError as error:
                text = app.t.error(error)
            relabel(self.explanation, text)
            app.message = text
            app.update()

        app.workers.later(run)
