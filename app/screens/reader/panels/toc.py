"""The contents panel: the "Go to" field and the chapters, the current one marked and scrolled to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import flet as ft

from app.keys import text_field
from app.screens.reader import intents as intent
from app.screens.reader.navigation import GoTo, Typed
from app.screens.reader.view import ReaderActions
from app.workers import Workers

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader

TOC_ROW = 48  # px: a dense one-line contents row


@ft.control
class StartAtList(ft.ListView):
    """A list that, once on screen, scrolls to ``start_offset`` (the contents open at the current chapter)."""

    start_offset: float = 0

    def did_mount(self) -> None:
        super().did_mount()  # type: ignore[no-untyped-call]  # Flet's own is unannotated
        if self.start_offset > 0:
            workers = Workers.of(self.page)
            if workers is not None:  # always, in the app: a list drawn by it
                workers.request(self.scroll_to, offset=self.start_offset)


@dataclass
class TocParts:
    """The contents panel's parts that stay on screen while pages turn in one chapter: the "Go to" field (what is
    typed in it stays) and the list (where the reader scrolled it stays). Made again when the chapter changes,
    except by a row of the list itself when only the page is drawn again (``follow``)."""

    key: tuple[object, ...]
    go_to: ft.TextField
    listing: StartAtList
    section: int  # the chapter marked as the one read
    tiles: dict[int, list[ft.ListTile]]  # the rows of each section, to mark the current one
    first_rows: dict[int, int]  # each section's first row in the list


def _mark(tiles: list[ft.ListTile], current: bool) -> None:
    for tile in tiles:
        tile.selected = current
        if isinstance(tile.title, ft.Text):
            tile.title.weight = ft.FontWeight.BOLD if current else None


def follow(parts: TocParts, model: ReaderViewModel, t: Translator) -> list[ft.Control] | None:
    """After a jump from a row of the list, the same list with its marks moved to the chapter now read (the clicked
    row is in view already); the rows whose marks moved, or None when the list is not this book's as it is now (the
    contents of a long PDF grew, the language changed: it is made anew)."""
    current = model.current.locator.section if model.current else -1
    if parts.key != (model.book.id, parts.section, t.language, len(model.shown.toc)):
        return None
    if parts.section == current:
        return []
    moved = [*parts.tiles.get(parts.section, []), *parts.tiles.get(current, [])]
    _mark(parts.tiles.get(parts.section, []), False)
    _mark(parts.tiles.get(current, []), True)
    parts.key, parts.section = (model.book.id, current, t.language, len(model.shown.toc)), current
    parts.listing.start_offset = max(0, parts.first_rows.get(current, 0) - 3) * TOC_ROW  # if it is mounted again
    return list(moved)


def toc_parts(model: ReaderViewModel, actions: ReaderActions, t: Translator, kept: TocParts | None) -> TocParts:
    """``kept`` when it was made for this book, chapter and language; else new parts (a jump asks for new ones:
    the "Go to" field that took it lets the keyboard go, and the arrows turn pages again)."""
    current = model.current.locator.section if model.current else -1
    key = (model.book.id, current, t.language, len(model.shown.toc))
    if kept is not None and kept.key == key:
        return kept
    entries = [row for row in model.shown.toc if row.locator is not None]
    tiles: dict[int, list[ft.ListTile]] = {}
    first_rows: dict[int, int] = {}
    rows: list[ft.Control] = []
    for row in entries:
        if row.locator is None:
            continue
        first_rows.setdefault(row.locator.section, len(rows))
        tile = ft.ListTile(
            title=ft.Text(
                row.title,
                max_lines=1,
                overflow=ft.TextOverflow.ELLIPSIS,
                tooltip=row.title if len(row.title) > 32 else None,
                weight=ft.FontWeight.BOLD if row.locator.section == current else None,
            ),
            content_padding=ft.Padding.only(left=12 + 16 * row.depth, right=8),
            dense=True,
            selected=row.locator.section == current,
            on_click=lambda e, loc=row.locator: actions.post(GoTo(loc, from_contents=True)),
        )
        tiles.setdefault(row.locator.section, []).append(tile)
        rows.append(tile)
    here = first_rows.get(current, 0)
    listing = StartAtList(
        rows or [ft.Text(t("reader.toc.empty"))],
        expand=True,
        item_extent=TOC_ROW,  # every row the same height: the current one's offset is known before drawing
        start_offset=max(0, here - 3) * TOC_ROW,  # a few chapters above it stay in view
    )
    go_to = text_field(
        hint_text=t("reader.goto"),
        dense=True,
        prefix_icon=ft.Icons.MY_LOCATION,
        on_submit=lambda e: actions.post(Typed(e.control.value or "")),
    )
    return TocParts(key, go_to, listing, current, tiles, first_rows)


def toc_panel(model: ReaderViewModel, actions: ReaderActions, t: Translator, parts: TocParts) -> ft.Control:
    """The table of contents; the current chapter is marked, and the list opens scrolled to it. ``parts`` (from
    :func:`toc_parts`) are kept while pages turn in a chapter: each turn drew Moby-Dick's 6,400 contents controls
    anew (60% of a page turn's time on the server) and scrolled the list back to the chapter."""
    at, read = model.shown.percents
    behind = at + 0.5 < read  # the reader went back: they may not have read past here
    ahead = at > read + 0.5  # the reader jumped ahead: reading there does not count until they say so, or read on
    unread = []
    if behind:
        unread = [
            ft.TextButton(
                t("reader.read_up_to_here"),
                icon=ft.Icons.BOOKMARK_REMOVE,
                on_click=lambda e: actions.post(intent.ReadUpToHere()),
            )
        ]
    elif ahead:
        unread = [
            ft.TextButton(
                t("reader.read_to_here"),
                icon=ft.Icons.BOOKMARK_ADDED,
                on_click=lambda e: actions.post(intent.ReadToHere()),
            )
        ]
    return ft.Column([parts.go_to, *unread, parts.listing], expand=True)


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    kept = reader.kept.get("toc")
    parts = toc_parts(model, actions, reader.app.t, kept if isinstance(kept, TocParts) else None)
    reader.kept["toc"] = parts
    return toc_panel(model, actions, reader.app.t, parts)
