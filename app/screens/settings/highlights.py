"""Highlights that travel, in Settings: KOReader's sidecars (a folder, its highlights brought in or Quire's written
out) and Readwise (an access token kept in the secret store; the new highlights sent). Each runs in a worker
thread and says what it did, or what to do next."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import flet as ft

from app.a11y import IconButton
from app.i18n import Translator
from app.screens.settings.form import SettingsForm
from core import QuireError

if TYPE_CHECKING:
    from app.port import Port


class HighlightTravel:
    """``SettingsController.travel``: KOReader highlight import and export, and Readwise, from Settings."""

    def __init__(self, app: Port) -> None:
        self.app = app
        self.status = ""  # the last sentence about either, shown under the section
        self.readwise_url: str | None = None  # None: Readwise's own address (tests give a local server's)

    def _said(self, text: str) -> None:
        self.status = text
        self.app.notify(text)
        self.app.render()

    async def koreader(self, folder: str, way: Literal["import", "export"]) -> None:
        """Bring KOReader's highlights in from ``folder``, or write Quire's into its sidecars."""
        app, t = self.app, self.app.t
        folder = folder.strip()
        if not folder:
            self._said(t("travel.koreader.no_folder"))
            return
        app.settings.koreader_folder = folder
        app.store.save(app.settings)
        path = Path(folder).expanduser()
        try:
            if way == "import":
                results: list[Any] = await asyncio.to_thread(app.quire.koreader.import_highlights, path)
            else:
                results = await asyncio.to_thread(app.quire.koreader.export_highlights, path)
        except QuireError as error:
            self._said(t.error(error))
            return
        done = [r for r in results if not r.problem]
        said = t(f"travel.koreader.{way}ed", highlights=t.plural("notes.count", sum(r.added for r in done)),
                 books=t.count(len(done)))  # fmt: skip
        failed = [r for r in results if r.problem]
        if failed:
            said += " " + t(
                "travel.koreader.problems", n=len(failed), first=f"{failed[0].sidecar}: {failed[0].problem}"
            )
        self._said(said)

    async def readwise_setup(self, token: str) -> None:
        app = self.app
        try:
            await asyncio.to_thread(app.quire.readwise.setup, token, app.store.secrets, url=self.readwise_url)
        except QuireError as error:
            self._said(app.t.error(error))
            return
        await self.readwise_send()

    async def readwise_send(self) -> None:
        app = self.app
        try:
            result = await asyncio.to_thread(app.quire.readwise.send, app.store.secrets)
        except QuireError as error:
            self._said(app.t.error(error))
            return
        t = app.t
        self._said(t("travel.readwise.sent", highlights=t.plural("notes.count", result.sent),
                     books=t.count(result.books), unchanged=result.unchanged))  # fmt: skip

    def readwise_off(self) -> None:
        self.app.quire.readwise.turn_off(self.app.store.secrets)
        self._said(self.app.t("travel.readwise.off"))


def travel_controls(travel: HighlightTravel, t: Translator, form: SettingsForm) -> list[ft.Control]:
    """KOReader's highlights (a folder; import, export) and Readwise (a token while off; send and turn off while
    on), under Settings › Highlights elsewhere."""
    app = travel.app
    folder = form.field(
        "travel.koreader.folder", app.settings.koreader_folder, label=t("travel.koreader.folder"), width=420
    )

    async def bring_in(e: ft.Event[Any]) -> None:
        await travel.koreader(form.text("travel.koreader.folder", app.settings.koreader_folder), "import")

    async def write_out(e: ft.Event[Any]) -> None:
        await travel.koreader(form.text("travel.koreader.folder", app.settings.koreader_folder), "export")

    async def pick(e: ft.Event[Any]) -> None:
        chosen = await ft.FilePicker().get_directory_path(dialog_title=t("travel.koreader.folder"))
        if chosen:
            form.typed["travel.koreader.folder"] = chosen
            app.render()

    choose: list[ft.Control] = []
    if not app.web:  # a browser's picker gives no path: the folder is typed there
        choose.append(IconButton(ft.Icons.FOLDER_OPEN, tooltip=t("travel.koreader.folder"), on_click=pick))
    rows: list[ft.Control] = [
        ft.Text(t("travel.koreader.title"), size=15, weight=ft.FontWeight.W_600),
        ft.Text(t("travel.koreader.about"), size=12, color=ft.Colors.ON_SURFACE_VARIANT),
        ft.Row([folder, *choose], wrap=True),
        ft.Row(
            [
                ft.OutlinedButton(t("travel.koreader.import"), icon=ft.Icons.DOWNLOAD, on_click=bring_in),
                ft.OutlinedButton(t("travel.koreader.export"), icon=ft.Icons.UPLOAD, on_click=write_out),
            ],
            wrap=True,
        ),
        ft.Text(t("travel.readwise.title"), size=15, weight=ft.FontWeight.W_600),
        ft.Text(t("travel.readwise.about"), size=12, color=ft.Colors.ON_SURFACE_VARIANT),
    ]
    if app.quire.readwise.settings() is not None:

        async def send(e: ft.Event[Any]) -> None:
            await travel.readwise_send()

        rows.append(
            ft.Row(
                [
                    ft.OutlinedButton(t("travel.readwise.send"), icon=ft.Icons.SEND, on_click=send),
                    ft.TextButton(t("travel.readwise.turn_off"), on_click=lambda e: travel.readwise_off()),
                ],
                wrap=True,
            )
        )
    else:
        token = form.field("travel.readwise.token", label=t("travel.readwise.token"), password=True,
                           can_reveal_password=True, width=420)  # fmt: skip

        async def connect(e: ft.Event[Any]) -> None:
            await travel.readwise_setup(form.text("travel.readwise.token"))
            form.forget("travel.readwise.token")

        rows += [token, ft.FilledButton(t("travel.readwise.connect"), icon=ft.Icons.LINK, on_click=connect)]
    if travel.status:
        rows.append(ft.Text(travel.status, size=12))
    return rows
