"""The appearance panel: the reading settings (theme, type, spacing, margins, layout) beside the text."""

from __future__ import annotations

from typing import TYPE_CHECKING

import flet as ft

from app.screens.settings.view import reading_controls

if TYPE_CHECKING:
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader
    from app.screens.reader.view import ReaderActions


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    app = reader.app
    return ft.ListView(reading_controls(app.settings, app.settings_changed, app.t), spacing=8, expand=True)
