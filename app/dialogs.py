"""The app's dialogs, each built from what it shows and the callbacks it needs (the shell shows and closes them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import flet as ft

from app.a11y import selectable
from app.i18n import Translator
from app.keys import text_field
from app.screens.library.model import LibraryViewModel
from core import Highlight

NOTE_WIDTH = 420


def status_line(text: str, *, ok: bool, size: int = 14) -> ft.Control:
    """A line with a done or problem icon (icons, since symbol glyphs are missing from the bundled fonts)."""
    icon = ft.Icon(ft.Icons.CHECK_CIRCLE_OUTLINE if ok else ft.Icons.ERROR_OUTLINE, size=size + 4,
                   color=ft.Colors.PRIMARY if ok else ft.Colors.ERROR)  # fmt: skip
    return ft.Row(
        [icon, ft.Text(text, size=size, color=None if ok else ft.Colors.ERROR, expand=True)],
        vertical_alignment=ft.CrossAxisAlignment.START,
        data="ok" if ok else "problem",
    )


def build_details_dialog(
    model: LibraryViewModel,
    book_id: int,
    t: Translator,
    *,
    on_open: Callable[[int], None],
    on_remove: Callable[[int], None],
    on_close: Callable[[], object],
    on_tag: Callable[[int, str], None] | None = None,
    on_edit: Callable[[int, str, str], None] | None = None,
) -> ft.AlertDialog:
    """A book's details: metadata, contents, import warnings, reading and index status; open or remove it."""
    details = model.details(book_id)
    facts = [selectable(f"{label}: {value}") for label, value in details.facts if value]
    contents = [ft.Text(("    " * row.depth) + row.title, size=13) for row in details.toc[:40]]
    if len(details.toc) > 40:
        contents.append(ft.Text(t("details.more", n=len(details.toc) - 40), size=13, italic=True))
    warnings = [status_line(w, ok=False, size=13) for w in details.warnings]
    book = model.quire.book(book_id)
    title_field = text_field(label=t("details.title"), value=book.title, dense=True)
    author_field = text_field(label=t("details.author"), value=", ".join(book.authors), dense=True)

    def edited(e: ft.Event[Any]) -> None:
        if on_edit is not None:
            on_edit(book_id, title_field.value or "", author_field.value or "")

    title_field.on_submit = author_field.on_submit = edited
    tag_field = text_field(
        hint_text=t("details.add_tag"),
        dense=True,
        prefix_icon=ft.Icons.LABEL_OUTLINE,
        on_submit=(lambda e: on_tag(book_id, e.control.value or "")) if on_tag else None,
    )
    editing = (
        [
            title_field,
            author_field,
            ft.Row(
                [ft.TextButton(t("details.save"), icon=ft.Icons.EDIT, on_click=edited)],
                alignment=ft.MainAxisAlignment.END,
            ),
        ]
        if on_edit
        else []
    )
    body = ft.Column(
        [
            *editing,
            *facts,
            tag_field,
            ft.Text(t("reader.toc"), weight=ft.FontWeight.BOLD),
            *(contents or [ft.Text("—")]),
            *([ft.Text(t("details.warnings"), weight=ft.FontWeight.BOLD), *warnings] if warnings else []),
        ],
        scroll=ft.ScrollMode.AUTO,
        tight=True,
        width=460,
        height=380,
    )
    return ft.AlertDialog(
        title=ft.Text(details.title),
        content=body,
        actions=[
            ft.TextButton(t("library.remove"), icon=ft.Icons.DELETE_OUTLINE, on_click=lambda e: on_remove(book_id)),
            ft.TextButton(t("common.close"), on_click=lambda e: on_close()),
            ft.FilledButton(t("library.read"), on_click=lambda e: on_open(book_id)),
        ],
    )


def note_dialog(
    highlight: Highlight, t: Translator, on_save: Callable[[str], object], on_cancel: Callable[[], object]
) -> ft.AlertDialog:
    """Write or edit the note of a highlight."""
    # labelled: a screen reader names the box (the dialog's title alone left it a nameless field)
    field = text_field(
        label=t("reader.note"), value=highlight.note, multiline=True, min_lines=3, max_lines=8, autofocus=True
    )
    return ft.AlertDialog(
        title=ft.Text(t("reader.note")),
        # the width is the column's: a long highlight wraps inside it instead of widening the dialog
        content=ft.Column(
            [ft.Text(highlight.text, italic=True, max_lines=4, overflow=ft.TextOverflow.ELLIPSIS), field],
            tight=True,
            width=NOTE_WIDTH,
            horizontal_alignment=ft.CrossAxisAlignment.STRETCH,  # the box as wide as the dialog, not its text
        ),
        actions=[
            ft.TextButton(t("common.cancel"), on_click=lambda e: on_cancel()),
            ft.FilledButton(t("common.save"), on_click=lambda e: on_save(field.value or "")),
        ],
    )


def confirm_remove_dialog(
    t: Translator, prompt: str, on_remove: Callable[[], object], on_cancel: Callable[[], object]
) -> ft.AlertDialog:
    """Ask before removing a book and its notes."""
    return ft.AlertDialog(
        title=ft.Text(t("library.remove")),
        content=ft.Text(prompt),
        actions=[
            ft.TextButton(t("common.cancel"), on_click=lambda e: on_cancel()),
            ft.FilledButton(t("library.remove"), on_click=lambda e: on_remove()),
        ],
    )


def inbox_dialog(
    t: Translator, names: list[str], on_import: Callable[[], Awaitable[None]], on_leave: Callable[[], object]
) -> ft.AlertDialog:
    """iOS: offer the book files waiting in Quire's Documents folder."""
    shown = t("list.sep").join(names[:5]) + (" …" if len(names) > 5 else "")

    async def import_them(e: ft.Event[Any]) -> None:
        await on_import()

    return ft.AlertDialog(
        title=ft.Text(t("inbox.title", n=len(names))),
        content=ft.Text(t("inbox.body", names=shown)),
        actions=[
            ft.TextButton(t("inbox.leave"), on_click=lambda e: on_leave()),
            ft.FilledButton(t("inbox.import"), on_click=import_them),
        ],
    )


class ImportDialog:
    """Import progress: a bar, the file being read, and one line per file as it is done."""

    def __init__(self, t: Translator, on_close: Callable[[], object]) -> None:
        self.progress = ft.ProgressBar(value=0)
        self.status = ft.Text("")
        self.lines = ft.Column([], tight=True, scroll=ft.ScrollMode.AUTO, height=160)
        self.dialog = ft.AlertDialog(
            title=ft.Text(t("library.import")),
            content=ft.Column([self.status, self.progress, self.lines], tight=True, width=420),
            actions=[ft.TextButton(t("common.close"), on_click=lambda e: on_close())],
        )

    def done(self, message: str, *, ok: bool, fraction: float) -> None:
        self.lines.controls.append(status_line(message, ok=ok))
        self.progress.value = fraction


def rename_dialog(
    t: Translator, title: str, on_save: Callable[[str], object], on_cancel: Callable[[], object]
) -> ft.AlertDialog:
    """A new name for a chat thread."""
    field = text_field(label=t("chat.thread.rename"), value=title, autofocus=True, width=360)
    field.on_submit = lambda e: on_save(field.value or "")
    return ft.AlertDialog(
        title=ft.Text(t("chat.thread.title")),
        content=field,
        actions=[
            ft.TextButton(t("common.cancel"), on_click=lambda e: on_cancel()),
            ft.FilledButton(t("common.save"), on_click=lambda e: on_save(field.value or "")),
        ],
    )
