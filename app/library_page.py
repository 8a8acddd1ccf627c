"""A first Flet page: the library as a list, with each book's author, format and import warnings."""

from __future__ import annotations

import flet as ft

from app.library_model import LibraryViewModel


def build_library_view(model: LibraryViewModel) -> ft.Control:
    """The library list, rebuilt from the view-model's rows."""
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
                )
                for row in rows
            ],
        )
    return ft.Column(
        expand=True,
        controls=[ft.Text("Quire", size=28, weight=ft.FontWeight.BOLD), ft.Text(model.summary), body],
    )


def library_page(page: ft.Page, model: LibraryViewModel) -> None:
    """Fill ``page`` with the library view."""
    page.title = "Quire"
    page.theme_mode = ft.ThemeMode.SYSTEM
    page.padding = 24
    page.add(build_library_view(model))
