"""The app shell: shows the library or a book, and routes keys and clicks to the view-models."""

from __future__ import annotations

import flet as ft

from app.i18n import Translator
from app.library_model import LibraryViewModel
from app.library_page import build_library_view
from app.reader_model import ReaderViewModel
from app.reader_page import build_reader_view
from core.books.locator import parse_locator
from core.services import Quire

NEXT_KEYS = {"Arrow Right", "Arrow Down", "Page Down", " "}
PREVIOUS_KEYS = {"Arrow Left", "Arrow Up", "Page Up"}


class QuireApp:
    """Owns the page; every screen is rebuilt from a view-model when it changes."""

    def __init__(self, page: ft.Page, quire: Quire, translate: Translator | None = None) -> None:
        self.page = page
        self.quire = quire
        self.t = translate or Translator()
        self.library = LibraryViewModel(quire, self.t)
        self.reader: ReaderViewModel | None = None
        page.title = self.t("app.title")
        from app.settings import Settings
        from app.theme import apply_theme

        apply_theme(page, Settings())
        page.padding = 16
        page.on_keyboard_event = self.on_key
        page.on_resize = lambda e: self.render()

    def render(self) -> None:
        width = self.page.width or 1024
        if self.reader is None:
            view = build_library_view(self.library, on_open=self.open_book)
        else:
            view = build_reader_view(
                self.reader, self.t, width=width, on_back=self.close_book, on_navigate=self.navigate
            )
        self.page.controls.clear()
        self.page.add(view)

    def open_book(self, book_id: int) -> None:
        self.reader = ReaderViewModel(self.quire, book_id)
        self.reader.open()
        self.render()

    def close_book(self) -> None:
        if self.reader is not None:
            self.reader.save_position()
        self.reader = None
        self.render()

    def navigate(self, where: str) -> None:
        if self.reader is None:
            return
        if where == "next":
            self.reader.next_page()
        elif where == "previous":
            self.reader.previous_page()
        else:
            self.reader.go_to(parse_locator(where))
        self.render()

    def on_key(self, event: ft.KeyboardEvent) -> None:
        if self.reader is None:
            return
        if event.key == "Escape":
            self.close_book()
        elif event.key in NEXT_KEYS:
            self.navigate("next")
        elif event.key in PREVIOUS_KEYS:
            self.navigate("previous")
