"""Folders in the app: Settings › Folders (import a folder, watch one) and the new books of watched folders offered
on start and, on a computer, every few minutes while it runs; each book offered once, imported or not."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import flet as ft

from app.a11y import IconButton, selectable
from app.i18n import Translator
from app.screens.settings.form import SettingsForm
from core import QuireError

if TYPE_CHECKING:
    from app.port import Port

WATCH_EVERY = 120.0  # seconds between looks at the watched folders while a computer's app runs
SHOWN = 5  # new books named in the offer


class FolderWatch:
    """``SettingsController.folders``: import or watch a folder, and offer what appears in the watched ones."""

    def __init__(self, app: Port) -> None:
        self.app = app
        self.offered: list[Path] = []  # the books of the offer shown now
        self._watching = False

    async def pick(self, watch: bool) -> None:
        """A folder picked on a computer: imported now (a calibre library with its metadata); ``watch``: its later
        books are offered too."""
        app = self.app
        folder = await ft.FilePicker().get_directory_path(dialog_title=app.t("folders.pick"))
        if folder:
            await self.add(Path(folder), watch)

    async def add(self, folder: Path, watch: bool) -> None:
        app = self.app
        if not folder.is_dir():  # a path typed in the browser's Settings: say so rather than import nothing
            app.notify(app.t("folders.not_a_folder", folder=str(folder)))
            return
        app.notify(app.t("folders.importing", folder=folder.name or str(folder)))

        def work() -> tuple[int, int]:
            found = app.quire.folders.import_folder(folder)
            if watch:
                app.quire.folders.watch(folder)
            return sum(r.created for r in found.results), sum(r.error is not None for r in found.results)

        try:
            added, refused = await asyncio.to_thread(work)
            app.notify(app.t("folders.imported", n=added, refused=refused))
        except QuireError as error:
            app.notify(app.t.error(error))
        self.changed()

    def unwatch(self, folder: Path) -> None:
        self.app.quire.folders.unwatch(folder)
        self.changed()

    def changed(self) -> None:
        """Draw the screen shown again: Settings in place (it keeps where it was scrolled), or the screen the reader
        went to meanwhile (the library, with the books just imported)."""
        self.app.render()

    def start(self) -> None:
        """Offer the watched folders' new books now, and on a computer keep looking while the app runs."""
        if self._watching:
            return
        self._watching = True
        self.app.workers.later(self.offer)  # now: work a test can wait for
        if not (self.app.web or self.app.on_phone):  # a computer keeps looking (a browser tab or a phone: once)
            self.app.workers.every(WATCH_EVERY, self.offer)  # while the window lives: not work to wait for

    async def offer(self) -> None:
        """The new books of the watched folders, in a dialog: import them, or not now (offered once either way)."""
        app = self.app
        if self.offered or not app.quire.folders.watched():
            return
        found = await asyncio.to_thread(app.quire.folders.new_books)
        if not found:
            return
        self.offered = found
        names = "\n".join(f"· {p.name}" for p in found[:SHOWN]) + ("\n…" if len(found) > SHOWN else "")

        async def take(e: ft.Event[Any]) -> None:
            app.pop_dialog()
            await self.answer(True)

        async def leave(e: ft.Event[Any]) -> None:
            app.pop_dialog()
            await self.answer(False)

        app.message = app.t("folders.new", n=len(found))
        app.show_dialog(ft.AlertDialog(
            title=ft.Text(app.t("folders.new", n=len(found))),
            content=ft.Text(names),
            actions=[ft.TextButton(app.t("folders.not_now"), on_click=leave),
                     ft.FilledButton(app.t("folders.import_new"), on_click=take)],
        ))  # fmt: skip

    async def answer(self, take: bool) -> None:
        app = self.app
        found, self.offered = self.offered, []
        if take:
            results = await asyncio.to_thread(app.quire.import_paths, found)
            app.notify(app.t("folders.imported", n=sum(r.created for r in results),
                             refused=sum(r.error is not None for r in results)))  # fmt: skip
        app.quire.folders.seen(found)
        app.render()


def folder_controls(folders: FolderWatch, t: Translator, form: SettingsForm) -> list[ft.Control]:
    """Settings › Folders: the watched folders (each can be let go) and the buttons to import or watch one.

    In a browser's Settings, where no folder picker gives a path (PLATFORM-FACTS): the folder's path is
    typed instead (the web UI runs on this computer and reads its folders).
    """
    typed = folders.app.web

    async def import_one(e: ft.Event[Any]) -> None:
        path = form.text("folders.path").strip()
        await (folders.add(Path(path), False) if typed and path else folders.pick(False))

    async def watch_one(e: ft.Event[Any]) -> None:
        path = form.text("folders.path").strip()
        await (folders.add(Path(path), True) if typed and path else folders.pick(True))

    rows: list[ft.Control] = [ft.Text(t("folders.about"), size=12, color=ft.Colors.ON_SURFACE_VARIANT)]
    for folder in folders.app.quire.folders.watched():
        rows.append(ft.Row([
            ft.Icon(ft.Icons.FOLDER_OUTLINED), selectable(str(folder), expand=True),
            IconButton(ft.Icons.VISIBILITY_OFF_OUTLINED, tooltip=t("folders.unwatch", folder=folder.name),
                          on_click=lambda e, f=folder: folders.unwatch(f)),
        ]))  # fmt: skip
    if typed:
        rows.append(form.field("folders.path", label=t("folders.path"), hint_text=t("folders.path.hint"), width=420))
    suffix = ".typed" if typed else ""
    rows.append(ft.Row([
        ft.OutlinedButton(t("folders.import" + suffix), icon=ft.Icons.DRIVE_FOLDER_UPLOAD_OUTLINED,
                          on_click=import_one),
        ft.OutlinedButton(t("folders.watch" + suffix), icon=ft.Icons.FOLDER_SPECIAL_OUTLINED, on_click=watch_one),
    ], wrap=True))  # fmt: skip
    return rows
