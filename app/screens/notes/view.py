"""The notes view: highlights with their notes, grouped by book and chapter; edit, recolour, delete, export."""

from __future__ import annotations

from collections.abc import Callable

import flet as ft

from app.a11y import IconButton, named_icon
from app.i18n import Translator
from app.look.theme import highlight_color
from app.screens.notes import intents as intent
from app.screens.notes.intents import NotesHandler, NotesIntent
from app.screens.notes.model import NotesViewModel
from core import HIGHLIGHT_COLORS, Highlight, VocabularyWord


def _highlight_card(highlight: Highlight, post: Callable[[NotesIntent], object], t: Translator) -> ft.Control:
    colors = ft.PopupMenuButton(
        icon=named_icon(ft.Icons.PALETTE_OUTLINED, t("notes.color")),
        tooltip=t("notes.color"),
        items=[
            ft.PopupMenuItem(
                content=ft.Row([ft.Icon(ft.Icons.CIRCLE, color=highlight_color(c)), ft.Text(t(f"color.{c}"))]),
                on_click=lambda e, c=c: post(intent.SetColor(highlight, c)),
            )
            for c in HIGHLIGHT_COLORS
        ],
    )
    return ft.Container(
        ft.Column(
            [
                ft.Container(
                    ft.Text(highlight.text, max_lines=6, overflow=ft.TextOverflow.ELLIPSIS),
                    border=ft.Border.only(left=ft.BorderSide(4, highlight_color(highlight.color))),
                    padding=ft.Padding.only(left=10),
                    on_click=lambda e: post(intent.OpenHighlight(highlight)),
                    tooltip=t("notes.open"),
                ),
                *([ft.Text(highlight.note, italic=True)] if highlight.note.strip() else []),
                ft.Row(
                    [
                        ft.TextButton(
                            t("notes.edit") if highlight.note.strip() else t("notes.add"),
                            icon=ft.Icons.EDIT_NOTE,
                            on_click=lambda e: post(intent.EditNote(highlight)),
                        ),
                        colors,
                        IconButton(
                            ft.Icons.DELETE_OUTLINE,
                            tooltip=t("notes.delete"),
                            on_click=lambda e: post(intent.RemoveHighlight(highlight)),
                        ),
                    ],
                    spacing=0,
                ),
            ],
            spacing=4,
        ),
        padding=8,
        border_radius=8,
        bgcolor=ft.Colors.SURFACE_CONTAINER_LOW,
    )


def _vault_button(notes: NotesHandler, t: Translator, disabled: bool) -> list[ft.Control]:
    if not notes.vault:
        return []
    return [
        ft.OutlinedButton(
            t("notes.vault"),
            icon=ft.Icons.HUB_OUTLINED,
            disabled=disabled,
            on_click=lambda e: notes.post(intent.ExportVault()),
        )
    ]


def build_notes_list(model: NotesViewModel, notes: NotesHandler, t: Translator) -> ft.Control:
    """Every group with its highlights, and an export button; a friendly line when there is nothing yet."""
    groups = model.shown_groups
    controls: list[ft.Control] = [
        ft.Row(
            [
                ft.Text(_count(t, sum(len(g.highlights) for g in groups)), expand=True),
                ft.OutlinedButton(
                    t("notes.export"),
                    icon=ft.Icons.DOWNLOAD,
                    on_click=lambda e: notes.post(intent.ExportMarkdown()),
                    disabled=not (groups or model.shown_words),
                ),
                *_vault_button(notes, t, disabled=not groups),
            ],
        )
    ]
    bookmarks = model.shown_bookmarks
    if bookmarks:
        controls.append(ft.Text(t("notes.bookmarks"), size=14, weight=ft.FontWeight.W_600, color=ft.Colors.PRIMARY))
        controls += [
            ft.ListTile(
                leading=ft.Icon(ft.Icons.BOOKMARK),
                title=ft.Text(where, max_lines=2, size=13),
                dense=True,
                on_click=lambda e, b=bookmark: notes.post(intent.OpenBookmark(b)),
                trailing=IconButton(
                    ft.Icons.DELETE_OUTLINE,
                    tooltip=t("reader.bookmark.remove"),
                    on_click=lambda e, b=bookmark: notes.post(intent.RemoveBookmark(b)),
                ),
            )
            for bookmark, where in bookmarks
        ]
    if model.shown_words:
        controls.append(ft.Text(t("notes.vocabulary"), size=14, weight=ft.FontWeight.W_600, color=ft.Colors.PRIMARY))
        controls += [_word_tile(word, notes.post, t) for word in model.shown_words]
    if not groups:
        controls.append(ft.Text(t("notes.empty"), color=ft.Colors.ON_SURFACE_VARIANT))
    last_book = None
    for group in groups:
        if model.book_id is None and group.book_id != last_book:
            controls.append(ft.Text(group.book_title, size=18, weight=ft.FontWeight.BOLD))
            last_book = group.book_id
        controls.append(ft.Text(group.chapter, size=14, weight=ft.FontWeight.W_600, color=ft.Colors.PRIMARY))
        controls += [_highlight_card(h, notes.post, t) for h in group.highlights]
    return ft.ListView(controls, spacing=8, expand=True)


def _word_tile(word: VocabularyWord, post: Callable[[NotesIntent], object], t: Translator) -> ft.Control:
    """A word of the vocabulary list: its definition's first line and the sentence it was read in."""
    first = next((line.strip() for line in word.definition.splitlines() if line.strip()), "")
    return ft.ListTile(
        leading=ft.Icon(ft.Icons.TRANSLATE),
        title=ft.Text(word.word, weight=ft.FontWeight.W_600),
        subtitle=ft.Text(f"{first}\n{' '.join(word.sentence.split())}".strip(), max_lines=3, size=12),
        dense=True,
        on_click=(lambda e: post(intent.OpenWord(word))) if word.locator else None,
        trailing=IconButton(
            ft.Icons.DELETE_OUTLINE,
            tooltip=t("notes.vocabulary.remove"),
            on_click=lambda e: post(intent.ForgetWord(word)),
        ),
    )


def build_notes_screen(
    model: NotesViewModel, notes: NotesHandler, t: Translator, on_back: Callable[[], object]
) -> ft.Control:
    """The library-wide notes screen."""
    return ft.Column(
        [
            ft.Row(
                [
                    IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: on_back()),
                    ft.Text(t("notes.all"), size=22, weight=ft.FontWeight.BOLD),
                ]
            ),
            build_notes_list(model, notes, t),
        ],
        expand=True,
    )


def _count(t: Translator, n: int) -> str:
    """ "1 highlight", "3 highlights" (Chinese has no plural)."""
    return t("notes.count.one") if n == 1 else t("notes.count", n=n)
