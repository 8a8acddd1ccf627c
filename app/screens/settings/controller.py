"""Settings' controller: its sections, what is typed and not saved, and the screen drawn from them.

The shell makes one and hands it the Settings port; the sections (sync, dictionaries, catalogs, KOReader, watched
folders, highlights to KOReader and Readwise) are its parts, each typed against the narrow port too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, assert_never

from app.port import Port
from app.screens import Screen
from app.screens.settings.catalogs import CatalogsController
from app.screens.settings.dictionaries import DictionarySettings
from app.screens.settings.folders import FolderWatch
from app.screens.settings.form import SettingsForm
from app.screens.settings.highlights import HighlightTravel
from app.screens.settings.intents import Back, Redraw, Saved, SettingsIntent
from app.screens.settings.koreader import KoreaderSync
from app.screens.settings.sync import SyncController
from app.screens.settings.view import AIActions, Sections, SettingsScreen, build_settings_screen
from core import ProviderConfig, QuireError

if TYPE_CHECKING:
    import flet as ft

    from app.jobs import Jobs
    from app.screens.reader.model import ReaderViewModel


class SettingsPort(Port, Protocol):
    """The app as Settings sees it: the port, the window's width, the open book (KOReader's progress is the open
    book's), the model downloads and index runs it shows, and saving a change."""

    jobs: Jobs

    @property
    def width(self) -> float: ...
    @property
    def reader(self) -> ReaderViewModel | None: ...
    def settings_changed(self) -> None: ...
    def start_index(self, book_id: int | None = None) -> None: ...
    def cancel_index(self, book_id: int | None = None) -> None: ...


class SettingsController:
    """Settings: its sections and form, drawn as one screen; opened anew, what was typed and not saved is gone."""

    def __init__(self, app: SettingsPort) -> None:
        self.app = app
        self.sync = SyncController(app.quire, app.store.secrets, lambda: app.t, self._synced, app.workers.thread)
        self.dictionaries = DictionarySettings(app)
        self.catalogs = CatalogsController(app)
        self.koreader = KoreaderSync(app, lambda: app.reader)  # KOReader progress sync (off by default)
        self.folders = FolderWatch(app)  # folders imported and watched for new books
        self.travel = HighlightTravel(app)  # highlights to and from KOReader's sidecars, and to Readwise
        self.form = SettingsForm()  # what Settings holds typed and not saved, across its drawings

    def opened(self) -> None:
        """Settings opened anew: what was typed and not saved is gone, as in other apps."""
        self.form.clear()

    def language_changed(self) -> None:
        self.form.lines.clear()  # Settings' result lines were in the other language

    def screen(self) -> ft.Control:
        app = self.app
        return build_settings_screen(
            SettingsScreen(
                app.settings, app.store, app.t, self.handle, self.form, app.width, app.on_phone, app.quire,
                self._ai_actions(),
                Sections(
                    self.sync, self.dictionaries, self.catalogs, self.koreader,
                    None if app.on_phone else self.folders,  # computers (a path typed in a browser's Settings)
                    self.travel,
                ),
            )
        )  # fmt: skip

    def handle(self, wanted: SettingsIntent) -> None:
        """Do what the view asked for."""
        app = self.app
        match wanted:
            case Saved():
                app.settings_changed()
            case Redraw():
                if app.screen == Screen.SETTINGS:  # not after leaving: a check's reply may come later
                    app.render()
            case Back():
                app.go(Screen.LIBRARY)
            case _:
                assert_never(wanted)

    def _synced(self, brought: bool) -> None:
        """A sync ended (in its worker): show its status on Settings, and what it brought anywhere else."""

        async def redraw() -> None:
            if self.app.screen == Screen.SETTINGS and self.sync.on_status is not None:
                self.sync.on_status()  # Settings drawn again in place, with the sync's own line
            elif brought:  # new notes, places or books: drawn from a fresh read
                self.app.render()

        self.app.workers.later(redraw)

    def _ai_actions(self) -> AIActions:
        app = self.app

        def test_connection(config: ProviderConfig, report: Callable[[str, bool], None]) -> None:
            async def run() -> None:
                try:
                    message, ok = (
                        await asyncio.to_thread(app.quire.chats.check_provider, config, app.store.secrets),
                        True,
                    )
                except QuireError as error:
                    message, ok = app.t.error(error), False
                report(message, ok)

            app.workers.later(run)

        return AIActions(
            test_connection=test_connection,
            download=app.jobs.download,
            start_index=app.start_index,
            cancel_index=app.cancel_index,
            index_line=app.jobs.index_line,
            progress=lambda name: app.jobs.downloads.get(name, ""),
        )
