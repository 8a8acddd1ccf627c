"""The chat panel beside the text: the book's conversation (app/screens/chat), filled for the open book."""

from __future__ import annotations

from typing import TYPE_CHECKING

import flet as ft

if TYPE_CHECKING:
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader
    from app.screens.reader.view import ReaderActions


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    chat = reader.app.chat
    chat.fill(model)
    return chat.slot
