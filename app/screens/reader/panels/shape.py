"""What a reader panel's body is, and what it may use of the reader's controller."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import flet as ft

if TYPE_CHECKING:
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.port import ReaderPort
    from app.screens.reader.view import ReaderActions


class Reader(Protocol):
    """The app around the reader, and what each panel keeps between two drawings of the screen (by panel name)."""

    app: ReaderPort
    kept: dict[str, object]


class Body(Protocol):
    """A panel's body, drawn for the open book."""

    def __call__(self, model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control: ...
