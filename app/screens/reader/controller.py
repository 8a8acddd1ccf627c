"""The reader screen's controller: the open book, its panels, and what the reader's taps and keys do to them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

import flet as ft

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
    chapter_label,
    page_area,
    page_box,
    percent_label,
    status_labels,
)
from core import Highlight, QuireError, SegmentRecord

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
        self.selection_slot = ft.Container()  # the selection or highlight bar, updated on its own
        self.percent_text = ft.Text()  # "n% read", updated on its own while scrolling
        self.chapter_text = ft.Text()  # the chapter's name under the title, likewise
        self.page_slot = ft.Container()  # the page: a turn that changes nothing around it draws only this
        self.kept: dict[str, object] = {}  # what a panel keeps between drawings (the contents: while in a chapter)
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

    def view(self) -> ft.Control:
        """The reader screen for the open book at this window size."""
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
        self.selection_slot = ft.Container()
        self.percent_text = ft.Text()
        self.chapter_text = ft.Text()
        self.page_slot = ft.Container()
        actions = self.actions()
        return build_reader_view(
            model,
            app.t,
            settings=app.settings,
            width=app.width,
            actions=actions,
            panel=self.panel,
            panel_content=self.panel_body(self.panel, actions) if self.panel else None,
            selection_slot=self.selection_slot,
            percent_text=self.percent_text,
            chapter_text=self.chapter_text,
            page_slot=self.page_slot,
            dark=app.dark,
            aloud_bar=self.aloud.bar(),
        )

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
                extend=self.extend,
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
        self.app.render()

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
        around = self._around(chapter=not (isinstance(where, GoTo) and where.from_contents))
        model.previously = False  # reading on: the offer of the story so far goes
        model.notes.selection = model.notes.tapped = None  # what was selected or tapped is not on the next page
        match where:
            case NextPage():
                model.next_page()
                app.device.page_turned(app.settings.haptic_page_turns)
                if self._turned(around):
                    return
            case PreviousPage():
                model.previous_page()
                app.device.page_turned(app.settings.haptic_page_turns)
                if self._turned(around):
                    return
            case _:
                kept = self.kept.pop("toc", None)  # the contents drawn anew, scrolled to the chapter; their field
                try:  # lets go
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
                # A row of the contents beside the page, with no field holding the keyboard (a new "Go to" field lets
                # it go): the same list, its marks moved, when only the page need be drawn again.
                if (
                    isinstance(where, GoTo)
                    and where.from_contents
                    and not self.sheet
                    and not app.field_focused()
                    and isinstance(kept, toc.TocParts)
                ):
                    moved = toc.follow(kept, model, app.t)
                    if moved is not None:
                        self.kept["toc"] = kept
                        if self._turned(around, moved):
                            return
                        self.kept.pop("toc")  # the whole screen: the contents drawn anew, scrolled to the chapter
                if self.sheet:
                    self.panel = None
        self.redraw()

    def _around(self, *, chapter: bool = True) -> tuple[object, ...] | None:
        """What the screen shows around the page that a turn may change (None: a turn draws the whole screen).

        Only pages (not the scrolling text), with no panel or one that does not follow the page (the contents
        follow the chapter, which is in here unless ``chapter`` is False: a jump from the contents moves their
        marks itself), with nothing selected or reading aloud, on the screen drawn now.
        """
        model = self.model
        if (
            model is None
            or model.current is None
            or model.box is None
            or self.panel not in (None, "toc", "chat")
            or model.notes.selection is not None
            or model.notes.tapped is not None
            or self.aloud.active
            or not on_screen(self.page_slot)
        ):
            return None
        at, read = model.shown.percents
        return (
            model.book.id,
            model.current.locator.section if chapter else None,
            model.shown.bookmark is not None,
            model.return_to is not None,
            model.previously,
            at + 0.5 < read,  # the contents offer "I haven't read past here"
            at > read + 0.5,  # or "I've read up to here"
            model.page_view,
        )

    def _turned(self, around: tuple[object, ...] | None, marked: list[ft.Control] | None = None) -> bool:
        """Draw only the page and the two status lines when the turn changed nothing else; False when the whole
        screen must be drawn. A page turn drew the whole screen: with the contents open, Moby-Dick's 6,400
        controls went to the client again at every turn (60% of the turn's time on the server).

        ``marked``: a jump from the contents beside the page, whose rows these are (their marks moved): it may
        change the chapter too (``around`` was taken without it), and these rows are sent with the page (the whole
        screen was 31 KB a jump in Moby-Dick, the list 23 KB of it)."""
        model, app = self.model, self.app
        if around is None or model is None:
            return False
        model.refresh()
        if self._around(chapter=marked is None) != around:
            return False
        self.page_slot.content = page_area(model, app.settings, self.actions(), app.t, app.dark, app.width, self.panel)
        self.percent_text.value, self.chapter_text.value = status_labels(model, app.t)
        # only these are compared and sent
        app.patch(self.page_slot, self.percent_text, self.chapter_text, *(marked or []))
        return True

    def scrolled(self, fraction: float, pixels: float | None = None) -> None:
        if self.model is None:
            return
        self.model.scrolled(fraction, pixels)
        model = self.model
        shown = percent_label(model.place.percents(), self.app.t)
        left = model.quire.stats.minutes_left(model.book.id, model.current.ordinal) if model.current else None
        chapter = chapter_label(model.chapter_title, left, self.app.t)
        if self.percent_text.value != shown or self.chapter_text.value != chapter:
            self.percent_text.value, self.chapter_text.value = shown, chapter
            self.app.update()  # a diff: only the changed texts go to the client

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

    def extend(self) -> list[SegmentRecord]:
        """Scroll mode: the segments added below the window (the view appends them itself: no redraw)."""
        return self.model.extend() if self.model is not None else []

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
