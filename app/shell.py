"""The app shell: owns the page, switches screens, and routes keys, clicks and dialogs to the view-models."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import flet as ft

from app.chat_controller import ChatController
from app.device import ReadingDevice
from app.i18n import Translator
from app.inbox import DocumentsInbox
from app.jobs import Jobs
from app.library_model import LibraryViewModel
from app.library_page import LibraryActions, build_details_dialog, build_library_view, status_line
from app.notes_model import NotesViewModel
from app.notes_page import NotesActions, build_notes_list, build_notes_screen, note_dialog
from app.reader_model import ReaderViewModel
from app.reader_page import ReaderActions, build_reader_view, page_box, percent_label, selection_bar
from app.settings import Settings, SettingsStore
from app.settings_page import AIActions, build_settings_screen, reading_controls
from app.theme import apply_theme
from core.agent.provider_config import ProviderConfig
from core.books.formats import SUPPORTED
from core.errors import BookNotFoundError, QuireError
from core.library import Bookmark, Highlight
from core.services import Quire
from platform_adapters.base import PickedFile, SecretStore
from platform_adapters.mobile import phone_os

if TYPE_CHECKING:  # the chat model loads LangChain: imported in the background after the first screen
    from core.agent.citations import Citation

A = TypeVar("A")  # a dataclass of actions
PHONES = (ft.PagePlatform.ANDROID, ft.PagePlatform.IOS)
BACKGROUND_STATES = {
    ft.AppLifecycleState.INACTIVE,
    ft.AppLifecycleState.HIDE,
    ft.AppLifecycleState.PAUSE,
    ft.AppLifecycleState.DETACH,
}
NEXT_KEYS = {"Arrow Right", "Arrow Down", "Page Down", " "}
PREVIOUS_KEYS = {"Arrow Left", "Arrow Up", "Page Up"}


class QuireApp:
    """One window (or browser tab) of Quire; every screen is rebuilt from its view-model when it changes."""

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
        self.library = LibraryViewModel(quire, self.t)
        self.reader: ReaderViewModel | None = None
        self.screen = "library"  # library, reader, notes, settings
        self.panel: str | None = None  # reader side panel: toc, search, notes, appearance, chat
        self.message = ""  # the last import summary, for tests and screen readers
        self.selection_slot = ft.Container()  # the reader's highlight bar, updated on its own
        self.percent_text = ft.Text()  # the reader's "n% read", updated on its own while scrolling
        self._warmed = False
        self.typing = False  # a text field in the contents panel has the keyboard
        self.jobs = Jobs(quire, lambda: self.t, self._jobs_changed)  # indexing and model downloads
        self.chat = ChatController(self)  # the chat panel of the open book
        self.device = ReadingDevice(page, lambda: self.on_phone)  # wake lock and haptics on phones
        page.title = self.t("app.title")
        page.padding = 12
        page.on_keyboard_event = self._guarded(self.on_key)
        page.on_app_lifecycle_state_change = self._guarded(self.on_lifecycle)
        page.on_resize = lambda e: self.render()
        self.fonts = fonts  # the font files the client can load (None: the reading fonts in assets/)
        apply_theme(page, self.settings, fonts)
        quire.local_only = self.settings.local_only

    # -- drawing ------------------------------------------------------------------------------
    @property
    def width(self) -> float:
        return self.page.width or 1024

    @property
    def on_phone(self) -> bool:
        """The app runs on a phone (not a phone's browser)."""
        return bool(phone_os()) or (self.page.platform in PHONES and not self.page.web)

    @property
    def dark(self) -> bool:
        if self.settings.theme == "dark":
            return True
        return self.settings.theme == "system" and self.page.platform_brightness == ft.Brightness.DARK

    def render(self) -> None:
        """Build the current screen and show it."""
        if self.screen == "reader" and self.reader is not None:
            try:
                view = self._reader_view()
            except (BookNotFoundError, IndexError):
                if self._book_still_there():
                    raise
                self._book_gone()
                return
        elif self.screen == "notes":
            view = build_notes_screen(NotesViewModel(self.quire), self._notes_actions(None), self.t, self.go_library)
        elif self.screen == "settings":
            view = build_settings_screen(
                self.settings,
                self.store,
                self.t,
                changed=self.settings_changed,
                on_back=self.go_library,
                quire=self.quire,
                actions=self._ai_actions(),
                width=self.width,
                phone=self.on_phone,
            )
        else:
            view = build_library_view(self.library, self._library_actions(), self.t, width=self.width)
        self.page.controls[:] = [ft.SafeArea(view, expand=True)]
        self.page.update()
        self.device.reading(self.screen == "reader" and self.reader is not None, self.settings.keep_screen_on)
        if not self._warmed:  # load the chat's libraries in the background once the first screen is up
            self._warmed = True
            threading.Thread(target=importlib.import_module, args=("app.chat_model",), daemon=True).start()

    def _library_actions(self) -> LibraryActions:
        return LibraryActions(
            open_book=self.open_book,
            show_details=self.show_details,
            import_books=lambda: self.page.run_task(self.pick_and_import),
            open_notes=lambda: self.go("notes"),
            open_settings=lambda: self.go("settings"),
            changed=self.render,
        )

    def _reader_actions(self) -> ReaderActions:
        return self.guard_book(
            ReaderActions(
                back=self.close_book,
                navigate=self.navigate,
                panel=self.open_panel,
                scrolled=self.scrolled,
                select=self.select,
                highlight=self.highlight,
                toggle_bookmark=self.toggle_bookmark,
                ask_about=self.ask_about_selection,
                search=self.search,
                open_hit=self.open_hit,
                load_more=self.load_more,
                typing=self.set_typing,
                go_back=self.go_back,
                read_up_to_here=self.read_up_to_here,
                more_hits=self.more_hits,
            )
        )

    def _notes_actions(self, book_id: int | None) -> NotesActions:
        model = NotesViewModel(self.quire, book_id)

        def recolour(h: Highlight, color: str) -> None:
            model.set_color(h.id, color)
            self.render()

        def remove(h: Highlight) -> None:
            model.remove(h.id)
            self.render()

        def open_bookmark(bookmark: Bookmark) -> None:
            self.navigate(str(bookmark.locator))

        def remove_bookmark(bookmark: Bookmark) -> None:
            model.remove_bookmark(bookmark.id)
            self.render()

        actions = NotesActions(
            open_bookmark=open_bookmark,
            remove_bookmark=remove_bookmark,
            open_highlight=self.open_highlight,
            edit_note=lambda h: self.edit_note(h, model),
            set_color=recolour,
            remove=remove,
            export=lambda: self.page.run_task(self.export_notes, model),
        )
        return self.guard_book(actions) if book_id is not None else actions

    def _reader_view(self) -> ft.Control:
        assert self.reader is not None
        paginated = self.settings.layout == "paginated"
        box = page_box(
            self.settings, self.width, self.page.height or 800, self.panel, self.reader.return_to is not None
        )
        self.reader.set_box(box if paginated else None)
        self.selection_slot = ft.Container()
        self.percent_text = ft.Text()
        content = None
        if self.panel == "notes":
            content = build_notes_list(
                NotesViewModel(self.quire, self.reader.book.id), self._notes_actions(self.reader.book.id), self.t
            )
        elif self.panel == "chat":
            self.chat.fill(self.reader)
            content = self.chat.slot
        elif self.panel == "appearance":
            content = ft.ListView(
                reading_controls(self.settings, self.settings_changed, self.t), spacing=8, expand=True
            )
        return build_reader_view(
            self.reader,
            self.t,
            settings=self.settings,
            width=self.width,
            actions=self._reader_actions(),
            panel=self.panel,
            panel_content=content,
            selection_slot=self.selection_slot,
            percent_text=self.percent_text,
            dark=self.dark,
        )

    # -- a book removed elsewhere -----------------------------------------------------------------
    def guard_book(self, actions: A) -> A:
        """The same actions, each closing the open book with a notice if another window removed it meanwhile.

        Two browser tabs (or the app and the quire command) share one library: the book in this reader
        can disappear between two clicks.
        """
        return dataclasses.replace(
            actions, **{f.name: self._guarded(getattr(actions, f.name)) for f in dataclasses.fields(actions)}
        )

    def _guarded(self, action: Callable) -> Callable:
        @functools.wraps(action)
        def guarded(*args, **kwargs):
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
        self.reader, self.panel, self.screen = None, None, "library"
        self.render()
        self.notify(self.t("reader.removed", title=title))

    def notify(self, text: str) -> None:
        """A short message at the bottom of the screen."""
        self.message = text
        self.page.show_dialog(ft.SnackBar(ft.Text(text), duration=4000))

    # -- screens ------------------------------------------------------------------------------
    def go(self, screen: str) -> None:
        self.screen = screen
        self.render()

    def go_library(self) -> None:
        self.go("library")

    def settings_changed(self) -> None:
        """Save the settings and apply theme and language at once."""
        self.store.save(self.settings)
        if self.t.language != Translator(self.settings.language).language:
            self.t = Translator(self.settings.language)
            self.library.t = self.t
            self.page.title = self.t("app.title")
        apply_theme(self.page, self.settings, self.fonts)
        self.quire.local_only = self.settings.local_only
        self.render()

    # -- library ------------------------------------------------------------------------------
    def open_book(self, book_id: int) -> None:
        self.reader = ReaderViewModel(self.quire, book_id)
        self.reader.open()
        self.screen = "reader"
        self.panel = "toc" if self.width >= 1200 else None
        self.render()

    def show_details(self, book_id: int) -> None:
        def opened(book: int) -> None:
            self.page.pop_dialog()
            self.open_book(book)

        def closed() -> None:
            self.page.pop_dialog()

        self.page.show_dialog(
            build_details_dialog(
                self.library,
                book_id,
                self.t,
                on_open=opened,
                on_remove=self.confirm_remove,
                on_close=closed,
                on_tag=self.add_tag,
                on_edit=self.edit_book,
            )
        )

    def edit_book(self, book_id: int, title: str, authors: str) -> None:
        """Title and authors as the reader wants them (authors separated by commas, 、 or ;)."""
        names = [name.strip() for name in re.split(r"[,，、;；]", authors) if name.strip()]
        try:
            self.quire.edit_book(book_id, title=title, authors=names)
        except QuireError as error:
            self.notify(self.t.error(error))
            return
        self.page.pop_dialog()
        self.render()
        self.notify(self.t("details.saved"))

    def add_tag(self, book_id: int, tag: str) -> None:
        """Tag a book from its details; the dialog shows the new tag and the library its filter chip."""
        if tag.strip():
            self.quire.tag(book_id, tag.strip())
        self.page.pop_dialog()
        self.render()
        self.show_details(book_id)

    def confirm_remove(self, book_id: int) -> None:
        """Ask before removing a book and its notes."""

        def remove(e: ft.Event) -> None:
            self.page.pop_dialog()
            self.library.remove(book_id)
            self.render()

        self.page.pop_dialog()
        self.page.show_dialog(
            ft.AlertDialog(
                title=ft.Text(self.t("library.remove")),
                content=ft.Text(self.library.remove_prompt(book_id)),
                actions=[
                    ft.TextButton(self.t("common.cancel"), on_click=lambda e: self.page.pop_dialog()),
                    ft.FilledButton(self.t("library.remove"), on_click=remove),
                ],
            )
        )

    async def offer_documents_inbox(self) -> None:
        """iOS: offer the book files waiting in Quire's Documents folder (put there with the Files app or "Open in")."""
        if phone_os() != "ios":
            return
        try:
            documents = await ft.StoragePaths().get_application_documents_directory()
        except (RuntimeError, TimeoutError) as error:  # the device could not say: nothing to offer this time
            self.notify(self.t("inbox.unavailable", reason=error))
            return
        if not documents:
            return
        inbox = DocumentsInbox(Path(documents), self.quire.folder / "documents-inbox.json")
        waiting = await asyncio.to_thread(inbox.waiting, self.quire.has_content)
        if not waiting:
            return

        async def import_them(e: ft.Event) -> None:
            inbox.settle(waiting)
            self.page.pop_dialog()
            await self.import_picked([PickedFile(p.name, path=p) for p in waiting])

        def leave_them(e: ft.Event) -> None:
            inbox.settle(waiting)  # not asked again; "Import" can still pick them from the Files app
            self.page.pop_dialog()

        names = ", ".join(p.name for p in waiting[:5]) + (" …" if len(waiting) > 5 else "")
        self.page.show_dialog(
            ft.AlertDialog(
                title=ft.Text(self.t("inbox.title", n=len(waiting))),
                content=ft.Text(self.t("inbox.body", names=names)),
                actions=[
                    ft.TextButton(self.t("inbox.leave"), on_click=leave_them),
                    ft.FilledButton(self.t("inbox.import"), on_click=import_them),
                ],
            )
        )

    async def pick_and_import(self) -> None:
        """Let the reader pick book files (paths on desktops, bytes in a browser) and import them."""
        files = await ft.FilePicker().pick_files(
            dialog_title=self.t("library.import"),
            allow_multiple=True,
            file_type=ft.FilePickerFileType.CUSTOM,
            allowed_extensions=sorted({ext.lstrip(".") for ext in SUPPORTED}),
            with_data=bool(self.page.web),
        )
        picked = [
            PickedFile(f.name, path=Path(f.path) if f.path else None, data=getattr(f, "bytes", None))
            for f in files or []
        ]
        await self.import_picked(picked)

    async def import_picked(self, picked: list[PickedFile]) -> None:
        """Import files one by one in a worker thread, with a progress dialog and one line per file."""
        if not picked:
            return
        progress = ft.ProgressBar(value=0)
        status = ft.Text("")
        lines = ft.Column([], tight=True, scroll=ft.ScrollMode.AUTO, height=160)
        dialog = ft.AlertDialog(
            title=ft.Text(self.t("library.import")),
            content=ft.Column([status, progress, lines], tight=True, width=420),
            actions=[ft.TextButton(self.t("common.close"), on_click=lambda e: self.page.pop_dialog())],
        )
        self.page.show_dialog(dialog)
        outcomes = []
        for number, item in enumerate(picked, 1):
            status.value = self.t("import.progress", n=number, total=len(picked), name=item.name)
            self.page.update()
            outcome = await asyncio.to_thread(self.library.import_one, item)
            outcomes.append(outcome)
            if outcome.ok and outcome.book_id is not None and self.settings.auto_index:
                self.start_index(outcome.book_id)  # "index books after import" is on
            lines.controls.append(status_line(outcome.message, ok=outcome.ok))
            progress.value = number / len(picked)
            self.page.update()
        new = sum(o.created for o in outcomes)
        known = sum(o.ok and not o.created for o in outcomes)
        status.value = self.t("import.summary", new=new, known=known, failed=len(outcomes) - new - known)
        self.message = status.value
        self.render()

    # -- reader -------------------------------------------------------------------------------
    def close_book(self) -> None:
        if self.reader is not None:
            self.reader.save_position()
        self.reader = None
        self.panel = None
        self.go_library()

    def set_typing(self, focused: bool) -> None:
        """A text field beside the text has the keyboard: page keys must type, not turn pages."""
        self.typing = focused

    def open_panel(self, name: str | None) -> None:
        self.panel = None if name == self.panel else name
        self.render()

    def navigate(self, where: str) -> None:
        if self.reader is None:
            return
        self.typing = False  # a choice was made: the keys turn pages again
        if where in ("next", "previous"):
            if where == "next":
                self.reader.next_page()
            else:
                self.reader.previous_page()
            self.device.page_turned(self.settings.haptic_page_turns)
        else:
            try:
                self.reader.go_to_place(where)
            except QuireError as error:
                reason = self.t.error_named(type(error).__name__, str(error), sentence_in_english=False)
                self.notify(self.t("reader.goto.error", reason=reason))
                return
            if self.width < 900:
                self.panel = None  # on a phone the contents sheet closes on a choice
        self.render()

    def scrolled(self, fraction: float) -> None:
        if self.reader is None:
            return
        self.reader.scrolled(fraction)
        shown = percent_label(self.reader, self.t)
        if self.percent_text.value != shown:
            self.percent_text.value = shown
            self.page.update()  # a diff: only the changed text goes to the client

    def go_back(self) -> None:
        """Back to where the reader was before a jump (a citation, a search hit, the contents, "go to")."""
        if self.reader is not None and self.reader.go_back() is not None:
            self.render()

    def read_up_to_here(self) -> None:
        """ "I haven't read past here": the furthest place read (the spoiler bound, "% read") moves back."""
        if self.reader is not None:
            self.reader.mark_read_up_to_here()
            self.render()
            self.notify(self.t("reader.read_up_to_here.done", p=f"{self.reader.percent:.0f}"))

    def load_more(self, forward: bool) -> None:
        if self.reader is not None:
            self.reader.load_more(forward)
            self.render()

    def select(self, ordinal: int, start: int, end: int) -> None:
        if self.reader is None:
            return
        if ordinal >= 0 and start == end:
            return  # a caret or a collapsed selection (also sent when text is redrawn): keep what was selected
        self.reader.select(ordinal, start, end)
        self.selection_slot.content = selection_bar(self.reader, self._reader_actions(), self.t)
        self.page.update()

    def highlight(self, color: str) -> None:
        if self.reader is not None:
            self.reader.highlight_selection(color)
            self.render()

    def toggle_bookmark(self) -> None:
        if self.reader is not None:
            added = self.reader.toggle_bookmark()
            self.render()
            self.notify(self.t("reader.bookmark.added") if added else self.t("reader.bookmark.removed"))

    def search(self, query: str) -> None:
        if self.reader is not None:
            self.reader.search(query)
            self.render()

    def more_hits(self) -> None:
        if self.reader is not None:
            self.reader.show_more_hits()
            self.render()

    def open_hit(self, index: int) -> None:
        if self.reader is None or index >= len(self.reader.search_hits):
            return
        self.reader.open_hit(self.reader.search_hits[index], self.reader.search_query)
        if self.width < 900:
            self.panel = None
        self.render()

    def open_highlight(self, highlight: Highlight) -> None:
        if self.reader is None or self.reader.book.id != highlight.book_id:
            self.open_book(highlight.book_id)
        assert self.reader is not None
        self.reader.go_to(highlight.start.segment_locator)
        self.screen = "reader"
        if self.width < 900:
            self.panel = None
        self.render()

    def edit_note(self, highlight: Highlight, model: NotesViewModel) -> None:
        def save(text: str) -> None:
            model.set_note(highlight.id, text)
            self.page.pop_dialog()
            self.render()

        self.page.show_dialog(note_dialog(highlight, self.t, save, lambda: self.page.pop_dialog()))

    async def export_notes(self, model: NotesViewModel) -> None:
        """Save the notes as Markdown: the share sheet on a phone (the app's own folder is out of the reader's
        reach there), a download in a browser, else the exports folder."""
        name, text = model.export_markdown()
        data = text.encode("utf-8")
        if self.on_phone:
            shared = ft.ShareFile.from_bytes(data, mime_type="text/markdown", name=name)
            await ft.Share().share_files([shared], subject=name)
            self.notify(self.t("notes.shared", name=name))
            return
        if self.page.web:
            await ft.FilePicker().save_file(file_name=name, src_bytes=data)  # the browser downloads it
            self.notify(self.t("notes.exported", path=name))
            return
        path = model.save_export(self.quire.folder / "exports")
        self.notify(self.t("notes.exported", path=str(path)))

    # -- chat ---------------------------------------------------------------------------------
    def redraw_chat(self) -> None:
        """Redraw just the chat panel (the text beside it stays as it is)."""
        if self.panel == "chat" and self.reader is not None:
            self.chat.fill(self.reader)
            self.page.update()

    def ask_about_selection(self) -> None:
        """'Ask about this': open the chat and ask about the selected passage."""
        if self.reader is None or self.reader.selection is None:
            return
        passage = self.reader.selection.text
        self.panel = "chat"
        self.render()
        excerpt = passage if len(passage) <= 80 else passage[:80].rstrip() + "…"  # the agent reads it whole
        self.chat.ask(self.reader, self.t("chat.suggest.explain", passage=excerpt))

    def open_citation(self, citation: Citation) -> None:
        if self.reader is None:
            return
        self.reader.open_citation(citation.start, citation.end)
        if self.width < 900:
            self.panel = None  # on a phone the chat sheet gives way to the page
        self.render()

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
        return self.quire.use_remote_embedder(spec, base_url, self.store.embedding_key(spec.split(":")[0], base_url))

    def cancel_index(self, book_id: int | None = None) -> None:
        target = book_id if book_id is not None else (self.reader.book.id if self.reader else None)
        if target is not None:
            self.jobs.cancel_index(target)

    def _jobs_changed(self) -> None:
        """Progress from a worker thread: redraw what shows it (the chat panel, or the settings screen)."""

        async def redraw() -> None:
            if self.screen == "settings":
                self.render()
            else:
                self.redraw_chat()

        self.page.run_task(redraw)

    def _ai_actions(self) -> AIActions:
        def test_connection(config: ProviderConfig, report) -> None:
            async def run() -> None:
                try:
                    message, ok = (
                        await asyncio.to_thread(self.quire.check_provider, config, self.store.secrets),
                        True,
                    )
                except QuireError as error:
                    message, ok = self.t.error(error), False
                report(message, ok)

            self.page.run_task(run)

        return AIActions(
            test_connection=test_connection,
            download=self.jobs.download,
            start_index=self.start_index,
            cancel_index=self.cancel_index,
            index_line=self.jobs.index_line,
            progress=lambda name: self.jobs.downloads.get(name, ""),
            refresh=self.page.update,
        )

    # -- keys ---------------------------------------------------------------------------------
    def on_lifecycle(self, event: ft.AppLifecycleStateChangeEvent) -> None:
        """Save the reading place when the app goes to the background: a phone may end it there without notice."""
        if event.state in BACKGROUND_STATES and self.reader is not None:
            self.reader.save_position()

    def on_key(self, event: ft.KeyboardEvent) -> None:
        """Desktop shortcuts: arrows and Page keys turn pages, Ctrl+F searches, Esc closes panels, then the book."""
        if event.key == "Escape":
            if self.panel is not None:
                self.open_panel(None)
            elif self.screen == "reader":
                self.close_book()
            elif self.screen != "library":
                self.go_library()
            return
        if self.reader is None or self.screen != "reader":
            return
        if event.key.upper() == "F" and (getattr(event, "ctrl", False) or getattr(event, "meta", False)):
            self.panel = "search"
            self.render()
        elif self.typing or self.panel in ("search", "notes", "appearance", "chat"):
            return  # keys go to the panel's fields, not to page turning
        elif event.key in NEXT_KEYS:
            self.navigate("next")
        elif event.key in PREVIOUS_KEYS:
            self.navigate("previous")
