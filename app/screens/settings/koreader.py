"""KOReader sync in the app: Settings › Sync › KOReader sync server (off by default), and a book's progress
exchanged with it when the book opens and closes, so a book read on a Kobo and here meets at the furthest place."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import flet as ft

from app.i18n import Translator
from app.screens.settings.form import SettingsForm
from core import QuireError

if TYPE_CHECKING:
    from app.port import Port
    from app.screens.reader.model import ReaderViewModel


class KoreaderSync:
    """``SettingsController.koreader``: set up, turned off, and each book's progress on opening and closing it."""

    def __init__(self, app: Port, reader: Callable[[], ReaderViewModel | None]) -> None:
        self.app = app
        self.reader = reader  # the open book's view-model (None: no book open)
        self.status = ""  # the last sentence about it, shown under the section

    @property
    def on(self) -> bool:
        return self.app.quire.kosync.settings() is not None

    async def setup(self, url: str, user: str, password: str, register: bool) -> None:
        app = self.app
        try:
            found = await asyncio.to_thread(
                app.quire.kosync.setup, url.strip(), user.strip(), password, app.store.secrets, register=register
            )
            self.status = app.t("koreader.on", url=found["url"], user=found["user"])
        except QuireError as error:
            self.status = app.t.error(error)
        app.message = self.status
        app.render()

    def turn_off(self) -> None:
        self.app.quire.kosync.turn_off(self.app.store.secrets)
        self.status = self.app.t("koreader.off")
        self.app.render()

    async def sync_all(self) -> None:
        app = self.app
        try:
            results = await asyncio.to_thread(app.quire.kosync.sync, None, app.store.secrets)
            sent = sum(r.direction == "sent" for r in results)
            received = sum(r.direction == "received" for r in results)
            self.status = app.t("koreader.synced", sent=sent, received=received)
        except QuireError as error:
            self.status = app.t.error(error)
        app.message = self.status
        app.render()

    def book(self, book_id: int, closing: bool = False) -> None:
        """Exchange one book's progress in the background (opening: the Kobo's further place is taken and the
        page redrawn there; closing: this device's is sent). Quiet when KOReader sync is off or unreachable."""
        app = self.app
        if not self.on:
            return

        async def run() -> None:
            try:
                [result] = await asyncio.to_thread(app.quire.kosync.sync, book_id, app.store.secrets)
            except QuireError as error:
                self.status = app.t.error(error)
                return
            reader = self.reader() if not closing else None
            if result.direction == "received" and reader is not None and reader.book.id == book_id:
                reader.open()  # at the place KOReader reached, its furthest place the reading tracker's own
                app.notify(app.t("koreader.moved", device=result.device or "KOReader"))
                app.render()

        app.workers.later(run)


def koreader_controls(koreader: KoreaderSync, t: Translator, form: SettingsForm) -> list[ft.Control]:
    """The KOReader sync server's part of Settings › Sync: its form while off, its state and actions while on."""
    app = koreader.app
    rows: list[ft.Control] = [
        ft.Text(t("koreader.title"), size=15, weight=ft.FontWeight.W_600),
        ft.Text(t("koreader.about"), size=12, color=ft.Colors.ON_SURFACE_VARIANT),
    ]
    found = app.quire.kosync.settings()
    if found is not None:

        async def now(e: ft.Event[Any]) -> None:
            await koreader.sync_all()

        rows += [
            ft.Text(t("koreader.on", url=found["url"], user=found["user"])),
            ft.Row(
                [
                    ft.OutlinedButton(t("koreader.sync"), icon=ft.Icons.SYNC, on_click=now),
                    ft.TextButton(t("koreader.turn_off"), on_click=lambda e: koreader.turn_off()),
                ],
                wrap=True,
            ),
        ]
    else:
        url = form.field("koreader.url", label=t("koreader.url"), hint_text="https://sync.koreader.rocks", width=420)
        user = form.field("koreader.user", label=t("koreader.user"), width=420)
        password = form.field("koreader.password", label=t("koreader.password"), password=True,
                              can_reveal_password=True, width=420)  # fmt: skip

        def set_register(e: ft.Event[Any]) -> None:
            form.chosen["koreader.register"] = "on" if e.control.value else ""

        register = ft.Switch(
            label=t("koreader.register"), value=bool(form.chosen.get("koreader.register")), on_change=set_register
        )

        async def turn_on(e: ft.Event[Any]) -> None:
            await koreader.setup(form.text("koreader.url"), form.text("koreader.user"), form.text("koreader.password"),
                                 bool(form.chosen.get("koreader.register")))  # fmt: skip
            form.forget("koreader.password")

        rows += [url, user, password, register,
                 ft.FilledButton(t("koreader.turn_on"), icon=ft.Icons.MENU_BOOK, on_click=turn_on)]  # fmt: skip
    if koreader.status:
        rows.append(ft.Text(koreader.status, size=12))
    return rows
