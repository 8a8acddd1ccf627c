"""Settings › Dictionaries: the reader's dictionaries listed, imported from picked files (paths on computers,
bytes in a browser or on a phone) and removed."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import flet as ft

from app.a11y import IconButton
from app.i18n import Translator
from core import QuireError

if TYPE_CHECKING:
    from app.port import Port

EXTENSIONS = ["ifo", "idx", "dz", "dict", "syn", "index", "u8", "txt", "gz"]


class DictionarySettings:
    """``SettingsController.dictionaries``: what the Dictionaries section of Settings does."""

    def __init__(self, app: Port) -> None:
        self.app = app

    async def pick(self) -> None:
        """Pick a dictionary's files (a StarDict's .ifo, .idx and .dict.dz together; a dictd's .index and
        .dict.dz; a CC-CEDICT file) and import them."""
        app = self.app
        files = await ft.FilePicker().pick_files(
            dialog_title=app.t("dictionaries.import"),
            allow_multiple=True,
            file_type=ft.FilePickerFileType.CUSTOM,
            allowed_extensions=EXTENSIONS,
            with_data=bool(app.web),
        )
        picked = [(f.name, Path(f.path) if f.path else None, getattr(f, "bytes", None)) for f in files or []]
        if picked:
            await self.import_picked(picked)

    async def import_picked(self, picked: list[tuple[str, Path | None, bytes | None]]) -> None:
        """Import picked files: together in one folder (a dictionary's files find each other by name)."""
        app = self.app
        app.notify(app.t("dictionaries.importing"))

        def work() -> str:
            with tempfile.TemporaryDirectory() as folder:
                for name, path, data in picked:
                    target = Path(folder) / Path(name).name
                    if data is not None:
                        target.write_bytes(data)
                    elif path is not None:
                        target.write_bytes(path.read_bytes())
                info = app.quire.dictionary.add(Path(folder))
            return app.t("dictionaries.added", name=info.name, n=info.words)

        try:
            message = await asyncio.to_thread(work)
        except (QuireError, OSError) as error:
            message = app.t.error(error) if isinstance(error, QuireError) else str(error)
        app.notify(message)
        app.render()

    def remove(self, number: int) -> None:
        self.app.quire.dictionary.remove(number)
        self.app.render()


def dictionary_controls(dictionaries: DictionarySettings, t: Translator) -> list[ft.Control]:
    """Each dictionary with its headword count and a remove button, and the import button."""
    quire = dictionaries.app.quire
    rows: list[ft.Control] = [
        ft.Row(
            [
                ft.Icon(ft.Icons.MENU_BOOK),
                ft.Text(t("dictionaries.line", name=info.name, kind=info.kind, n=info.words), expand=True),
                IconButton(
                    ft.Icons.DELETE_OUTLINE,
                    tooltip=t("dictionaries.remove", name=info.name),
                    on_click=lambda e, number=info.id: dictionaries.remove(number),
                ),
            ]
        )
        for info in quire.dictionary.all()
    ]
    if not rows:
        rows.append(ft.Text(t("dictionaries.none"), color=ft.Colors.ON_SURFACE_VARIANT))

    async def pick(e: ft.Event[Any]) -> None:
        await dictionaries.pick()

    rows.append(ft.OutlinedButton(t("dictionaries.import"), icon=ft.Icons.UPLOAD_FILE, on_click=pick))
    return rows
