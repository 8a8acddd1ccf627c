"""The library view: covers in a grid or rows in a list, with search, sort, tag filter, import and details."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import flet as ft

from app.a11y import IconButton
from app.i18n import Translator
from app.keys import text_field
from app.screens import Screen
from app.screens.library.intents import AskLibrary, OpenPassage, SearchText, TextIntent
from app.screens.library.model import BookRow, LibraryViewModel, PassageRow
from core import SHELF_SORTS

COVER_WIDTH = 132
COVER_HEIGHT = 192
GRID_GAP = 12
# Under a cover: the card's padding (12), two lines of title (36), the author line (15), the format and progress
# line (15), the progress bar (3) and the column's gaps (16), as drawn in Chromium.
CARD_TEXT = 97
COVER_BATCH = 12  # covers sent together after the cards are drawn (one screenful of a desktop grid)
PLACEHOLDER_COLORS = ("#5C6BC0", "#00897B", "#8D6E63", "#7E57C2", "#C0CA33", "#F4511E")


@dataclass
class LibraryActions:
    """What the library view can ask the shell to do."""

    open_book: Callable[[int], None]
    show_details: Callable[[int], None]
    import_books: Callable[[], object]
    go: Callable[[Screen], object]  # another screen: the notes, the settings, the reading statistics
    changed: Callable[[], object]  # search, sort, tag or layout changed: read the library and draw it again
    # the model gained what it read itself (covers, the shelf's next page): draw from it again, reading nothing
    # more, if the library is still what the window shows
    drawn_again: Callable[[], object] = lambda: None
    # runs a coroutine function on the app's loop after this drawing; None: covers are drawn with their cards
    later: Callable[[Callable[[], Awaitable[None]]], object] | None = None
    text: Callable[[TextIntent], object] = lambda wanted: None  # the books' text: its search, a passage, a question


@dataclass
class PendingCovers:
    """The covers of cards drawn with a placeholder, read just after them a few at a time (kept across drawings).

    The first screen of a library is its cards' text; 60 covers are about 2 MB, which took the start from 1.3 to
    1.9 times a bare Flet app's (``bench.scale --start``). Each placeholder is the same coloured card a book
    without a cover has, so nothing moves when the picture arrives: the screen is drawn again once a batch is
    read, and the difference sent is the pictures.
    """

    wanted: list[int] = field(default_factory=list)  # asked for by the drawing under way
    asked: set[int] = field(default_factory=set)  # every cover asked for already (each is read once)

    def want(self, book_id: int) -> None:
        if book_id not in self.asked:
            self.asked.add(book_id)
            self.wanted.append(book_id)

    def fill(self, model: LibraryViewModel, redraw: Callable[[], object]) -> Callable[[], Awaitable[None]]:
        wanted, self.wanted = self.wanted, []

        async def run() -> None:
            for start in range(0, len(wanted), COVER_BATCH):
                await asyncio.sleep(0)  # let the cards' own drawing go first, and a click in between
                for book_id in wanted[start : start + COVER_BATCH]:
                    model.cover(book_id)
                redraw()

        return run


def cover_image(
    model: LibraryViewModel, row: BookRow, width: int, height: int, pending: PendingCovers | None = None
) -> ft.Control:
    """The book's own cover, or a coloured card with its title when it has none (or, with ``pending``, until its
    cover is read just after the card)."""
    if pending is not None and row.has_cover and not model.cover_is_read(row.book_id):
        pending.want(row.book_id)
        return _placeholder(row, width, height)
    cover = model.cover(row.book_id) if row.has_cover else None
    if cover is not None:
        return ft.Image(src=cover, width=width, height=height, fit=ft.BoxFit.COVER, border_radius=6)
    return _placeholder(row, width, height)


def _placeholder(row: BookRow, width: int, height: int) -> ft.Control:
    """A coloured card with the book's title, where it has no cover."""
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
    cover = int(min(COVER_WIDTH, cell_width(width, columns) - 12))
    return columns, cover, int(cover * COVER_HEIGHT / COVER_WIDTH)


def cell_width(width: float, columns: int) -> float:
    """The width of one grid cell (the grid's spacing between cells is GRID_GAP)."""
    return (width - GRID_GAP * (columns - 1)) / columns


def grid_aspect(width: float) -> float:
    """A grid cell's width over its height: as tall as the card in it (its cover and CARD_TEXT), no band below.

    The cell is often wider than the card (a phone's two columns); the height is the card's, not the width's.
    """
    columns, _, cover_height = grid_geometry(width)
    return cell_width(width, columns) / (cover_height + CARD_TEXT)


def _grid_card(
    model: LibraryViewModel,
    row: BookRow,
    actions: LibraryActions,
    t: Translator,
    cover: tuple[int, int],
    pending: PendingCovers | None,
) -> ft.Control:
    width, height = cover
    return ft.Container(
        ft.Column(
            [
                cover_image(model, row, width, height, pending),
                ft.Text(
                    row.title,
                    size=13,
                    weight=ft.FontWeight.W_600,
                    max_lines=2,
                    width=width,
                    overflow=ft.TextOverflow.ELLIPSIS,
                ),
                ft.Text(
                    row.subtitle,
                    size=11,
                    max_lines=1,
                    width=width,
                    color=ft.Colors.ON_SURFACE_VARIANT,
                    overflow=ft.TextOverflow.ELLIPSIS,
                ),
                ft.Row(
                    [ft.Text(row.badge, size=11, color=ft.Colors.ON_SURFACE_VARIANT, max_lines=1), *_warned(row)],
                    spacing=4,
                    width=width,
                ),
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


def _warned(row: BookRow) -> list[ft.Control]:
    """A small warning sign (its words in the tooltip) for a book that imported with warnings."""
    if not row.warnings:
        return []
    return [ft.Icon(ft.Icons.WARNING_AMBER_ROUNDED, size=14, color=ft.Colors.ON_SURFACE_VARIANT, tooltip=row.warnings)]


def _list_row(
    model: LibraryViewModel, row: BookRow, actions: LibraryActions, t: Translator, pending: PendingCovers | None
) -> ft.Control:
    return ft.ListTile(
        leading=cover_image(model, row, 36, 52, pending),
        title=ft.Text(row.title, max_lines=1, overflow=ft.TextOverflow.ELLIPSIS),
        subtitle=ft.Text(row.subtitle, max_lines=1, overflow=ft.TextOverflow.ELLIPSIS),
        trailing=ft.Row(
            [
                *_warned(row),
                ft.Text(row.badge),
                IconButton(
                    ft.Icons.INFO_OUTLINE,
                    tooltip=t("library.details"),
                    on_click=lambda e, book_id=row.book_id: actions.show_details(book_id),
                ),
            ],
            tight=True,
        ),
        on_click=lambda e, book_id=row.book_id: actions.open_book(book_id),
    )


def _send_covers(model: LibraryViewModel, actions: LibraryActions, pending: PendingCovers | None) -> None:
    """Read the covers of the cards just drawn, after them."""
    if pending is not None and pending.wanted and actions.later is not None:
        actions.later(pending.fill(model, actions.drawn_again))


def _toolbar(model: LibraryViewModel, actions: LibraryActions, t: Translator, phone: bool) -> ft.Control:
    def set_query(e: ft.Event[Any]) -> None:
        """Filter as the reader types: the screen is drawn again in place, so the field keeps the keyboard; the
        books' text is searched behind, once the typing pauses."""
        model.query = e.control.value or ""
        actions.changed()
        actions.text(SearchText(model.query))

    def set_sort(e: ft.Event[Any]) -> None:
        model.sort = e.control.value or "recent"
        actions.changed()

    def toggle_layout(e: ft.Event[Any]) -> None:
        model.layout = "list" if model.layout == "grid" else "grid"
        actions.changed()

    def clear_query(e: ft.Event[Any]) -> None:
        model.query = ""
        actions.changed()
        actions.text(SearchText(""))

    clear = IconButton(ft.Icons.CLOSE, tooltip=t("library.search.clear"), on_click=clear_query)
    search = text_field(
        value=model.query,
        hint_text=t("library.search"),
        prefix_icon=ft.Icons.SEARCH,
        suffix=clear if model.query else None,  # a filter in force can be cleared in one click
        dense=True,
        on_change=set_query,
        on_submit=set_query,
        expand=True,
    )
    sort = ft.Dropdown(
        value=model.sort,
        options=[ft.DropdownOption(key=name, text=t(f"library.sort.{name}")) for name in SHELF_SORTS],
        on_select=set_sort,
        dense=True,
        width=150,
        label=t("library.sort"),
        tooltip=t("library.sort"),  # also its name in the accessibility tree (a label alone is not announced)
    )
    layout = IconButton(
        ft.Icons.VIEW_LIST if model.layout == "grid" else ft.Icons.GRID_VIEW,
        tooltip=t("library.layout.list") if model.layout == "grid" else t("library.layout.grid"),
        on_click=toggle_layout,
    )
    ask = ft.FilledTonalButton(
        t("library.ask"),
        icon=ft.Icons.QUESTION_ANSWER_OUTLINED,  # its words are its name to a screen reader (a tooltip would be)
        on_click=lambda e: actions.text(AskLibrary(model.query)),
        disabled=not model.query.strip(),  # it asks what the search box holds
    )
    if phone:
        tools = ft.Row([ask, ft.Row([sort, layout], spacing=4)], alignment=ft.MainAxisAlignment.SPACE_BETWEEN)
        return ft.Column([search, tools], spacing=8)
    return ft.Row([search, ask, sort, layout], spacing=12)


def _passage_tile(row: PassageRow, actions: LibraryActions, t: Translator) -> ft.Control:
    """One passage: its book and chapter, a few lines of it; a click opens the book there."""
    where = f"{row.title} · {row.where}" if row.where else row.title
    return ft.ListTile(
        title=ft.Text(where, size=13, weight=ft.FontWeight.W_500, max_lines=1, overflow=ft.TextOverflow.ELLIPSIS),
        subtitle=ft.Text(row.text, size=13, max_lines=3, overflow=ft.TextOverflow.ELLIPSIS),
        leading=ft.Icon(ft.Icons.FORMAT_QUOTE),
        on_click=lambda e: actions.text(OpenPassage(row)),
        tooltip=t("library.passages.open", title=row.title),
        dense=True,
    )


def _passages(model: LibraryViewModel, actions: LibraryActions, t: Translator) -> ft.Control | None:
    """What the search found in the books' text (each book only as far as it was read), under the books."""
    if not model.query.strip():
        return None
    rows = model.passages
    heading = ft.Text(t("library.passages"), size=16, weight=ft.FontWeight.W_600)
    if rows is None:
        return ft.Row([ft.ProgressRing(width=16, height=16, stroke_width=2), ft.Text(t("library.passages.looking"))])
    if not rows:
        said = t("library.passages.none_anywhere") if model.spoilers() else t("library.passages.none")
        return ft.Column([heading, ft.Text(said, color=ft.Colors.ON_SURFACE_VARIANT)])
    tiles = [_passage_tile(row, actions, t) for row in rows]
    return ft.Column([heading, *tiles], spacing=0)


def _tag_filter(model: LibraryViewModel, actions: LibraryActions, t: Translator) -> ft.Control | None:
    tags = model.tags
    if not tags:
        return None

    def choose(tag: str | None) -> None:
        model.tag = tag
        actions.changed()

    chips = [ft.Chip(label=ft.Text(t("library.all")), selected=model.tag is None, on_select=lambda e: choose(None))]
    chips += [
        ft.Chip(label=ft.Text(tag), selected=model.tag == tag, on_select=lambda e, tag=tag: choose(tag)) for tag in tags
    ]
    return ft.Row(list[ft.Control](chips), wrap=True, spacing=6)


def build_library_view(
    model: LibraryViewModel,
    actions: LibraryActions,
    t: Translator,
    *,
    width: float = 1024,
    covers: PendingCovers | None = None,
) -> ft.Control:
    """The whole library screen, drawn from the view-model (``model.refresh()`` first: drawing reads nothing).

    Nothing in it changes in place: each change is drawn again whole and Flet's declarative layer sends the
    difference (``app/drawn.py``). With ``covers`` (kept by the caller across drawings) and ``actions.later``, the
    covers of the cards drawn are read after them."""
    phone = width < 600
    slot = ft.Container(_books(model, actions, t, width, covers if actions.later is not None else None), expand=True)

    header = ft.Row(
        [
            ft.Column(
                [ft.Text(t("app.title"), size=28, weight=ft.FontWeight.BOLD), ft.Text(model.summary)],
                spacing=0,
                expand=True,
            ),
            IconButton(ft.Icons.ADD, tooltip=t("library.import"), on_click=lambda e: actions.import_books()),
            IconButton(
                ft.Icons.STICKY_NOTE_2_OUTLINED, tooltip=t("notes.all"), on_click=lambda e: actions.go(Screen.NOTES)
            ),
            IconButton(ft.Icons.INSIGHTS, tooltip=t("stats.title"), on_click=lambda e: actions.go(Screen.STATS)),
            IconButton(
                ft.Icons.SETTINGS_OUTLINED, tooltip=t("settings.title"), on_click=lambda e: actions.go(Screen.SETTINGS)
            ),
        ]
    )
    parts: list[ft.Control] = [header]
    if model.has_books:
        parts.append(_toolbar(model, actions, t, phone))
        tags = _tag_filter(model, actions, t)
        if tags is not None:
            parts.append(tags)
    passages = _passages(model, actions, t) if model.has_books else None
    if passages is None:
        parts.append(slot)
        return ft.Column(parts, expand=True, spacing=12)
    # a search: the books it matches above, the passages of their text below, each half scrolling on its own
    slot.expand = 1 if model.rows() else 0
    parts += [slot, ft.Divider(height=1), ft.Container(ft.ListView([passages]), expand=2)]
    return ft.Column(parts, expand=True, spacing=12)


def _books(
    model: LibraryViewModel, actions: LibraryActions, t: Translator, width: float, pending: PendingCovers | None
) -> ft.Control:
    """The books that pass the search and tag filter, as covers or rows; a welcome when there are none yet."""
    rows = model.rows()
    if not model.has_books:
        return ft.Container(
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
    if not rows:
        return ft.Text(t("library.no_match"), size=16)
    if model.layout == "grid":
        columns, cover_width, cover_height = grid_geometry(width - 24)

        def card(row: BookRow) -> ft.Control:
            return _grid_card(model, row, actions, t, (cover_width, cover_height), pending)

        shelf: ft.GridView | ft.ListView = ft.GridView(
            runs_count=columns,
            child_aspect_ratio=grid_aspect(width - 24),
            spacing=GRID_GAP,
            run_spacing=GRID_GAP,
            expand=True,
        )
    else:

        def card(row: BookRow) -> ft.Control:
            return _list_row(model, row, actions, t, pending)

        shelf = ft.ListView(expand=True)
    # The first page of cards, then the next as the reader scrolls near the end: a library of thousands reads (in
    # the database), draws and fetches the covers of what can be seen, so it comes as fast with 2,000 books as 60.
    # A card's key is its book: a shelf drawn again in another order moves the cards the client has.
    shelf.controls = [card(row) for row in rows]
    for control, row in zip(shelf.controls, rows, strict=True):
        control.key = row.book_id
    _send_covers(model, actions, pending)

    def more(e: ft.OnScrollEvent) -> None:
        if model.more and e.pixels >= e.max_scroll_extent - 2 * e.viewport_dimension and model.read_more():
            actions.drawn_again()  # the rows just read, not the whole shelf again

    shelf.on_scroll = more
    return shelf
