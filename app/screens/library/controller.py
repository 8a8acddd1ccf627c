"""The library screen's controller: opening, importing, editing, tagging and removing books."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import flet as ft

from app.dialogs import ImportDialog, build_details_dialog, confirm_remove_dialog, inbox_dialog
from app.phone.inbox import DocumentsInbox
from app.screens import Screen
from app.screens.chat import intents as intent
from app.screens.library.answer import LibraryAnswerDialog
from app.screens.library.intents import AskLibrary, OpenPassage, SearchText, TextIntent
from app.screens.library.model import LibraryViewModel
from app.screens.library.view import LibraryActions, PendingCovers, build_library_view
from core import SUPPORTED, QuireError, ReadProgress
from platform_adapters.base import PickedFile
from platform_adapters.mobile import phone_os

PROGRESS_INTERVAL = 0.5  # seconds between redraws of a long book's page count
TYPING_PAUSE = 0.3  # seconds without typing before the books' text is searched for the query
SEARCH = "library-search"  # the workers' group of that search: a newer query cancels the one before

if TYPE_CHECKING:
    from app.screens.chat.intents import ChatIntent
    from app.screens.library.port import LibraryPort


class LibraryController:
    """The library screen; ``model`` holds its search, sort, tag and layout."""

    def __init__(self, app: LibraryPort) -> None:
        self.app = app
        self.model = LibraryViewModel(app.quire, app.t)
        self.covers = PendingCovers()  # the covers asked for, across drawings (each is read once)
        self._read = True  # whether the next drawing reads the library first (not after covers or a page read)
        self.model.spoilers = lambda: not app.settings.spoiler_protection
        self.answer: LibraryAnswerDialog | None = None  # "Ask your library", while it is open

    def view(self) -> ft.Control:
        app = self.app
        actions = LibraryActions(
            open_book=app.open_book,
            show_details=self.show_details,
            import_books=lambda: app.workers.later(self.pick_and_import),
            go=app.go,
            changed=app.render,
            drawn_again=self._drawn_again,
            later=app.workers.later,
            text=self.text,
        )
        if self._read:
            self.model.refresh()
        self._read = True
        return build_library_view(self.model, actions, app.t, width=app.width, covers=self.covers)

    def _drawn_again(self) -> None:
        """Draw the library from what its model holds now (covers read, the shelf's next page), reading nothing."""
        if self.app.screen == Screen.LIBRARY:
            self._read = False
            self.app.render()

    # -- the books' text ------------------------------------------------------------------------------
    def text(self, wanted: TextIntent) -> None:
        match wanted:
            case SearchText(query):
                self.search_text(query)
            case OpenPassage(row):
                self.app.open_passage(row.book_id, row.start, row.end)
            case AskLibrary(question):
                self.ask_library(question)

    def search_text(self, query: str) -> None:
        """Look for ``query`` in the books' text behind the screen once the typing pauses, then draw the passages
        (a query typed meanwhile wins: the search before it is cancelled, waiting or running)."""
        app = self.app
        if not query.strip():
            app.workers.cancel(SEARCH)
            self.model.find_passages("")
            return

        async def look() -> None:
            await asyncio.sleep(TYPING_PAUSE)
            try:
                await asyncio.to_thread(self.model.find_passages, query)
            except QuireError as error:  # a book removed meanwhile, a model that would not load: said, not raised
                app.notify(app.t.error(error))
                return
            self._drawn_again()

        app.workers.later(look, group=SEARCH)

    def ask_library(self, question: str) -> None:
        """ "Ask your library": the question answered from every book (each as far as it was read), in a dialog of
        its own; a citation closes it and opens its book at the passage."""
        app = self.app
        if not question.strip():
            return
        chat = app.chat.conversation(None)
        chat.new_thread()  # a new conversation; the earlier ones stay in the library's threads
        titles = {book.id: book.title for book in app.quire.books()}

        def changed() -> None:  # from the answer's worker thread
            async def redraw() -> None:
                if self.answer is not None:
                    self.answer.redraw()
                    app.update()

            app.workers.later(redraw)

        def close() -> None:
            chat.stop()
            self.answer = None
            app.pop_dialog()

        def post(wanted: ChatIntent) -> None:
            match wanted:
                case intent.Ask(asked):
                    chat.ask(asked, changed)
                    changed()
                case intent.Stop():
                    chat.stop()
                case intent.Regenerate():
                    chat.regenerate(changed)
                case intent.OpenCitation(citation):
                    close()
                    app.open_passage(citation.book_id, citation.start, citation.end)
                case intent.Copy(text):
                    app.workers.later(app.chat.copy, text)

        self.answer = LibraryAnswerDialog(
            chat, post, app.t, lambda book: titles.get(book, "?"), close, phone=app.on_phone
        )
        app.show_dialog(self.answer.dialog)
        post(intent.Ask(question))

    # -- details ------------------------------------------------------------------------------------
    def show_details(self, book_id: int) -> None:
        app = self.app

        def opened(book: int) -> None:
            app.pop_dialog()
            app.open_book(book)

        app.show_dialog(
            build_details_dialog(
                self.model,
                book_id,
                app.t,
                on_open=opened,
                on_remove=self.confirm_remove,
                on_close=lambda: app.pop_dialog(),
                on_tag=self.add_tag,
                on_edit=self.edit_book,
            )
        )

    def edit_book(self, book_id: int, title: str, authors: str) -> None:
        """Title and authors as the reader wants them (authors separated by commas, 、 or ;)."""
        app = self.app
        names = [name.strip() for name in re.split(r"[,，、;；]", authors) if name.strip()]
        try:
            app.quire.edit_book(book_id, title=title, authors=names)
        except QuireError as error:
            app.notify(app.t.error(error))
            return
        app.pop_dialog()
        app.render()
        app.notify(app.t("details.saved"))

    def add_tag(self, book_id: int, tag: str) -> None:
        """Tag a book from its details; the dialog shows the new tag and the library its filter chip."""
        if tag.strip():
            self.app.quire.tag(book_id, tag.strip())
        self.app.pop_dialog()
        self.app.render()
        self.show_details(book_id)

    def confirm_remove(self, book_id: int) -> None:
        """Ask before removing a book and its notes."""
        app = self.app

        def remove() -> None:
            app.pop_dialog()
            self.model.remove(book_id)
            app.render()

        app.pop_dialog()
        prompt = self.model.remove_prompt(book_id)
        app.show_dialog(confirm_remove_dialog(app.t, prompt, remove, lambda: app.pop_dialog()))

    # -- import -------------------------------------------------------------------------------------
    async def offer_documents_inbox(self) -> None:
        """iOS: offer the book files waiting in Quire's Documents folder (put there with the Files app or "Open in")."""
        app = self.app
        if phone_os() != "ios":
            return
        try:
            documents = await ft.StoragePaths().get_application_documents_directory()
        except (RuntimeError, TimeoutError) as error:  # the device could not say: nothing to offer this time
            app.notify(app.t("inbox.unavailable", reason=error))
            return
        if not documents:
            return
        inbox = DocumentsInbox(Path(documents), app.quire.folder / "documents-inbox.json")
        waiting = await asyncio.to_thread(inbox.waiting, app.quire.has_content)
        if not waiting:
            return

        async def import_them() -> None:
            inbox.settle(waiting)
            app.pop_dialog()
            await self.import_picked([PickedFile(p.name, path=p) for p in waiting])

        def leave_them() -> None:
            inbox.settle(waiting)  # not asked again; "Import" can still pick them from the Files app
            app.pop_dialog()

        app.show_dialog(inbox_dialog(app.t, [p.name for p in waiting], import_them, leave_them))

    async def pick_and_import(self) -> None:
        """Let the reader pick book files (paths on desktops, bytes in a browser) and import them."""
        app = self.app
        # The dialog comes first: a browser hands the chosen files over only once it has sent every byte, which
        # took 10 to 20 seconds for a few books with nothing on screen.
        dialog = ImportDialog(app.t, lambda: app.pop_dialog())
        dialog.status.value, dialog.progress.value = app.t("import.waiting"), None  # an indeterminate bar
        app.show_dialog(dialog.dialog)
        try:
            files = await ft.FilePicker().pick_files(
                dialog_title=app.t("library.import"),
                allow_multiple=True,
                file_type=ft.FilePickerFileType.CUSTOM,
                allowed_extensions=sorted({ext.lstrip(".") for ext in SUPPORTED} | {"zip"}),  # .fb2.zip
                with_data=app.web,
            )
        except Exception:
            app.pop_dialog()
            raise
        picked = [
            PickedFile(f.name, path=Path(f.path) if f.path else None, data=getattr(f, "bytes", None))
            for f in files or []
        ]
        if not picked:  # the reader cancelled the picker
            app.pop_dialog()
            return
        await self.import_picked(picked, dialog)

    def _reading_progress(self, dialog: ImportDialog, number: int, files: int, name: str) -> ReadProgress:
        """Page by page progress of a long book's import, redrawn at most twice a second (from the worker thread)."""
        app = self.app
        last = [0.0]

        async def redraw() -> None:
            app.update()

        def reading(pages: int, total: int) -> None:
            if pages < total and time.monotonic() - last[0] < PROGRESS_INTERVAL:
                return
            last[0] = time.monotonic()
            dialog.status.value = app.t("import.reading", n=number, total=files, name=name, page=pages, pages=total)
            dialog.progress.value = (number - 1 + pages / total) / files
            with contextlib.suppress(RuntimeError, AttributeError):  # the session closed: the import goes on unseen
                app.workers.later(redraw)

        return reading

    async def import_picked(self, picked: list[PickedFile], dialog: ImportDialog | None = None) -> None:
        """Import files one by one in a worker thread, with a progress dialog (``dialog``, when one is already up)
        and one line per file."""
        app = self.app
        if not picked:
            return
        if dialog is None:
            dialog = ImportDialog(app.t, lambda: app.pop_dialog())
            app.show_dialog(dialog.dialog)
        dialog.progress.value = 0
        outcomes = []
        for number, item in enumerate(picked, 1):
            dialog.status.value = app.t("import.progress", n=number, total=len(picked), name=item.name)
            app.update()
            reading = self._reading_progress(dialog, number, len(picked), item.name)
            outcome = await asyncio.to_thread(self.model.import_one, item, reading)
            outcomes.append(outcome)
            if outcome.ok and outcome.book_id is not None and app.settings.auto_index:
                app.start_index(outcome.book_id)  # "index books after import" is on (it cuts the passages first)
            elif outcome.created and outcome.book_id is not None:
                # The passages cut behind the open book, in the loop's executor: its threads are joined when the
                # loop ends, so the library is never closed under them (a raw thread closed mid-write crashed).
                app.workers.later(asyncio.to_thread, self.model.prepare, outcome.book_id)
            dialog.done(outcome.message, ok=outcome.ok, fraction=number / len(picked))
            app.update()
        new = sum(o.created for o in outcomes)
        known = sum(o.ok and not o.created for o in outcomes)
        dialog.status.value = app.t("import.summary", new=new, known=known, failed=len(outcomes) - new - known)
        app.message = dialog.status.value  # for screen readers and tests
        app.render()
