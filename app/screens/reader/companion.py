"""The reader's companion actions: the story so far in the chat ("Previously…"), X-Ray's lines by the AI and its
"Tell me more"."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from app.screens.reader.marking import ReaderScreen
from core import QuireError

if TYPE_CHECKING:
    from app.screens.reader.intents import CorrectXray
    from app.screens.reader.port import ReaderPort


class CompanionController:
    """``reading.companion``: what the reader asks of the companion beyond the X-Ray panel itself."""

    def __init__(self, app: ReaderPort, screen: ReaderScreen) -> None:
        self.app = app
        self.screen = screen

    def recap(self) -> None:
        """ "Previously…": the chat opens and tells the story so far (offline, cited, up to the furthest place)."""
        model, app = self.screen.model, self.app
        if model is None:
            return
        model.previously = False
        self.screen.panel = "chat"
        self.screen.redraw()
        app.chat.ask(model, app.t("chat.suggest.recap"), recap=True)

    def scan_xray(self) -> None:
        """Find the names of the text read since the last X-Ray in the background (a Chinese novel's chapters take
        seconds), then draw the panel again."""
        model, app = self.screen.model, self.app
        if model is None or model.xray_scanning:
            return
        model.xray_scanning = True

        async def run() -> None:
            try:
                await asyncio.to_thread(model.read_xray)
            except QuireError as error:
                app.notify(app.t.error(error))
            finally:
                model.xray_scanning = False
            if self.screen.model is model:
                self.screen.redraw()

        app.workers.later(run)

    def correct(self, said: CorrectXray) -> None:
        """The reader's correction of X-Ray kept, and X-Ray read again (in the background: a Chinese novel's takes
        a second); an added name not used yet up to the place is said to come once it is."""
        model, app = self.screen.model, self.app
        if model is None:
            return

        async def run() -> None:
            try:
                entries = await asyncio.to_thread(model.correct_xray, said)
            except QuireError as error:
                app.notify(app.t.error(error))
                return
            named = " ".join(said.name.split()).casefold()
            if said.add and not any(entry.name.casefold() == named for entry in entries):
                app.notify(app.t("xray.added.later", name=said.name))
            if self.screen.model is model:
                self.screen.redraw()

        app.workers.later(run)

    def forget(self, name: str) -> None:
        """Take back what the reader said of a name (a hidden one shows again)."""
        model = self.screen.model
        if model is None:
            return

        async def run() -> None:
            await asyncio.to_thread(model.forget_correction, name)
            if self.screen.model is model:
                self.screen.redraw()

        self.app.workers.later(run)

    def tell_more(self, name: str) -> None:
        """ "Tell me more" on an X-Ray entry: the chat opens and asks the AI about the name, fenced at the furthest
        place as every answer is."""
        model, app = self.screen.model, self.app
        if model is None:
            return
        self.screen.panel = "chat"
        self.screen.redraw()
        app.chat.ask(model, app.t("xray.tell_more.question", name=name))

    def describe(self) -> None:
        """X-Ray's names described by the AI provider (in the background), from the sentences before the place."""
        model, app = self.screen.model, self.app
        if model is None:
            return
        config = app.settings.provider_config()
        book = model.book.id

        async def run() -> None:
            try:
                lines = await asyncio.to_thread(app.quire.companion.describe, book, config, secrets=app.store.secrets)
            except QuireError as error:
                app.notify(app.t.error(error))
                return
            if self.screen.model is model:
                model.xray_lines = lines
                self.screen.redraw()

        app.notify(app.t("xray.describing"))
        app.workers.later(run)
