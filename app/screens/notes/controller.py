"""The notes list's controller (the library's notes screen, a book's notes panel): a typed intent in, the view-model
changed, dialogs and exports through the app's narrow port, and moves in the book through the reader it is handed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, assert_never

import flet as ft

from app.dialogs import note_dialog
from app.screens.notes import intents as intent
from app.screens.notes.model import NotesViewModel
from app.screens.notes.vault import export_to_vault
from app.screens.reader.navigation import GoTo, Typed

if TYPE_CHECKING:
    from app.port import Port
    from app.screens.notes.intents import NotesIntent
    from app.screens.reader.navigation import Where
    from core import Highlight


class Reader(Protocol):
    """What a notes list asks of the reader: a highlight opened in its book, a move in the book open."""

    def open_highlight(self, highlight: Highlight) -> None: ...
    def navigate(self, where: Where) -> None: ...


class NotesController:
    """One notes list's intents (library-wide when ``book_id`` is None, else that book's)."""

    def __init__(self, app: Port, reader: Reader, book_id: int | None) -> None:
        self.app = app
        self.reader = reader
        self.model = NotesViewModel(app.quire, book_id)

    def handle(self, wanted: NotesIntent) -> None:
        app, model = self.app, self.model
        match wanted:
            case intent.OpenHighlight(highlight):
                self.reader.open_highlight(highlight)
            case intent.EditNote(highlight):

                def save(text: str, highlight: Highlight = highlight) -> None:
                    model.set_note(highlight.id, text)
                    app.pop_dialog()
                    app.render()

                app.show_dialog(note_dialog(highlight, app.t, save, app.pop_dialog))
            case intent.SetColor(highlight, color):
                model.set_color(highlight.id, color)
                app.render()
            case intent.RemoveHighlight(highlight):
                model.remove(highlight.id)
                app.render()
            case intent.ExportMarkdown():
                app.workers.later(self.export_markdown)
            case intent.ExportVault():
                app.workers.later(export_to_vault, app)
            case intent.OpenBookmark(bookmark):
                self.reader.navigate(GoTo(bookmark.locator))
            case intent.RemoveBookmark(bookmark):
                model.remove_bookmark(bookmark.id)
                app.render()
            case intent.OpenWord(word):
                if word.locator:
                    self.reader.navigate(Typed(word.locator))
            case intent.ForgetWord(word):
                model.forget_word(word.word)
                app.render()
            case _:
                assert_never(wanted)

    async def export_markdown(self) -> None:
        """Save the notes as Markdown: the share sheet on a phone (the app's own folder is out of the reader's
        reach there), a download in a browser, else the exports folder."""
        app = self.app
        name, text = self.model.export_markdown()
        data = text.encode("utf-8")
        if app.on_phone:
            shared = ft.ShareFile.from_bytes(data, mime_type="text/markdown", name=name)
            await ft.Share().share_files([shared], subject=name)
            app.notify(app.t("notes.shared", name=name))
            return
        if app.web:
            await ft.FilePicker().save_file(file_name=name, src_bytes=data)  # the browser downloads it
            app.notify(app.t("notes.exported", path=name))
            return
        path = self.model.save_export(app.quire.folder / "exports")
        app.notify(app.t("notes.exported", path=str(path)))
