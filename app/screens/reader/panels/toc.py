"""The contents panel: the "Go to" field and the chapters, the current one marked and scrolled to."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import flet as ft

from app.drawn import Drawn, keyed
from app.keys import on_screen, text_field
from app.screens.reader import intents as intent
from app.screens.reader.navigation import GoTo, Typed
from app.screens.reader.view import ReaderActions
from app.workers import Workers

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader
    from core import TocRow

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
                workers.request(self._scroll)

    async def _scroll(self) -> None:
        if on_screen(self):  # not when the screen was drawn anew before this went (the new list scrolls itself)
            await self.scroll_to(offset=self.start_offset)


class Contents:
    """The contents panel of the open book: the "Go to" field, kept while the reader stays in a chapter (what is typed
    in it stays), and the list with the buttons over it, a drawn part (``part``) that the reader draws again after
    each move: Flet's diff moves the marks, and the list itself is drawn only when what it shows changed.

    The list opens scrolled to the chapter read (``anchor``) and keeps where the reader scrolled it while the
    chapter stays; a move to another chapter draws a new list there, except a jump from a row of the list itself
    (``from_list``), which leaves the list where it is with its marks moved."""

    def __init__(self, model: ReaderViewModel, actions: ReaderActions, t: Translator) -> None:
        self.model, self.actions, self.t = model, actions, t
        self.key = (model.book.id, _current(model), t.language)
        self.anchor = _current(model)
        self.from_list = False
        self.go_to = text_field(
            hint_text=t("reader.goto"),
            dense=True,
            prefix_icon=ft.Icons.MY_LOCATION,
            on_submit=lambda e: actions.post(Typed(e.control.value or "")),
        )
        self.part = Drawn(self.draw)

    def fits(self, model: ReaderViewModel, t: Translator) -> bool:
        """Whether the "Go to" field is still this book's, chapter's and language's (else a new one: a jump lets go
        of the keyboard that way)."""
        return model is self.model and self.key == (model.book.id, _current(model), t.language)

    def draw(self) -> ft.Control:
        model, actions, t = self.model, self.actions, self.t
        current = _current(model)
        if not self.from_list:
            self.anchor = current
        self.from_list = False
        at, read = model.shown.percents
        offer: tuple[str, ft.IconData, intent.ReadUpToHere | intent.ReadToHere] | None = None
        if at + 0.5 < read:  # the reader went back: they may not have read past here
            offer = ("reader.read_up_to_here", ft.Icons.BOOKMARK_REMOVE, intent.ReadUpToHere())
        elif at > read + 0.5:  # the reader jumped ahead: reading there does not count until they say so, or read on
            offer = ("reader.read_to_here", ft.Icons.BOOKMARK_ADDED, intent.ReadToHere())
        unread: list[ft.Control] = []
        if offer is not None:
            words, icon, wanted = offer
            unread = [ft.TextButton(t(words), icon=icon, on_click=lambda e: actions.post(wanted), key=words)]
        rows = tuple(row for row in model.shown.toc if row.locator is not None)
        listing = keyed((model.book.id, rows, current, self.anchor, t.language), self.draw_list)
        return ft.Column([*unread, listing], expand=True)

    def draw_list(self) -> ft.Control:
        """The chapters, the one read marked; a list made for another chapter is a new list (its key), scrolled
        there when it appears."""
        model, actions, t = self.model, self.actions, self.t
        current = _current(model)
        rows: list[ft.Control] = []
        here: int | None = None  # the anchor's first row
        for row in model.shown.toc:
            if row.locator is None:
                continue
            if row.locator.section == self.anchor and here is None:
                here = len(rows)
            rows.append(_chapter_row(row, row.locator.section == current, actions))
        return StartAtList(
            rows or [ft.Text(t("reader.toc.empty"))],
            expand=True,
            item_extent=TOC_ROW,  # every row the same height: the current one's offset is known before drawing
            start_offset=max(0, (here or 0) - 3) * TOC_ROW,  # a few chapters above it stay in view
            key=f"contents-{model.book.id}-{self.anchor}",
        )


@ft.component
def _chapter(row: TocRow, current: bool, actions: ReaderActions) -> ft.Control:
    assert row.locator is not None
    return ft.ListTile(
        title=ft.Text(
            row.title,
            max_lines=1,
            overflow=ft.TextOverflow.ELLIPSIS,
            tooltip=row.title if len(row.title) > 32 else None,
            weight=ft.FontWeight.BOLD if current else None,
        ),
        content_padding=ft.Padding.only(left=12 + 16 * row.depth, right=8),
        dense=True,
        selected=current,
        on_click=lambda e, loc=row.locator: actions.post(GoTo(loc, from_contents=True)),
    )


def _chapter_row(row: TocRow, current: bool, actions: ReaderActions) -> ft.Control:
    """A row of the contents, drawn again only when it is marked or unmarked: a jump in Moby-Dick draws two rows of
    135 (``actions`` is the panel's, the same object from one drawing to the next)."""
    made: object = ft.memo(_chapter)(row, current, actions)  # type: ignore[no-untyped-call]
    return cast(ft.Control, made)


def _current(model: ReaderViewModel) -> int:
    return model.current.locator.section if model.current else -1


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    """The "Go to" field over the list (a new drawn part each time the screen is drawn)."""
    kept = reader.kept.get("toc")
    if isinstance(kept, Contents) and kept.fits(model, reader.app.t):
        kept.actions, kept.part = actions, Drawn(kept.draw)
        contents = kept
    else:
        contents = Contents(model, actions, reader.app.t)
    reader.kept["toc"] = contents
    return ft.Column([contents.go_to, contents.part.control], expand=True)
