"""The notes view: highlights with their notes, grouped by book and chapter; edit, recolour, delete, export."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import flet as ft

from app.i18n import Translator
from app.notes_model import NotesViewModel
from app.theme import highlight_color
from core import HIGHLIGHT_COLORS, Bookmark, Highlight, VocabularyWord


@dataclass
class NotesActions:
    """What the notes view can ask the shell to do."""

    open_highlight: Callable[[Highlight], None]
    edit_note: Callable[[Highlight], None]
    set_color: Callable[[Highlight, str], None]
    remove: Callable[[Highlight], None]
    export: Callable[[], object]
    open_bookmark: Callable[[Bookmark], None] | None = None
    remove_bookmark: Callable[[Bookmark], None] | None = None
    open_word: Callable[[VocabularyWord], object] | None = None  # a vocabulary word: where it was looked up
    forget_word: Callable[[VocabularyWord], None] | None = None
    export_vault: Callable[[], object] | None = None  # every book's highlights to an Obsidian vault (computers)


def _highlight_card(highlight: Highlight, actions: NotesActions, t: Translator) -> ft.Control:
    colors = ft.PopupMenuButton(
        icon=ft.Icons.PALETTE_OUTLINED,
        tooltip=t("notes.color"),
        items=[
            ft.PopupMenuItem(
                content=ft.Row([ft.Icon(ft.Icons.CIRCLE, color=highlight_color(c)), ft.Text(t(f"color.{c}"))]),
                on_click=lambda e, c=c: actions.set_color(highlight, c),
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
                    on_click=lambda e: actions.open_highlight(highlight),
                    tooltip=t("notes.open"),
                ),
                *([ft.Text(highlight.note, italic=True)] if highlight.note.strip() else []),
                ft.Row(
                    [
                        ft.TextButton(
                            t("notes.edit") if highlight.note.strip() else t("notes.add"),
                            icon=ft.Icons.EDIT_NOTE,
                            on_click=lambda e: actions.edit_note(highlight),
                        ),
                        colors,
                        ft.IconButton(
                            ft.Icons.DELETE_OUTLINE,
                            tooltip=t("notes.delete"),
                            on_click=lambda e: actions.remove(highlight),
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


def _vault_button(actions: NotesActions, t: Translator, disabled: bool) -> list[ft.Control]:
    export = actions.export_vault
    if export is None:
        return []
    return [
        ft.OutlinedButton(t("notes.vault"), icon=ft.Icons.HUB_OUTLINED, on_click=lambda e: export(), disabled=disabled)
    ]


def build_notes_list(model: NotesViewModel, actions: NotesActions, t: Translator) -> ft.Control:
    """Every group with its highlights, and an export button; a friendly line when there is nothing yet."""
    groups = model.shown_groups
    controls: list[ft.Control] = [
        ft.Row(
            [
                ft.Text(_count(t, sum(len(g.highlights) for g in groups)), expand=True),
                ft.OutlinedButton(
                    t("notes.export"),
                    icon=ft.Icons.DOWNLOAD,
                    on_click=lambda e: actions.export(),
                    disabled=not (groups or model.shown_words),
                ),
                *_vault_button(actions, t, disabled=not groups),
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
                on_click=(lambda e, b=bookmark: actions.open_bookmark(b)) if actions.open_bookmark else None,
                trailing=ft.IconButton(
                    ft.Icons.DELETE_OUTLINE,
                    tooltip=t("reader.bookmark.remove"),
                    on_click=(lambda e, b=bookmark: actions.remove_bookmark(b)) if actions.remove_bookmark else None,
                ),
            )
            for bookmark, where in bookmarks
        ]
    if model.shown_words:
        controls.append(ft.Text(t("notes.vocabulary"), size=14, weight=ft.FontWeight.W_600, color=ft.Colors.PRIMARY))
        controls += [_word_tile(word, actions, t) for word in model.shown_words]
    if not groups:
        controls.append(ft.Text(t("notes.empty"), color=ft.Colors.ON_SURFACE_VARIANT))
    last_book = None
    for group in groups:
        if model.book_id is None and group.book_id != last_book:
            controls.append(ft.Text(group.book_title, size=18, weight=ft.FontWeight.BOLD))
            last_book = group.book_id
        controls.append(ft.Text(group.chapter, size=14, weight=ft.FontWeight.W_600, color=ft.Colors.PRIMARY))
        controls += [_highlight_card(h, actions, t) for h in group.highlights]
    return ft.ListView(controls, spacing=8, expand=True)


def _word_tile(word: VocabularyWord, actions: NotesActions, t: Translator) -> ft.Control:
    """A word of the vocabulary list: its definition's first line and the sentence it was read in."""
    first = next((line.strip() for line in word.definition.splitlines() if line.strip()), "")
    return ft.ListTile(
        leading=ft.Icon(ft.Icons.TRANSLATE),
        title=ft.Text(word.word, weight=ft.FontWeight.W_600),
        subtitle=ft.Text(f"{first}\n{' '.join(word.sentence.split())}".strip(), max_lines=3, size=12),
        dense=True,
        on_click=(lambda e: actions.open_word(word)) if actions.open_word and word.locator else None,
        trailing=ft.IconButton(
            ft.Icons.DELETE_OUTLINE,
            tooltip=t("notes.vocabulary.remove"),
            on_click=(lambda e: actions.forget_word(word)) if actions.forget_word else None,
        ),
    )


def build_notes_screen(
    model: NotesViewModel, actions: NotesActions, t: Translator, on_back: Callable[[], object]
) -> ft.Control:
    """The library-wide notes screen."""
    return ft.Column(
        [
            ft.Row(
                [
                    ft.IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: on_back()),
                    ft.Text(t("notes.all"), size=22, weight=ft.FontWeight.BOLD),
                ]
            ),
            build_notes_list(model, actions, t),
        ],
        expand=True,
    )


def _count(t: Translator, n: int) -> str:
    """ "1 highlight", "3 highlights" (Chinese has no plural)."""
    return t("notes.count.one") if n == 1 else t("notes.count", n=n)
