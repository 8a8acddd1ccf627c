"""The library view: the books as a list, with author, progress or format, and import warnings."""

from __future__ import annotations

from collections.abc import Callable

import flet as ft

from app.library_model import LibraryViewModel


def build_library_view(model: LibraryViewModel, on_open: Callable[[int], None] | None = None) -> ft.Control:
    """The library list, rebuilt from the view-model's rows; a click opens the book."""
    rows = model.rows()
    if not rows:
        body: ft.Control = ft.Text(model.empty_message, size=16)
    else:
        body = ft.ListView(
            expand=True,
            controls=[
                ft.ListTile(
                    leading=ft.Icon(ft.Icons.MENU_BOOK),
                    title=ft.Text(row.title),
                    subtitle=ft.Text(row.subtitle),
                    trailing=ft.Text(row.badge),
                    on_click=(lambda e, book_id=row.book_id: on_open(book_id)) if on_open else None,
                )
                for row in rows
            ],
        )
    return ft.Column(
        expand=True,
        controls=[ft.Text("Quire", size=28, weight=ft.FontWeight.BOLD), ft.Text(model.summary), body],
    )
