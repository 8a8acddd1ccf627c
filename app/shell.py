"""The app shell: owns the page, lists the screens once, and routes keys, lifecycle and background jobs."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import flet as ft

from app.drawn import Drawn
from app.i18n import Translator
from app.jobs import IndexLine, Jobs
from app.keys import KeyRouter, field_focused, on_screen
from app.look.theme import apply_theme
from app.phone.device import ReadingDevice, is_phone_app
from app.phone.opened_files import OpenedFiles
from app.screens import Screen
from app.screens.chat.controller import ChatContext, ChatController
from app.screens.library.controller import LibraryController
from app.screens.notes.controller import NotesController
from app.screens.notes.intents import NotesHandler
from app.screens.notes.model import NotesViewModel
from app.screens.notes.view import build_notes_screen
from app.screens.reader.controller import ReaderController
from app.screens.reader.model import ReaderViewModel
from app.screens.settings.catalogs import build_catalog_screen
from app.screens.settings.controller import SettingsController
from app.screens.stats.view import build_stats_screen
from app.settings import Settings, SettingsStore
from app.workers import Workers
from core import BookNotFoundError, Locator, Quire
from platform_adapters.base import SecretStore

if TYPE_CHECKING:
    from app.screens.library.model import LibraryViewModel

A = TypeVar("A")  # a dataclass of actions
BACKGROUND_STATES = {
    ft.AppLifecycleState.INACTIVE,
    ft.AppLifecycleState.HIDE,
    ft.AppLifecycleState.PAUSE,
    ft.AppLifecycleState.DETACH,
}


def address(route: str | None) -> str:
    """A route as the screens are named: no query (``?token=…``), no trailing slash, ``/`` when empty."""
    return "/" + (route or "").split("?")[0].strip("/")


# Screens drawn whole on Flet's declarative layer (app/drawn.py): a redraw is diffed into what the client has. The
# reader is drawn by parts (ReaderController.redraw): its panels (the chat's box, X-Ray's rows) change in place.
DRAWN = {Screen.LIBRARY, Screen.NOTES, Screen.STATS, Screen.SETTINGS, Screen.CATALOG}
SETTINGS_CHANGED = "quire:settings-changed"  # what a window tells the others when it saved the settings


class QuireApp:
    """One window (or browser tab) of Quire; every screen is rebuilt from its view-model when it changes.

    Screens are listed once, in ``self.screens``: each is a function that draws it. The reader and the library
    have controllers of their own; the chat panel sees only a ``ChatContext``.
    """

    def __init__(
        self,
        page: ft.Page,
        quire: Quire,
        *,
        secrets: SecretStore,
        settings_folder: Path | None = None,
        fonts: dict[str, str] | None = None,
    ) -> None:
        self.page = page
        self.quire = quire
        self.store = SettingsStore(settings_folder or quire.folder, secrets)  # the platform's store, handed in
        self.settings: Settings = self.store.load()
        self.t = Translator(self.settings.language)
        self.screen = Screen.LIBRARY
        self.message = ""  # the last notice or import summary, for tests and screen readers
        self._warmed = False
        self._pushed = ""  # the last address this window added to the browser's history
        self.workers = Workers(page)  # background work and what it schedules on the UI loop, counted
        self.jobs = Jobs(quire, lambda: self.t, self._jobs_changed, self.workers.thread)  # indexing and model downloads
        self.books = LibraryController(self)
        self.reading = ReaderController(self)
        self.chat = ChatController(self._chat_context())  # the chat panel of the open book
        self.preferences = SettingsController(self)  # Settings and its sections: sync, catalogs, KOReader, folders…
        self.opened = OpenedFiles(self.books.import_picked)  # Android: books opened with Quire or shared to it
        self.device = ReadingDevice(page, lambda: self.on_phone, self.workers.later)  # wake lock and haptics on phones
        self._drawn: dict[Screen, Drawn] = {}  # the screens of DRAWN on Flet's declarative layer, while shown
        self.screens: dict[Screen, Callable[[], ft.Control]] = {
            Screen.LIBRARY: self.books.view,
            Screen.READER: self.reading.view,
            Screen.NOTES: self._notes_screen,
            Screen.SETTINGS: self.preferences.screen,
            Screen.STATS: self._stats_screen,
            Screen.CATALOG: lambda: build_catalog_screen(self.preferences.catalogs, self.t),
        }
        page.title = self.t("app.title")
        page.padding = 12
        self.keys = KeyRouter(page, self._on_key)  # a dialog or a focused field owns the keyboard; the screen the rest
        page.on_keyboard_event = self._guarded(self.keys.route)
        page.on_app_lifecycle_state_change = self._guarded(self._on_lifecycle)
        page.on_resize = lambda e: self.render()
        page.on_connect = self._guarded(self._on_connect)
        page.on_route_change = self._guarded(self._on_route_change)
        page.pubsub.subscribe(self._guarded(self._from_other_session))  # settings changed in another window
        self.fonts = fonts  # the font files the client can load (None: the reading fonts in assets/)
        apply_theme(page, self.settings, fonts)
        quire.local_only = self.settings.local_only
        if self.store.problem:  # the file did not read: say so (local-only stayed on if it was)
            state = self.t("settings.unreadable.on" if self.settings.local_only else "settings.unreadable.off")
            self.notify(self.t("settings.unreadable", state=state))

    # -- what tests and screen readers look at --------------------------------------------------------
    @property
    def reader(self) -> ReaderViewModel | None:
        """The open book's view-model."""
        return self.reading.model

    @property
    def panel(self) -> str | None:
        return self.reading.panel

    @property
    def library(self) -> LibraryViewModel:
        return self.books.model

    # -- drawing ------------------------------------------------------------------------------
    @property
    def width(self) -> float:
        return self.page.width or 1024

    @property
    def height(self) -> float:
        return self.page.height or 800

    def field_focused(self) -> bool:
        return field_focused(self.page)

    @property
    def on_phone(self) -> bool:
        """The app runs on a phone (not a phone's browser)."""
        return is_phone_app(self.page)

    @property
    def web(self) -> bool:
        """The app runs in a browser tab: its file pickers give no paths."""
        return bool(self.page.web)

    def show_dialog(self, dialog: ft.DialogControl) -> None:
        self.page.show_dialog(dialog)

    def pop_dialog(self) -> None:
        self.page.pop_dialog()

    def update(self) -> None:
        self.page.update()

    @property
    def dark(self) -> bool:
        if self.settings.theme == "dark":
            return True
        return self.settings.theme == "system" and self.page.platform_brightness == ft.Brightness.DARK

    def render(self) -> None:
        """Build the current screen and show it."""
        if self.screen == Screen.READER and self.reader is None:
            self.screen = Screen.LIBRARY
        drawn = self._drawn.get(self.screen)
        if drawn is not None and on_screen(drawn.control):
            drawn.redraw()  # the difference only: the list keeps its place, a card its identity
            self.page.update()  # and what changed outside the screen (an open dialog's lines) goes with it
        elif self.screen in DRAWN:
            drawn = self._drawn[self.screen] = Drawn(self.screens[self.screen])
            self.page.controls[:] = [ft.SafeArea(drawn.control, expand=True)]
            self.page.update()
        else:
            try:
                view = self.screens[self.screen]()
            except (BookNotFoundError, IndexError):
                if self._book_still_there():
                    raise
                self._book_gone()
                return
            self.page.controls[:] = [ft.SafeArea(view, expand=True)]
            self.page.update()
        if self.route not in (address(self.page.route), self._pushed):  # a history entry per screen: back goes back
            self._pushed = self.route  # once: a redraw before the browser confirms it must not add a second entry
            self.workers.later(self.page.push_route, self.route)
        self.device.reading(self.screen == Screen.READER, self.settings.keep_screen_on)
        if not self._warmed:  # load the chat's libraries in the background once the first screen is up
            self._warmed = True
            self.preferences.folders.start()  # the watched folders' new books, offered
            self.workers.thread(lambda: importlib.import_module("app.screens.chat.model"), "quire-warm-chat")

    def _stats_screen(self) -> ft.Control:
        return build_stats_screen(self.quire.stats.report(), self.t, self._go_library, self.width)

    def _notes_screen(self) -> ft.Control:
        return build_notes_screen(
            NotesViewModel(self.quire).refresh(), self.notes_handler(None), self.t, self._go_library
        )

    def _chat_context(self) -> ChatContext:
        return ChatContext(
            quire=self.quire,
            secrets=self.store.secrets,
            settings=lambda: self.settings,
            t=lambda: self.t,
            save_settings=lambda: self.store.save(self.settings),
            index=self,
            open_citation=lambda c: self.open_passage(c.book_id, c.start, c.end),
            open_settings=lambda: self.go(Screen.SETTINGS),
            notify=self.notify,
            redraw=self._redraw_chat,
            workers=self.workers,
            dialogs=self.page,
            guard=self.guard_book,
        )

    def notes_handler(self, book_id: int | None) -> NotesHandler:
        """A notes list's handler: library-wide (the notes screen) or one book's (the reader's notes panel, which
        closes the book with a notice if another window removed it). Its controller is the notes screen's own."""
        handle = NotesController(self, self.reading, book_id).handle
        return NotesHandler(
            handle if book_id is None else self._guarded(handle),
            vault=book_id is None and not self.on_phone,  # the Obsidian export: the library's notes, computers
        )

    # -- a book removed elsewhere -----------------------------------------------------------------
    def guard_book(self, actions: A) -> A:
        """The same actions, each closing the open book with a notice if another window removed it meanwhile.

        Two browser tabs (or the app and the quire command) share one library: the book in this reader
        can disappear between two clicks.
        """
        fields = dataclasses.fields(actions)  # type: ignore[arg-type]  # A: a dataclass of actions
        given = {f.name: getattr(actions, f.name) for f in fields}
        guarded = {
            name: self._guarded(action) for name, action in given.items() if callable(action)
        }  # the actions; flags (what is on offer) and None (not here) stay as they are
        return dataclasses.replace(actions, **guarded)  # type: ignore[type-var]

    def _guarded(self, action: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(action)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return action(*args, **kwargs)
            except (BookNotFoundError, IndexError):
                if self._book_still_there():
                    raise  # a real defect, not a removed book
                self._book_gone()
                return None

        return guarded

    def _book_still_there(self) -> bool:
        if self.reader is None:
            return True
        try:
            self.quire.book(self.reader.book.id)
        except BookNotFoundError:
            return False
        return True

    def _book_gone(self) -> None:
        title = self.reader.book.title if self.reader else ""
        self.reading.model, self.reading.panel, self.screen = None, None, Screen.LIBRARY
        self.render()
        self.notify(self.t("reader.removed", title=title))

    def notify(self, text: str) -> None:
        """A short message at the bottom of the screen."""
        self.message = text
        self.page.show_dialog(ft.SnackBar(ft.Text(text), duration=4000))

    # -- screens ------------------------------------------------------------------------------
    def go(self, screen: Screen) -> None:
        if screen == Screen.SETTINGS and self.screen != Screen.SETTINGS:
            self.preferences.opened()
        self.screen = screen
        self.render()

    def _go_library(self) -> None:
        self.go(Screen.LIBRARY)

    def settings_changed(self) -> None:
        """Save the settings and apply theme and language at once, here and in the app's other open windows."""
        self.store.save(self.settings)
        self._apply_settings()
        self.page.pubsub.send_others(SETTINGS_CHANGED)

    def _apply_settings(self) -> None:
        if self.t.language != Translator(self.settings.language).language:
            self.t = Translator(self.settings.language)
            self.preferences.language_changed()
            self.library.t = self.t
            self.page.title = self.t("app.title")
        apply_theme(self.page, self.settings, self.fonts)
        self.quire.local_only = self.settings.local_only
        self.render()

    def _from_other_session(self, message: object) -> None:
        """Another window of the app (a second browser tab, say) saved the settings: read them and redraw, so
        that the language, the theme and local-only are the same in every window."""
        if message != SETTINGS_CHANGED:
            return

        async def apply() -> None:  # on this window's own loop (the hub may call from its executor's thread)
            self.settings = self.store.load()
            self._apply_settings()

        self.workers.later(apply)

    def open_passage(self, book_id: int, first: Locator, last: Locator) -> None:
        """Open a book at a passage found in the library (its search, an answer from every book), marked."""
        if self.reading.open_passage(book_id, first, last):  # another book: prepared behind, as open_book does
            self.workers.later(self._prepare_behind, book_id)

    def open_book(self, book_id: int) -> None:
        self.reading.open(book_id)
        self.go(Screen.READER)
        # behind the page: the rest of a long PDF, passages or keyword statistics a book lacks (an import cut
        # short, an older library)
        self.workers.later(self._prepare_behind, book_id)
        self.preferences.sync.start("open")  # notes and places from the other devices (when sync is set up)
        self.preferences.koreader.book(book_id)  # and a KOReader device's further place (when KOReader sync is on)

    async def _prepare_behind(self, book_id: int) -> None:
        """Prepare the open book in a worker thread; a long PDF shown from its first pages is then shown whole,
        at the reader's place (the saved one: every page turn saves it)."""
        await asyncio.to_thread(self.library.prepare, book_id)
        model = self.reading.model
        shown_in_part = model is not None and model.book.id == book_id and model.in_part is not None
        if shown_in_part and self.quire.text.read_in_part(book_id) is None:
            panel = self.reading.panel  # read again at its saved place, with the same panel open
            self.reading.open(book_id)
            self.reading.panel = panel
            self.render()

    def close_book(self) -> None:
        book = self.reading.model.book.id if self.reading.model is not None else None
        self.reading.close()
        self._go_library()
        self.preferences.sync.start("close")  # where the reader stopped, for the other devices
        if book is not None:
            self.preferences.koreader.book(book, closing=True)

    # -- chat and background jobs -----------------------------------------------------------------
    def _redraw_chat(self) -> None:
        """Redraw just the chat panel (the text beside it stays as it is)."""
        if self.panel == "chat" and self.reader is not None:
            self.chat.refresh(self.reader)
            self.page.update()

    def start_index(self, book_id: int | None = None) -> None:
        """Index a book (the open one by default) in the background; panels show progress and can cancel."""
        target = book_id if book_id is not None else (self.reader.book.id if self.reader else None)
        if target is not None:
            self.jobs.start_index(target, self._embedder)

    def _embedder(self) -> str | None:
        """The remote embedding endpoint chosen in Settings (registered now), or None for on-device models."""
        remote = self.settings.remote_embedder
        if remote is None:
            return None
        spec, base_url = remote
        return self.quire.models.use_remote(spec, base_url, self.store.embedding_key(spec.split(":")[0], base_url))

    def index_line(self, book_id: int) -> IndexLine:
        """What the panels show about a book's index."""
        return self.jobs.index_line(book_id)

    def cancel_index(self, book_id: int | None = None) -> None:
        target = book_id if book_id is not None else (self.reader.book.id if self.reader else None)
        if target is not None:
            self.jobs.cancel_index(target)

    def _jobs_changed(self) -> None:
        """Progress from a worker thread: redraw what shows it (the chat panel, or the settings screen)."""

        async def redraw() -> None:
            if self.screen == Screen.SETTINGS:
                self.render()
            else:
                self._redraw_chat()

        self.workers.later(redraw)

    # -- routes: the browser's back and forward, and an address that opens a book -----------------
    @property
    def route(self) -> str:
        """The address of what this window shows: ``/``, ``/book/<id>``, ``/notes`` or ``/settings``."""
        if self.screen == Screen.READER and self.reader is not None:
            return f"/book/{self.reader.book.id}"
        return "/" if self.screen == Screen.LIBRARY else f"/{self.screen}"

    def _on_route_change(self, event: ft.RouteChangeEvent) -> None:
        """Show what the address names: the browser's back or forward button (a phone browser's edge swipe), or
        an address typed or reloaded. Leaving the reader this way closes the book as its Library button does."""
        self._pushed = address(event.route)
        self.follow_route(event.route)

    def follow_route(self, route: str | None) -> bool:
        """Go to the screen an address names (one that names nothing Quire has shows the library); False when it
        names what this window shows already, and nothing was drawn."""
        route = address(route)
        if route == self.route:
            return False  # the entry this window pushed for what it shows
        parts = route.split("/")
        if len(parts) == 3 and parts[1] == "book" and parts[2].isdigit():
            book_id = int(parts[2])
            if not any(b.id == book_id for b in self.quire.books()):
                self.close_book() if self.screen == Screen.READER else self._go_library()
                self.notify(self.t("reader.not_here"))
                return True
            if self.screen == Screen.READER:
                self.reading.close()
            self.open_book(book_id)
        else:
            named = {f"/{screen}": screen for screen in (Screen.NOTES, Screen.SETTINGS, Screen.STATS)}.get(
                route, Screen.LIBRARY
            )
            if route == f"/{Screen.CATALOG}":  # back or forward to the catalog browsed, else its Settings
                named = Screen.CATALOG if self.preferences.catalogs.catalog is not None else Screen.SETTINGS
            if self.screen == Screen.READER:
                self.close_book()  # the book's place saved, as its Library button does
            if named != self.screen:
                self.go(named)
        return True

    # -- keys ---------------------------------------------------------------------------------
    def _on_connect(self, event: ft.Event[ft.Page]) -> None:
        """A tab reloaded (Flet gives it the session it had) or reconnected: the screen is drawn again from the
        library, so what another window or a ``quire import`` changed meanwhile shows (it kept the old count)."""
        self.render()

    def _on_lifecycle(self, event: ft.AppLifecycleStateChangeEvent) -> None:
        """Save the reading place when the app goes to the background: a phone may end it there without notice."""
        if self.reader is not None:  # time in the background is not reading time
            if event.state in BACKGROUND_STATES:
                self.reader.place.save(still=True)  # the place kept; the page's time so far counts when it is turned
            self.reader.place.away("background", event.state in BACKGROUND_STATES)
        if event.state in (ft.AppLifecycleState.PAUSE, ft.AppLifecycleState.RESUME):
            self.preferences.sync.start(event.state.value)  # a phone may end the app while paused: send first
        if event.state == ft.AppLifecycleState.RESUME:
            self.workers.later(self.opened.take)  # a book opened with Quire from another app brings it back

    def _on_key(self, event: ft.KeyboardEvent) -> None:
        """Desktop shortcuts, for the keys the router leaves to the screen: Esc closes a panel, then the book, then
        the screen (not a screen whose field is being typed in: what is typed there would be lost); the reader
        takes the rest."""
        if event.key == "Escape":
            if self.panel is None and self.keys.owner() == "field":
                return
            if self.panel is not None:
                self.reading.open_panel(None)
            elif self.screen == Screen.READER:
                self.close_book()
            elif self.screen != Screen.LIBRARY:
                self._go_library()
            return
        if self.reader is not None and self.screen == Screen.READER:
            command = bool(getattr(event, "ctrl", False) or getattr(event, "meta", False))
            self.reading.on_key(event.key, command)
