"""The reader view: the book's text with reading typography, its contents beside it on wide screens."""

from __future__ import annotations

from collections.abc import Callable

import flet as ft

from app.i18n import Translator
from app.reader_model import ReaderViewModel
from core.library import SegmentRecord

WIDE = 900  # px: from here the table of contents stays open beside the text
TEXT_WIDTH = 720


def segment_control(segment: SegmentRecord, font_size: int = 18) -> ft.Control:
    """One segment with the typography of its kind."""
    text = segment.text
    if segment.kind == "heading":
        size = {1: font_size + 10, 2: font_size + 6}.get(segment.level, font_size + 3)
        return ft.Text(text, size=size, weight=ft.FontWeight.BOLD, selectable=True)
    if segment.kind == "quote":
        return ft.Container(
            ft.Text(text, size=font_size, italic=True, selectable=True),
            padding=ft.Padding.only(left=16),
            border=ft.Border.only(left=ft.BorderSide(3, ft.Colors.OUTLINE_VARIANT)),
        )
    if segment.kind == "list_item":
        return ft.Row([ft.Text("•", size=font_size), ft.Text(text, size=font_size, selectable=True, expand=True)])
    if segment.kind == "preformatted":
        return ft.Text(text, size=font_size - 2, font_family="monospace", selectable=True)
    if segment.kind == "image":
        return ft.Text(f"[{text or 'image'}]", size=font_size - 2, italic=True, color=ft.Colors.ON_SURFACE_VARIANT)
    return ft.Text(text, size=font_size, selectable=True, style=ft.TextStyle(height=1.6))


def build_reader_view(
    model: ReaderViewModel,
    t: Translator,
    *,
    width: float,
    on_back: Callable[[], None],
    on_navigate: Callable[[str], None],
) -> ft.Control:
    """The whole reader screen for the model's current window."""
    text = ft.ListView(
        controls=[segment_control(s) for s in model.visible],
        spacing=14,
        expand=True,
        padding=ft.Padding.symmetric(horizontal=24, vertical=16),
    )
    header = ft.Row(
        [
            ft.IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: on_back()),
            ft.Text(model.book.title, size=18, weight=ft.FontWeight.BOLD, expand=True, no_wrap=True),
            ft.Text(t("reader.percent", p=f"{model.percent:.0f}")),
        ]
    )
    pager = ft.Row(
        [
            ft.IconButton(ft.Icons.CHEVRON_LEFT, tooltip="Previous page", on_click=lambda e: on_navigate("previous")),
            ft.Text(model.chapter_title, expand=True, text_align=ft.TextAlign.CENTER, no_wrap=True),
            ft.IconButton(ft.Icons.CHEVRON_RIGHT, tooltip="Next page", on_click=lambda e: on_navigate("next")),
        ]
    )
    reading = ft.Column([header, ft.Container(text, width=TEXT_WIDTH, expand=True), pager], expand=True)
    if width < WIDE:
        return reading
    contents = ft.ListView(
        controls=[
            ft.TextButton(
                ("  " * row.depth) + row.title,
                on_click=lambda e, loc=str(row.locator): on_navigate(loc),
            )
            for row in model.toc()
            if row.locator is not None
        ],
        width=280,
    )
    return ft.Row(
        [
            ft.Column([ft.Text(t("reader.toc"), size=16, weight=ft.FontWeight.BOLD), contents], width=280),
            ft.VerticalDivider(),
            reading,
        ],
        expand=True,
        vertical_alignment=ft.CrossAxisAlignment.START,
    )
