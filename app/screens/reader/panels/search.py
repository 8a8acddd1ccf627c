"""The search panel: a word or phrase in the book, its hits in reading order, more on request."""

from __future__ import annotations

from typing import TYPE_CHECKING

import flet as ft

from app.keys import text_field
from app.screens.reader import intents as intent
from app.screens.reader.search import SEARCH_PAGE
from app.screens.reader.view import ReaderActions

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader


def search_panel(model: ReaderViewModel, actions: ReaderActions, t: Translator) -> ft.Control:
    """A search field and the hits as snippets; a hit opens its passage with the words marked."""
    field = text_field(
        value=model.finder.query,
        hint_text=t("reader.search"),
        prefix_icon=ft.Icons.SEARCH,
        autofocus=True,
        dense=True,
        on_submit=lambda e: actions.post(intent.Search(e.control.value or "")),
    )
    if model.finder.query and not model.finder.hits:
        results: list[ft.Control] = [ft.Text(t("reader.search.none", query=model.finder.query))]
    else:
        results = [
            ft.ListTile(
                title=ft.Text(
                    t("reader.search.ahead", chapter=hit.section_title)
                    if model.finder.is_ahead(hit)
                    else hit.section_title,
                    size=12,
                    color=ft.Colors.TERTIARY if model.finder.is_ahead(hit) else ft.Colors.ON_SURFACE_VARIANT,
                    max_lines=1,
                ),
                subtitle=ft.Text(hit.snippet.replace("**", ""), max_lines=3),
                dense=True,
                on_click=lambda e, i=index: actions.post(intent.OpenHit(i)),
            )
            for index, hit in enumerate(model.finder.hits[: model.finder.shown])
        ]
        left = len(model.finder.hits) - model.finder.shown
        if left > 0:  # lazily: a long list of hits is drawn a page at a time
            results.append(
                ft.TextButton(
                    t("reader.search.more", n=f"{min(left, SEARCH_PAGE):,}"),
                    on_click=lambda e: actions.post(intent.MoreHits()),
                )
            )
    count = (
        [
            ft.Text(
                t("reader.search.count", n=f"{model.finder.matches:,}", places=f"{len(model.finder.hits):,}"), size=12
            )
        ]
        if model.finder.hits
        else []
    )
    if model.finder.query and model.in_part is not None:  # a long PDF whose rest is still being read
        count.append(ft.Text(t("reader.search.in_part", read=model.in_part[0], pages=model.in_part[1]), size=12))
    return ft.Column([field, *count, ft.ListView(results, expand=True)], expand=True)


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    return search_panel(model, actions, reader.app.t)
