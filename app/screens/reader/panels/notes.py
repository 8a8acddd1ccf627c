"""The notes panel: the open book's highlights and bookmarks (the notes screen's list, for one book)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import flet as ft

from app.screens.notes.model import NotesViewModel
from app.screens.notes.view import build_notes_list

if TYPE_CHECKING:
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader
    from app.screens.reader.view import ReaderActions


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    app = reader.app
    notes = app.notes_handler(model.book.id)
    return build_notes_list(NotesViewModel(app.quire, model.book.id).refresh(), notes, app.t)
