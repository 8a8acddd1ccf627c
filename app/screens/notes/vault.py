"""Highlights to an Obsidian vault from the notes screen: the vault's folder picked (a computer) or typed (a
browser, where no folder picker gives a path), remembered for the next time, and the notes written in the
background (``quire.notes.export_vault``: Quire's part of each note rewritten, the reader's writing kept)."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import flet as ft

from app.keys import text_field
from core import QuireError, VaultFolderMissing

if TYPE_CHECKING:
    from app.port import Port


async def export_to_vault(app: Port) -> None:
    """Ask for the vault's folder, then write every book's highlights there."""
    t = app.t
    if not app.web:
        folder = await ft.FilePicker().get_directory_path(dialog_title=t("notes.vault"))
        if folder:
            await write_vault(app, folder)
        return
    field = text_field(label=t("notes.vault.path"), value=app.settings.vault_folder, autofocus=True, width=420)

    async def export(e: ft.Event[Any]) -> None:
        app.pop_dialog()
        app.workers.later(write_vault, app, field.value or "")  # behind the dialog, counted like all such work

    app.show_dialog(
        ft.AlertDialog(
            title=ft.Text(t("notes.vault")),
            content=ft.Column([ft.Text(t("notes.vault.about"), size=12), field], tight=True),
            actions=[
                ft.TextButton(t("common.cancel"), on_click=lambda e: app.pop_dialog()),
                ft.FilledButton(t("notes.vault.export"), on_click=export),
            ],
        )
    )


async def write_vault(app: Port, folder: str, create: bool = False) -> None:
    """Write the notes into ``folder`` (remembered in the settings) and say how many changed, or what went wrong;
    a folder that is not there is made only when the reader says so (a typo made folders before)."""
    folder = folder.strip()
    if not folder:
        return
    app.settings.vault_folder = folder
    app.store.save(app.settings)
    export = partial(app.quire.notes.export_vault, Path(folder).expanduser(), create=create)
    try:
        written = await asyncio.to_thread(export)
    except VaultFolderMissing:
        _offer_to_create(app, folder)
        return
    except QuireError as error:
        app.notify(app.t.error(error))
        return
    app.notify(app.t("notes.vault.done", n=len(written), folder=folder))


def _offer_to_create(app: Port, folder: str) -> None:
    t = app.t

    async def create(e: ft.Event[Any]) -> None:
        app.pop_dialog()
        app.workers.later(write_vault, app, folder, True)

    app.show_dialog(
        ft.AlertDialog(
            title=ft.Text(t("notes.vault.missing")),
            content=ft.Text(t("notes.vault.missing.about", folder=folder)),
            actions=[
                ft.TextButton(t("common.cancel"), on_click=lambda e: app.pop_dialog()),
                ft.FilledButton(t("notes.vault.create"), on_click=create),
            ],
        )
    )
