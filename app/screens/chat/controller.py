"""The chat panel's controller: holds the open book's chat view-model and routes the panel's actions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar, assert_never

import flet as ft

from app.a11y import IconButton
from app.dialogs import rename_dialog
from app.i18n import Translator
from app.jobs import IndexLine
from app.keys import text_field
from app.screens.chat import intents as intent
from app.screens.chat.intents import ChatIntent, Post
from app.screens.chat.view import ChatPanelView, ChatStatus, build_chat_panel, update_chat_panel
from app.settings import Settings
from app.workers import Workers
from core import Quire
from platform_adapters.base import SecretStore

if TYPE_CHECKING:  # the chat model loads LangChain, so it is imported on first use
    from app.screens.chat.model import ChatViewModel
    from app.screens.reader.model import ReaderViewModel
    from core import Citation

A = TypeVar("A")


class ChatIndex(Protocol):
    """The index jobs as the chat panel uses them (the app's shell is one)."""

    def index_line(self, book_id: int) -> IndexLine: ...
    def start_index(self, book_id: int | None = None) -> None: ...
    def cancel_index(self, book_id: int | None = None) -> None: ...


class Dialogs(Protocol):
    """Showing a dialog and closing it (the page is one)."""

    def show_dialog(self, dialog: ft.DialogControl) -> None: ...
    def pop_dialog(self) -> ft.DialogControl | None: ...


@dataclass(frozen=True)
class ChatContext:
    """All the chat panel may use of the app around it: the library, the reader's settings, and a few verbs."""

    quire: Quire
    secrets: SecretStore
    settings: Callable[[], Settings]
    t: Callable[[], Translator]
    save_settings: Callable[[], object]
    index: ChatIndex  # the open book's index: its line, and starting or stopping it
    open_citation: Callable[[Citation], None]
    open_settings: Callable[[], object]
    notify: Callable[[str], object]
    redraw: Callable[[], object]  # the chat panel only (the text beside it stays)
    workers: Workers  # background work: answers stream in its threads, redraws go onto the UI loop through it
    dialogs: Dialogs
    guard: Callable[[A], A]  # actions that close the book with a notice if another window removed it


@dataclass(frozen=True)
class _Poster:
    """The panel's one entry point, as a dataclass of one action so the app's guard can wrap it."""

    post: Post


class ChatController:
    """One per window. ``slot`` is redrawn on its own while an answer streams; ``draft`` keeps the typing."""

    def __init__(self, app: ChatContext) -> None:
        self.app = app
        self.model: ChatViewModel | None = None
        self.slot = ft.Container(expand=True)
        self.draft = text_field(
            label=app.t()("chat.ask"), expand=True, dense=True, shift_enter=True, min_lines=1, max_lines=4
        )
        self.send = IconButton(ft.Icons.SEND)  # send, or stop while an answer streams
        self.view: ChatPanelView | None = None  # the panel drawn in ``slot``

    def for_book(self, reader: ReaderViewModel) -> ChatViewModel:
        """The chat of the open book (the latest thread when it is first shown)."""
        if self.model is None or self.model.book_id != reader.book.id:
            self.model = self.conversation(reader.book.id)
        return self.model

    def conversation(self, book_id: int | None) -> ChatViewModel:
        """A chat of a book (None: of the whole library, "Ask your library"), with the app's provider, keys and
        spoiler protection as they are when each question is asked."""
        from app.screens.chat.model import ChatViewModel  # LangChain loads on first use, not at start

        app = self.app
        return ChatViewModel(
            app.quire,
            book_id,
            provider=lambda: app.settings().provider_config(),
            secrets=app.secrets,
            spoilers=lambda: not app.settings().spoiler_protection,
            spawn=app.workers.thread,
        )

    def status(self, reader: ReaderViewModel) -> ChatStatus:
        app = self.app
        index = app.index.index_line(reader.book.id)
        return ChatStatus(
            spoiler_protection=app.settings().spoiler_protection,
            index_text=index.text,
            indexing=index.running,
            indexed=index.done,
            chapter=reader.chapter_title,
            selection=reader.notes.selection.text if reader.notes.selection else None,
            in_part=reader.in_part,
        )

    def fill(self, reader: ReaderViewModel) -> None:
        """Build the panel into its slot (the reader's screen is being built)."""
        self.view = build_chat_panel(*self._panel_args(reader))
        self.slot.content = self.view.root

    def refresh(self, reader: ReaderViewModel) -> None:
        """Redraw the panel in place: its header and messages; the question box keeps its row and its focus."""
        view, model = self.view, self.model
        if view is None or self.slot.content is not view.root or model is None or model.book_id != reader.book.id:
            self.fill(reader)
        else:
            update_chat_panel(view, *self._panel_args(reader))

    def _panel_args(
        self, reader: ReaderViewModel
    ) -> tuple[ChatViewModel, ChatStatus, Post, Translator, ft.TextField, ft.IconButton]:
        return self.for_book(reader), self.status(reader), self.poster(reader), self.app.t(), self.draft, self.send

    def changed(self) -> None:
        """Called from the answer's worker thread: redraw on the app's event loop."""

        async def redraw() -> None:
            self.app.redraw()

        self.app.workers.later(redraw)

    def ask(self, reader: ReaderViewModel, question: str, recap: bool = False) -> None:
        if not question.strip():
            return
        selection = reader.notes.selection.text if reader.notes.selection else ""  # the agent may read what is selected
        asked = self.for_book(reader).ask(question, self.changed, selection, recap)
        if asked is not None and question == self.draft.value:  # sent from the box: empty it; a suggestion leaves it
            self.draft.value = ""  # refused (an answer still streams): the question stays in the box, to send again
        self.app.redraw()

    def poster(self, reader: ReaderViewModel) -> Post:
        """Where the panel posts its intents: ``handle`` for this book, closing it with a notice if another window
        removed it meanwhile."""
        return self.app.guard(_Poster(lambda wanted: self.handle(reader, wanted))).post

    def handle(self, reader: ReaderViewModel, wanted: ChatIntent) -> None:
        """Do what the panel asked for."""
        app, chat = self.app, self.for_book(reader)
        match wanted:
            case intent.Ask(question):
                self.ask(reader, question)
            case intent.Recap():
                self.ask(reader, app.t()("chat.suggest.recap"), recap=True)
            case intent.Stop():
                chat.stop()
            case intent.NewThread():
                chat.new_thread()
                self.draft.take_focus()  # the reader's next words go into the box, not to the button clicked
                app.redraw()
            case intent.OpenThread(thread_id):
                chat.open_thread(thread_id)
                self.draft.take_focus()
                app.redraw()
            case intent.RenameThread():
                self.rename(reader)
            case intent.DeleteThread():
                chat.delete_thread()
                app.redraw()
            case intent.Regenerate():
                chat.regenerate(self.changed)
            case intent.ReadToHere():
                reader.place.read_to_here()  # pages flipped through quickly did not count: the reader says they do
                app.notify(app.t()("reader.read_to_here.done", p=f"{reader.place.percent:.0f}"))
                chat.regenerate(self.changed)
            case intent.Copy(text):
                app.workers.later(self.copy, text)
            case intent.OpenCitation(citation):
                app.open_citation(citation)
            case intent.SetSpoilers(protected):
                self.set_spoiler_protection(protected)
            case intent.StartIndex():
                app.index.start_index()
            case intent.CancelIndex():
                app.index.cancel_index()
            case intent.OpenSettings():
                app.open_settings()
            case _:
                assert_never(wanted)

    def rename(self, reader: ReaderViewModel) -> None:
        app = self.app
        chat = self.for_book(reader)

        def save(title: str) -> None:
            chat.rename(title)
            app.dialogs.pop_dialog()
            app.redraw()

        app.dialogs.show_dialog(rename_dialog(app.t(), chat.title, save, app.dialogs.pop_dialog))

    def set_spoiler_protection(self, on: bool) -> None:
        self.app.settings().spoiler_protection = on
        self.app.save_settings()
        self.app.redraw()

    async def copy(self, text: str) -> None:
        await ft.Clipboard().set(text)
        self.app.notify(self.app.t()("chat.copied"))
