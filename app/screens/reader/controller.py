"""The reader screen's controller: the open book, its panels, and what the reader's taps and keys do to them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

import flet as ft

from app.drawn import Drawn, keyed
from app.keys import on_screen
from app.screens import Screen
from app.screens.reader import intents as intent
from app.screens.reader.companion import CompanionController
from app.screens.reader.intents import ReaderIntent
from app.screens.reader.lookup import LookupController
from app.screens.reader.marking import MarkingController
from app.screens.reader.model import ReaderViewModel
from app.screens.reader.navigation import GoTo, GoToPercent, NextPage, PreviousPage, Typed, Where
from app.screens.reader.panels import BY_NAME, appearance, chat, notes, search, toc, xray
from app.screens.reader.panels.shape import Body
from app.screens.reader.read_aloud import AloudController
from app.screens.reader.view import (
    WIDE,
    ReaderActions,
    build_reader_view,
    page_area,
    page_box,
    page_shown,
    percent_label,
    reading_column,
)
from core import BookNotFoundError, Highlight, QuireError

if TYPE_CHECKING:  # the chat model loads LangChain: imported in the background after the first screen
    from app.screens.reader.port import ReaderPort
    from core import Locator

NEXT_KEYS = {"Arrow Right", "Arrow Down", "Page Down", " "}
PREVIOUS_KEYS = {"Arrow Left", "Arrow Up", "Page Up"}


BODIES: dict[str, Body] = {
    "toc": toc.body,
    "search": search.body,
    "notes": notes.body,
    "xray": xray.body,
    "appearance": appearance.body,
    "chat": chat.body,
}  # every panel of BY_NAME (tests/test_app_pages.py opens each)


class ReaderController:
    """The reader screen. ``model`` is the open book (None when none is); ``panel`` the open panel's name."""

    def __init__(self, app: ReaderPort) -> None:
        self.app = app
        self.model: ReaderViewModel | None = None
        self.panel: str | None = None  # see app.screens.reader.panels
        self.book_side: Drawn | None = None  # the book's side of the screen, drawn again after a move (see redraw)
        self.drawn_for: tuple[object, ...] = ()  # what the screen around it was drawn for (see _frame)
        self.kept: dict[str, object] = {}  # what a panel keeps between drawings (the contents: see panels.toc)
        self.marking = MarkingController(app, self)  # the selection bar, highlights and the bookmark
        self.companion = CompanionController(app, self)  # the story so far, and X-Ray's lines by the AI
        self.lookup = LookupController(app, self)  # a selected word's definition card
        self.aloud = AloudController(app, self)  # reading the book aloud

    @property
    def sheet(self) -> bool:
        """Panels cover the text (a phone, a narrow window): a choice made in one closes it."""
        return self.app.width < WIDE

    # -- opening and drawing ------------------------------------------------------------------------
    def open(self, book_id: int) -> None:
        self.model = ReaderViewModel(self.app.quire, book_id)
        self.model.open()
        self.model.set_page_view(self.app.settings.pdf_page_view)
        self.panel = "toc" if self.app.width >= 1200 else None

    def close(self) -> None:
        self.aloud.stop()
        if self.model is not None:
            self.model.place.save()
        self.model, self.panel = None, None

    def prepare(self) -> None:
        """Read what the screen is about to show (the page's box at this window size, marks, places, X-Ray's names):
        drawing reads nothing from the library."""
        model, app = self.model, self.app
        assert model is not None
        vertical = model.vertical(app.settings.writing)
        paginated = app.settings.layout == "paginated" or vertical  # vertical text is always in pages
        box = page_box(app.settings, app.width, app.height, self.panel, model.return_to is not None)
        box = dataclasses.replace(box, vertical=vertical)
        model.set_box(box if paginated else None)
        # A panel over the page, or beside it for anything but the contents, is time not spent reading the page.
        model.place.away("panel", self.panel is not None and (self.sheet or self.panel != "toc"))
        model.scroll_box = None if paginated else box
        model.name_links = app.settings.name_links
        if model.name_links and model.xray_waiting():
            self.companion.scan_xray()  # a Chinese book's names: found in the background, underlined once found
        model.refresh()  # everything read now: drawing below reads nothing from the library
        if self.panel == "xray":
            if model.xray_waiting():
                self.companion.scan_xray()  # in the background: the panel says it is finding the names
            else:
                model.read_xray()
        else:
            model.xray_focus = ""  # the next X-Ray opened is the whole list again

    def view(self) -> ft.Control:
        """The reader screen for the open book at this window size: the book's side a drawn part (``book_side``),
        the open panel beside it or over it."""
        model, app = self.model, self.app
        assert model is not None
        self.prepare()
        self.book_side = Drawn(self._draw_book_side)
        self.drawn_for = self._frame()
        actions = self.actions()
        return build_reader_view(
            app.t,
            width=app.width,
            actions=actions,
            reading=self.book_side.control,
            panel=self.panel,
            panel_content=self.panel_body(self.panel, actions) if self.panel else None,
        )

    def _draw_book_side(self) -> ft.Control:
        model, app = self.model, self.app
        assert model is not None
        page = keyed(page_shown(model, app.settings, app.t, app.dark, app.width, self.panel), self._draw_page)
        return reading_column(
            model, app.t, width=app.width, actions=self.actions(), page=page, aloud_bar=self.aloud.bar()
        )

    def _draw_page(self) -> ft.Control:
        model, app = self.model, self.app
        assert model is not None
        return page_area(model, app.settings, self.actions(), app.t, app.dark, app.width, self.panel)

    def _frame(self) -> tuple[object, ...]:
        """What the screen around the book's side is drawn from: while it is the same, a move draws that side and
        the contents again (Flet sends what changed), and else the whole screen. Panels other than the contents
        and the chat show what depends on the place (X-Ray's fence, search hits, notes): the whole screen."""
        model, app = self.model, self.app
        panel = self.panel if self.panel in (None, "toc", "chat") else object()  # never the same: drawn whole
        return (model, panel, app.width, app.height, app.dark, app.t.language, dataclasses.astuple(app.settings))

    def panel_body(self, name: str, actions: ReaderActions) -> ft.Control:
        """The body of a panel (``app.screens.reader.panels``)."""
        model, app = self.model, self.app
        assert model is not None
        if name in ("search", "chat", "xray") and model.pictures:  # a comic, a scan: pictures only
            return ft.Text(app.t(f"reader.no_text.{name}"), color=ft.Colors.ON_SURFACE_VARIANT)
        if name not in BODIES:
            raise ValueError(f"no panel named {name!r}")
        return BODIES[name](model, actions, self)

    def actions(self) -> ReaderActions:
        """The view's one entry point (guarded: a book another window removed closes with a notice), the scroll
        list's query for more text, and what is on offer here."""
        return self.app.guard_book(
            ReaderActions(
                post=self.handle,
                ai=self.app.settings.provider_config() is not None,
                share=self.app.on_phone,
            )
        )

    def handle(self, wanted: ReaderIntent) -> None:
        """Do what the view asked for."""
        marking, lookup, companion = self.marking, self.lookup, self.companion
        match wanted:
            case NextPage() | PreviousPage() | GoTo() | GoToPercent() | Typed():
                self.navigate(wanted)
            case intent.Back():
                self.app.close_book()
            case intent.OpenPanel(name):
                self.open_panel(name)
            case intent.Scrolled(fraction, pixels):
                self.scrolled(fraction, pixels)
            case intent.Select(ordinal, start, end, run):
                marking.select(ordinal, start, end, run)
            case intent.Highlight(color):
                marking.highlight(color)
            case intent.ToggleBookmark():
                marking.toggle_bookmark()
            case intent.AskAbout():
                marking.ask_about_selection()
            case intent.WhoIs():
                marking.who_is()
            case intent.Define():
                lookup.define()
            case intent.Translate():
                lookup.translate()
            case intent.Recap():
                companion.recap()
            case intent.ReadAloud():
                self.read_aloud()
            case intent.Describe():
                companion.describe()
            case intent.TellMore(name):
                companion.tell_more(name)
            case intent.CorrectXray():
                companion.correct(wanted)
            case intent.ForgetCorrection(name):
                companion.forget(name)
            case intent.OpenName(name):
                self.open_name(name)
            case intent.Search(query):
                self.search(query)
            case intent.OpenHit(index):
                self.open_hit(index)
            case intent.MoreHits():
                self.more_hits()
            case intent.LoadMore(forward):
                self.load_more(forward)
            case intent.Grow():
                self.change(lambda model: model.extend())
            case intent.GoBack():
                self.go_back()
            case intent.ReadUpToHere():
                self.read_up_to_here()
            case intent.ReadToHere():
                self.read_to_here()
            case intent.Copy(text):
                marking.copy(text)
            case intent.Share(text):
                marking.share(text)
            case intent.RecolourTapped(color):
                marking.recolour_tapped(color)
            case intent.NoteTapped():
                marking.note_tapped()
            case intent.NoteSelection():
                marking.note_selection()
            case intent.RemoveTapped():
                marking.remove_tapped()
            case intent.PageView(on):
                self.set_page_view(on)
            case _:
                assert_never(wanted)

    def redraw(self) -> None:
        """Draw what changed: after a move, a selection or a scroll, the book's side and the contents (each drawn
        part diffed by Flet into what the client has; the page itself only when what it shows changed); the whole
        screen when what is around them changed."""
        side = self.book_side
        if self.model is None or side is None or not on_screen(side.control) or self._frame() != self.drawn_for:
            self.app.render()
            return
        try:
            self.prepare()
        except (BookNotFoundError, IndexError):  # removed by another window: the shell says so (see render)
            self.app.render()
            return
        side.redraw()
        contents = self.kept.get("toc") if self.panel == "toc" else None
        if isinstance(contents, toc.Contents) and on_screen(contents.part.control):
            contents.part.redraw()

    def read_aloud(self) -> None:
        """Start reading aloud from the page (or the selection), or stop when it is reading."""
        if self.aloud.active:
            self.aloud.stop()
        else:
            self.aloud.start()
        self.redraw()

    def change(self, step: Callable[[ReaderViewModel], object]) -> None:
        """Apply ``step`` to the open book and redraw (nothing happens when no book is open)."""
        if self.model is not None:
            step(self.model)
            self.redraw()

    # -- panels and keys ----------------------------------------------------------------------------
    def open_name(self, name: str) -> None:
        """An underlined name tapped in the page: its X-Ray card, first and open (the card "Who is this?" opens)."""
        if self.model is None:
            return
        self.model.xray_focus = name
        self.panel = "xray"
        self.redraw()

    def open_panel(self, name: str | None) -> None:
        self.panel = None if name == self.panel else name
        self.redraw()

    def on_key(self, key: str, command: bool) -> bool:
        """A key the router gave the reader (no dialog is open, no field has the focus: ``app.keys``); True when it
        was used (Ctrl/Cmd+F searches, arrows and Page keys turn, T translates the paragraph with a provider set
        up)."""
        if key.upper() == "F" and command:
            self.panel = "search"
            self.redraw()
            return True
        if self.panel in BY_NAME and BY_NAME[self.panel].takes_keys:
            return False  # a panel with fields and sliders: its keys do not turn pages even when nothing is focused
        if key.upper() == "T" and not command and self.app.settings.provider_config() is not None:
            self.lookup.translate()  # the paragraph at the top of the page (or the selection's), under it
            return True
        if key in NEXT_KEYS or key in PREVIOUS_KEYS:
            following = key in NEXT_KEYS
            if key in ("Arrow Left", "Arrow Right") and self.model is not None and self.model.box is not None:
                following = following != self.model.box.vertical  # vertical pages go right to left
            self.navigate(NextPage() if following else PreviousPage())
            return True
        return False

    # -- moving -------------------------------------------------------------------------------------
    def navigate(self, where: Where) -> None:
        """Turn a page, or jump: to a locator, a share of the book, or what the reader typed (a mistake is said)."""
        model, app = self.model, self.app
        if model is None:
            return
        model.previously = False  # reading on: the offer of the story so far goes
        model.notes.selection = model.notes.tapped = None  # what was selected or tapped is not on the next page
        match where:
            case NextPage():
                model.next_page()
                app.device.page_turned(app.settings.haptic_page_turns)
            case PreviousPage():
                model.previous_page()
                app.device.page_turned(app.settings.haptic_page_turns)
            case _:
                try:
                    if isinstance(where, GoTo):
                        model.go_to(where.locator)
                    elif isinstance(where, GoToPercent):
                        model.go_to_place(f"{where.percent:g}%")
                    else:
                        model.go_to_place(where.text)
                except QuireError as error:
                    reason = app.t.error_named(type(error).__name__, str(error), sentence_in_english=False)
                    app.notify(app.t("reader.goto.error", reason=reason))
                    return
                contents = self.kept.get("toc")
                if app.field_focused() or self.sheet:
                    # the whole screen: a new "Go to" field lets the keyboard go (the arrows turn pages again), and
                    # a sheet over the page closes on a choice
                    self.kept.pop("toc", None)
                    if self.sheet:
                        self.panel = None
                    self.app.render()
                    return
                if isinstance(contents, toc.Contents):  # a row of the list: it stays where the reader scrolled it
                    contents.from_list = isinstance(where, GoTo) and where.from_contents
        self.redraw()

    def scrolled(self, fraction: float, pixels: float | None = None) -> None:
        if self.model is None:
            return
        model = self.model
        before = (percent_label(model.place.percents(), self.app.t), model.current)
        model.scrolled(fraction, pixels)
        if (percent_label(model.place.percents(), self.app.t), model.current) != before:
            self.redraw()  # the status lines: the page part is not drawn again (what it shows is the same)

    def go_back(self) -> None:
        """Back to where the reader was before a jump (a citation, a search hit, the contents, "go to")."""
        if self.model is not None and self.model.go_back() is not None:
            self.redraw()

    def read_up_to_here(self) -> None:
        """ "I haven't read past here": the furthest place read (the spoiler bound, "% read") moves back."""
        if self.model is not None:
            self.model.place.read_up_to_here()
            self.redraw()
            self.app.notify(self.app.t("reader.read_up_to_here.done", p=f"{self.model.place.percent:.0f}"))

    def read_to_here(self) -> None:
        """ "I've read up to here": the furthest place read moves on to the current one (after a jump ahead)."""
        if self.model is not None:
            self.model.place.read_to_here()
            self.redraw()
            self.app.notify(self.app.t("reader.read_to_here.done", p=f"{self.model.place.percent:.0f}"))

    def load_more(self, forward: bool) -> None:
        self.change(lambda model: model.load_more(forward))

    def open_highlight(self, highlight: Highlight) -> None:
        if self.model is None or self.model.book.id != highlight.book_id:
            self.open(highlight.book_id)
        assert self.model is not None
        self.model.go_to(highlight.start.segment_locator)
        if self.sheet:
            self.panel = None
        self.app.go(Screen.READER)

    def open_passage(self, book_id: int, first: Locator, last: Locator) -> bool:
        """Open a book at a passage, the words from ``first`` to ``last`` marked: a citation in the open book's chat
        (the chat stays beside the text on a wide screen), or a passage of another book (the library's search, an
        answer from every book), opened first. Whether another book was opened."""
        opening = bool(book_id) and (self.model is None or self.model.book.id != book_id)  # 0: a bookless citation
        if opening:
            self.open(book_id)
        if self.model is None:
            return False
        self.model.open_citation(first, last)
        if self.sheet:
            self.panel = None  # on a phone the chat sheet gives way to the page
        if self.app.screen == Screen.READER:
            self.redraw()
        else:
            self.app.go(Screen.READER)
        return opening

    def set_page_view(self, on: bool) -> None:
        """A text PDF shown as printed pages (``on``) or as reflowed text; the choice is kept for PDFs opened later."""
        if self.model is not None:
            self.model.set_page_view(on)
            self.app.settings.pdf_page_view = on
            self.app.store.save(self.app.settings)
            self.redraw()

    # -- search -------------------------------------------------------------------------------------
    def search(self, query: str) -> None:
        self.change(lambda model: model.finder.run(query))

    def more_hits(self) -> None:
        self.change(lambda model: model.finder.show_more())

    def open_hit(self, index: int) -> None:
        if self.model is None or index >= len(self.model.finder.hits):
            return
        self.model.open_hit(self.model.finder.hits[index], self.model.finder.query)
        if self.sheet:
            self.panel = None
        self.redraw()
