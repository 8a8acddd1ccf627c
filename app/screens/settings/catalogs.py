"""OPDS catalogs in the app: Settings › Catalogs (add by URL with an optional login, remove, browse) and the catalog
screen (navigation and book entries, search, pages, covers loaded after the list, a book downloaded with progress
into the library)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import flet as ft

from app.a11y import IconButton, selectable
from app.i18n import Translator
from app.keys import text_field
from app.screens import Screen
from app.screens.settings.form import SettingsForm
from core import CatalogInfo, OpdsEntry, OpdsFeed, QuireError

if TYPE_CHECKING:
    from app.port import Port

COVER_BYTES = 1024 * 1024  # a thumbnail larger than this is not drawn
THUMB = 56


class CatalogsController:
    """``SettingsController.catalogs``: the catalog being browsed (its feeds as a stack, for Back), search, downloads."""

    def __init__(self, app: Port) -> None:
        self.app = app
        self.catalog: CatalogInfo | None = None
        self.feeds: list[OpdsFeed] = []  # the feeds opened, the one shown last
        self.loading = False
        self.downloads: dict[str, str] = {}  # entry id -> its progress line, or "done"
        self.pictures: dict[str, bytes] = {}  # entry id -> its thumbnail, read in the background, kept while open
        self.query = ""  # what is typed in the search box (the screen is drawn again as covers arrive)

    @property
    def feed(self) -> OpdsFeed | None:
        return self.feeds[-1] if self.feeds else None

    # -- the catalogs added (Settings) -----------------------------------------------------------------------
    async def add(self, url: str, user: str, password: str) -> str:
        """Add a catalog once its feed reads with this login; the sentence to show under the form."""
        app = self.app
        try:
            info = await asyncio.to_thread(
                app.quire.catalogs.add, url.strip(), "", user.strip(), password or None, app.store.secrets
            )
        except QuireError as error:
            return app.t.error(error)
        return app.t("catalogs.added", title=info.title)

    def remove(self, number: int) -> None:
        self.app.quire.catalogs.remove(number, self.app.store.secrets)

    # -- browsing ----------------------------------------------------------------------------------------------
    def browse(self, catalog: CatalogInfo) -> None:
        """Open a catalog's own feed on the catalog screen."""
        self.catalog, self.feeds, self.downloads, self.pictures, self.query = catalog, [], {}, {}, ""
        self.app.go(Screen.CATALOG)
        self._load(lambda: self.app.quire.catalogs.browse(catalog.id, self.app.store.secrets))

    def open(self, url: str, replace: bool = False) -> None:
        """Open a feed of the catalog (a navigation entry, the next or previous page)."""
        assert self.catalog is not None
        self._load(lambda: self.app.quire.catalogs.browse(url, self.app.store.secrets), replace)

    def search(self, query: str) -> None:
        if self.catalog is not None and query.strip():
            catalog = self.catalog
            self._load(lambda: self.app.quire.catalogs.search(catalog.id, query, self.app.store.secrets))

    def back(self) -> None:
        """The feed before, or Settings from the catalog's first feed."""
        if len(self.feeds) > 1:
            self.feeds.pop()
            self.app.render()
        else:
            self.catalog, self.feeds = None, []
            self.app.go(Screen.SETTINGS)

    def _load(self, read: Any, replace: bool = False) -> None:
        app = self.app
        self.loading = True
        app.render()

        async def run() -> None:
            try:
                feed = await asyncio.to_thread(read)
            except QuireError as error:
                self.loading = False
                app.notify(app.t.error(error))
                app.render()
                return
            self.loading = False
            if replace and self.feeds:
                self.feeds[-1] = feed
            else:
                self.feeds.append(feed)
            app.message = feed.title
            app.render()
            await self._load_covers(feed)

        app.workers.later(run)

    async def _load_covers(self, feed: OpdsFeed) -> None:
        """Each book's thumbnail, after the list is drawn, one by one (with the catalog's login)."""
        wanted = [e for e in feed.entries if (e.thumbnail or e.cover) and e.id not in self.pictures]
        if self.catalog is None or not wanted:
            return
        try:  # one client for the page's covers: the login is answered once, not once per cover
            client = self.app.quire.catalogs.client(feed.url, self.app.store.secrets)
        except QuireError:
            return
        with client:
            for entry in wanted:
                if self.feed is not feed:
                    return  # another page is shown now
                href = entry.thumbnail or entry.cover
                assert href is not None
                picture = await asyncio.to_thread(client.picture, href, COVER_BYTES)
                if picture:
                    self.pictures[entry.id] = picture
                    self.redraw()

    def redraw(self) -> None:
        """Draw the catalog screen again (in place: its list keeps its scroll), if it is still what is shown."""
        if self.app.screen == Screen.CATALOG:
            self.app.render()

    async def _redraw(self) -> None:
        self.redraw()

    def download(self, entry: OpdsEntry) -> None:
        """Download the entry's book into the library, the row showing its progress."""
        app = self.app
        if self.catalog is None or (entry.id in self.downloads and self.downloads[entry.id] != "failed"):
            return
        self.downloads[entry.id] = app.t("catalogs.starting")
        app.render()

        def progress(done: int, total: int | None) -> None:  # on the download's thread
            line = app.t("catalogs.progress", done=f"{done / 1e6:.1f}", total=f"{total / 1e6:.1f}" if total else "?")
            if self.downloads.get(entry.id) != line:
                self.downloads[entry.id] = line
                app.workers.later(self._redraw)

        async def run() -> None:
            catalog = self.catalog
            assert catalog is not None
            try:
                result = await asyncio.to_thread(
                    app.quire.catalogs.get,
                    self.feed.url if self.feed else catalog.id,
                    entry,
                    app.store.secrets,
                    progress,
                )
            except QuireError as error:
                self.downloads[entry.id] = "failed"
                app.notify(app.t.error(error))
                app.render()
                return
            if result.error is not None or result.book is None:
                self.downloads[entry.id] = "failed"
                app.notify(app.t.error(result.error) if result.error else entry.title)
            else:
                self.downloads[entry.id] = "done"
                key = "catalogs.imported" if result.created else "catalogs.already"
                app.notify(app.t(key, title=result.book.title))
            app.render()

        app.workers.later(run)


def catalog_settings(catalogs: CatalogsController, t: Translator, form: SettingsForm) -> list[ft.Control]:
    """Settings › Catalogs: each catalog (browse, remove) and the form to add one. Adding or removing one draws
    Settings again in place (drawn anew, it jumped back to its top, the result out of sight)."""
    app = catalogs.app

    def remove(number: int) -> None:
        catalogs.remove(number)
        app.render()

    async def add(e: ft.Event[Any]) -> None:
        form.say("catalogs", t("sync.checking"))
        app.render()
        said = await catalogs.add(form.text("catalogs.url"), form.text("catalogs.user"), form.text("catalogs.password"))
        form.forget("catalogs.password")
        form.say("catalogs", said)
        app.message = said
        if app.screen == Screen.SETTINGS:  # still there (an open book is not drawn again for it)
            app.render()

    rows: list[ft.Control] = [ft.Text(t("catalogs.about"), size=12, color=ft.Colors.ON_SURFACE_VARIANT)]
    for info in app.quire.catalogs.all():
        rows.append(
            ft.Row(
                [
                    ft.Icon(ft.Icons.LOCAL_LIBRARY_OUTLINED),
                    ft.Column(
                        [ft.Text(info.title, weight=ft.FontWeight.W_600), selectable(info.url, size=12)],
                        spacing=0,
                        expand=True,
                    ),
                    ft.TextButton(t("catalogs.browse"), on_click=lambda e, info=info: catalogs.browse(info)),
                    IconButton(
                        ft.Icons.DELETE_OUTLINE,
                        tooltip=t("catalogs.remove", title=info.title),
                        on_click=lambda e, number=info.id: remove(number),
                    ),
                ]
            )
        )
    return [
        *rows,
        form.field("catalogs.url", label=t("catalogs.url"), hint_text="http://localhost:8080/opds", width=420),
        form.field("catalogs.user", label=t("catalogs.user"), width=420),
        form.field(
            "catalogs.password", label=t("catalogs.password"), password=True, can_reveal_password=True, width=420
        ),
        ft.FilledButton(t("catalogs.add"), icon=ft.Icons.ADD_LINK, on_click=add),
        form.line("catalogs"),
    ]


def _entry_row(entry: OpdsEntry, catalogs: CatalogsController, t: Translator) -> ft.Control:
    if entry.feed is not None and not entry.acquisitions:  # a way into another feed
        return ft.ListTile(
            leading=ft.Icon(ft.Icons.FOLDER_OUTLINED),
            title=ft.Text(entry.title),
            subtitle=ft.Text(entry.summary, max_lines=1, size=12) if entry.summary else None,
            trailing=ft.Icon(ft.Icons.CHEVRON_RIGHT),
            on_click=lambda e: catalogs.open(entry.feed or ""),
        )
    # The picture goes into the same frame once read: an Image made visible later took the row's texts out of the
    # semantics tree (seen in Chromium: a screen reader, and the browser tests, lost them).
    picture = catalogs.pictures.get(entry.id)
    frame = ft.Container(
        ft.Image(src=picture, fit=ft.BoxFit.CONTAIN, semantics_label=entry.title)
        if picture
        else ft.Icon(ft.Icons.MENU_BOOK_OUTLINED, color=ft.Colors.OUTLINE),
        width=THUMB,
        height=THUMB * 1.4,
        alignment=ft.Alignment.CENTER,
        data="cover" if picture else None,
    )
    state = catalogs.downloads.get(entry.id)
    if state == "done":
        action: ft.Control = ft.Icon(ft.Icons.CHECK_CIRCLE_OUTLINE, tooltip=t("catalogs.in_library"))
    elif state is not None and state != "failed":
        action = ft.Text(state, size=12)
    elif entry.best() is None:
        action = ft.Text(t("catalogs.no_format"), size=12, color=ft.Colors.ON_SURFACE_VARIANT)
    else:
        action = IconButton(
            ft.Icons.DOWNLOAD,
            tooltip=t("catalogs.download", title=entry.title),
            on_click=lambda e: catalogs.download(entry),
        )
    by = ", ".join(entry.authors)
    return ft.Row(
        [
            frame,
            ft.Column(
                [
                    ft.Text(entry.title, weight=ft.FontWeight.W_600, max_lines=2),
                    ft.Text(f"{by} · {', '.join(f.upper() for f in entry.formats)}".strip(" ·"), size=12),
                ],
                spacing=2,
                expand=True,
            ),
            action,
        ]
    )


def build_catalog_screen(catalogs: CatalogsController, t: Translator) -> ft.Control:
    """The catalog being browsed: its feed's entries, search, and the pages before and after (drawn again whole as
    covers and download lines arrive; nothing changes in place)."""
    feed = catalogs.feed
    title = catalogs.catalog.title if catalogs.catalog is not None else ""

    def typing(e: ft.Event[Any]) -> None:
        catalogs.query = e.control.value or ""

    query = text_field(
        hint_text=t("catalogs.search"), prefix_icon=ft.Icons.SEARCH, dense=True, expand=True, value=catalogs.query,
        on_change=typing, on_submit=lambda e: catalogs.search(e.control.value or ""),
    )  # fmt: skip
    body: list[ft.Control] = []
    if catalogs.loading:
        body.append(ft.ProgressRing(width=24, height=24))
    if feed is not None:
        if feed.title and feed.title != title:
            body.append(ft.Text(feed.title, size=16, weight=ft.FontWeight.W_600))
        if not feed.entries:
            body.append(ft.Text(t("catalogs.empty"), color=ft.Colors.ON_SURFACE_VARIANT))
        body += [_entry_row(entry, catalogs, t) for entry in feed.entries]
        if feed.elsewhere:
            body.append(ft.Text(t("catalogs.elsewhere", n=feed.elsewhere), size=12, color=ft.Colors.ON_SURFACE_VARIANT))
        pages = [
            ft.TextButton(t("catalogs.previous"), icon=ft.Icons.CHEVRON_LEFT,
                          on_click=lambda e: catalogs.open(feed.previous or "", replace=True))
            if feed.previous else None,
            ft.TextButton(t("catalogs.next"), icon=ft.Icons.CHEVRON_RIGHT,
                          on_click=lambda e: catalogs.open(feed.next or "", replace=True))
            if feed.next else None,
        ]  # fmt: skip
        if any(pages):
            body.append(ft.Row([p for p in pages if p is not None], alignment=ft.MainAxisAlignment.CENTER))
    return ft.Column(
        [
            ft.Row(
                [
                    IconButton(ft.Icons.ARROW_BACK, tooltip=t("common.back"), on_click=lambda e: catalogs.back()),
                    ft.Text(title, size=20, weight=ft.FontWeight.BOLD, expand=True, max_lines=1),
                ]
            ),
            ft.Row([query]),
            ft.ListView(body, spacing=8, expand=True),
        ],
        expand=True,
    )
