"""The library view: covers in a grid or rows in a list, with search, sort, tag filter, import and details."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import flet as ft

from app.i18n import Translator
from app.library_model import SORTS, BookRow, LibraryViewModel

COVER_WIDTH = 132
COVER_HEIGHT = 192
PLACEHOLDER_COLORS = ("#5C6BC0", "#00897B", "#8D6E63", "#7E57C2", "#C0CA33", "#F4511E")


@dataclass
class LibraryActions:
    """What the library view can ask the shell to do."""

    open_book: Callable[[int], None]
    show_details: Callable[[int], None]
    import_books: Callable[[], None]
    open_notes: Callable[[], None]
    open_settings: Callable[[], None]
    changed: Callable[[], None]  # search, sort, tag or layout changed: render again


def cover_image(model: LibraryViewModel, row: BookRow, width: int, height: int) -> ft.Control:
    """The book's own cover, or a coloured card with its title when it has none."""
    cover = model.quire.cover(row.book_id) if row.has_cover else None
    if cover is not None:
        return ft.Image(src=cover[0], width=width, height=height, fit=ft.BoxFit.COVER, border_radius=6)
    return ft.Container(
        ft.Text(row.title, size=13, weight=ft.FontWeight.BOLD, color=ft.Colors.WHITE, max_lines=5),
        width=width,
        height=height,
        padding=10,
        border_radius=6,
        alignment=ft.Alignment.CENTER,
        bgcolor=PLACEHOLDER_COLORS[row.book_id % len(PLACEHOLDER_COLORS)],
    )


def grid_geometry(width: float) -> tuple[int, int, int]:
    """Columns, cover width and cover height for a library this wide (two columns at least, on phones)."""
    columns = max(2, int(width // (COVER_WIDTH + 28)))
    cover = int(min(COVER_WIDTH, (width - 12 * (columns - 1)) / columns - 12))
    return columns, cover, int(cover * COVER_HEIGHT / COVER_WIDTH)


def _grid_card(
    model: LibraryViewModel, row: BookRow, actions: LibraryActions, t: Translator, cover: tuple[int, int]
) -> ft.Control:
    width, height = cover
    return ft.Container(
        ft.Column(
            [
                cover_image(model, row, width, height),
                ft.Text(row.title, size=13, weight=ft.FontWeight.W_600, max_lines=2, width=width),
                ft.Text(row.subtitle, size=11, max_lines=1, width=width, color=ft.Colors.ON_SURFACE_VARIANT),
                ft.ProgressBar(value=row.progress / 100, width=width, bar_height=3),
            ],
            spacing=4,
            tight=True,
        ),
        on_click=lambda e, book_id=row.book_id: actions.open_book(book_id),
        on_long_press=lambda e, book_id=row.book_id: actions.show_details(book_id),
        tooltip=t("library.open", title=row.title),
        border_radius=8,
        padding=6,
    )


def _list_row(model: LibraryViewModel, row: BookRow, actions: LibraryActions, t: Translator) -> ft.Control:
    return ft.ListTile(
        leading=cover_image(model, row, 36, 52),
        title=ft.Text(row.title, max_lines=1),
        subtitle=ft.Text(row.subtitle, max_lines=1),
        trailing=ft.Row(
            [
                ft.Text(row.badge),
                ft.IconButton(
                    ft.Icons.INFO_OUTLINE,
                    tooltip=t("library.details"),
                    on_click=lambda e, book_id=row.book_id: actions.show_details(book_id),
                ),
            ],
            tight=True,
        ),
        on_click=lambda e, book_id=row.book_id: actions.open_book(book_id),
    )


def _toolbar(model: LibraryViewModel, actions: LibraryActions, t: Translator, phone: bool) -> ft.Control:
    def set_query(e: ft.Event) -> None:
        model.query = e.control.value or ""
        actions.changed()

    def set_sort(e: ft.Event) -> None:
        model.sort = e.control.value or "recent"
        actions.changed()

    def toggle_layout(e: ft.Event) -> None:
        model.layout = "list" if model.layout == "grid" else "grid"
        actions.changed()

    def clear_query(e: ft.Event) -> None:
        model.query = ""
        actions.changed()

    clear = ft.IconButton(ft.Icons.CLOSE, tooltip=t("library.search.clear"), on_click=clear_query)
    search = ft.TextField(
        value=model.query,
        hint_text=t("library.search"),
        prefix_icon=ft.Icons.SEARCH,
        suffix=clear if model.query else None,  # a filter in force can be cleared in one click
        dense=True,
        on_submit=set_query,
        on_blur=set_query,
        expand=True,
    )
    sort = ft.Dropdown(
        value=model.sort,
        options=[ft.DropdownOption(key=name, text=t(f"library.sort.{name}")) for name in SORTS],
        on_select=set_sort,
        dense=True,
        width=150,
        label=t("library.sort"),
    )
    layout = ft.IconButton(
        ft.Icons.VIEW_LIST if model.layout == "grid" else ft.Icons.GRID_VIEW,
        tooltip=t("library.layout.list") if model.layout == "grid" else t("library.layout.grid"),
        on_click=toggle_layout,
    )
    if phone:
        return ft.Column([search, ft.Row([sort, layout], alignment=ft.MainAxisAlignment.SPACE_BETWEEN)], spacing=8)
    return ft.Row([search, sort, layout], spacing=12)


def _tag_filter(model: LibraryViewModel, actions: LibraryActions, t: Translator) -> ft.Control | None:
    tags = model.quire.tags()
    if not tags:
        return None

    def choose(tag: str | None) -> None:
        model.tag = tag
        actions.changed()

    chips = [ft.Chip(label=ft.Text(t("library.all")), selected=model.tag is None, on_select=lambda e: choose(None))]
    chips += [
        ft.Chip(label=ft.Text(tag), selected=model.tag == tag, on_select=lambda e, tag=tag: choose(tag)) for tag in tags
    ]
    return ft.Row(chips, wrap=True, spacing=6)


def build_library_view(
    model: LibraryViewModel, actions: LibraryActions, t: Translator, *, width: float = 1024
) -> ft.Control:
    """The whole library screen, rebuilt from the view-model."""
    phone = width < 600
    rows = model.rows()
    if not model.quire.books():
        body: ft.Control = ft.Container(
            ft.Column(
                [
                    ft.Icon(ft.Icons.AUTO_STORIES, size=64, color=ft.Colors.PRIMARY),
                    ft.Text(model.empty_message, size=16, text_align=ft.TextAlign.CENTER),
                    ft.FilledButton(t("library.import"), icon=ft.Icons.ADD, on_click=lambda e: actions.import_books()),
                ],
                horizontal_alignment=ft.CrossAxisAlignment.CENTER,
                tight=True,
            ),
            alignment=ft.Alignment.CENTER,
            expand=True,
        )
    elif not rows:
        body = ft.Text(t("library.no_match"), size=16)
    elif model.layout == "grid":
        columns, cover_width, cover_height = grid_geometry(width - 24)
        body = ft.GridView(
            controls=[_grid_card(model, row, actions, t, (cover_width, cover_height)) for row in rows],
            runs_count=columns,
            child_aspect_ratio=(cover_width + 12) / (cover_height + 92),
            spacing=12,
            run_spacing=12,
            expand=True,
        )
    else:
        body = ft.ListView(controls=[_list_row(model, row, actions, t) for row in rows], expand=True)
    header = ft.Row(
        [
            ft.Column(
                [ft.Text(t("app.title"), size=28, weight=ft.FontWeight.BOLD), ft.Text(model.summary)],
                spacing=0,
                expand=True,
            ),
            ft.IconButton(ft.Icons.ADD, tooltip=t("library.import"), on_click=lambda e: actions.import_books()),
            ft.IconButton(
                ft.Icons.STICKY_NOTE_2_OUTLINED, tooltip=t("notes.all"), on_click=lambda e: actions.open_notes()
            ),
            ft.IconButton(
                ft.Icons.SETTINGS_OUTLINED, tooltip=t("settings.title"), on_click=lambda e: actions.open_settings()
            ),
        ]
    )
    parts: list[ft.Control] = [header]
    if model.quire.books():
        parts.append(_toolbar(model, actions, t, phone))
        tags = _tag_filter(model, actions, t)
        if tags is not None:
            parts.append(tags)
    parts.append(body)
    return ft.Column(parts, expand=True, spacing=12)


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
    on_close: Callable[[], None],
    on_tag: Callable[[int, str], None] | None = None,
    on_edit: Callable[[int, str, str], None] | None = None,
) -> ft.AlertDialog:
    """A book's details: metadata, contents, import warnings, reading and index status; open or remove it."""
    details = model.details(book_id)
    facts = [ft.Text(f"{label}: {value}", selectable=True) for label, value in details.facts if value]
    contents = [ft.Text(("    " * row.depth) + row.title, size=13) for row in details.toc[:40]]
    if len(details.toc) > 40:
        contents.append(ft.Text(t("details.more", n=len(details.toc) - 40), size=13, italic=True))
    warnings = [status_line(w, ok=False, size=13) for w in details.warnings]
    book = model.quire.book(book_id)
    title_field = ft.TextField(label=t("details.title"), value=book.title, dense=True)
    author_field = ft.TextField(label=t("details.author"), value=", ".join(book.authors), dense=True)

    def edited(e: ft.Event) -> None:
        if on_edit is not None:
            on_edit(book_id, title_field.value or "", author_field.value or "")

    title_field.on_submit = author_field.on_submit = edited
    tag_field = ft.TextField(
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
