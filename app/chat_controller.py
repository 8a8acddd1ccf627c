"""The chat panel's controller: holds the open book's chat view-model and routes the panel's actions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import flet as ft

from app.chat_page import ChatActions, ChatPanelView, ChatStatus, build_chat_panel, update_chat_panel
from app.dialogs import rename_dialog
from app.i18n import Translator
from app.jobs import IndexLine
from app.keys import text_field
from app.settings import Settings
from app.workers import Workers
from core import Quire
from platform_adapters.base import SecretStore

if TYPE_CHECKING:  # the chat model loads LangChain, so it is imported on first use
    from app.chat_model import ChatViewModel
    from app.reader_model import ReaderViewModel
    from core import Citation

A = TypeVar("A")


@dataclass(frozen=True)
class ChatContext:
    """All the chat panel may use of the app around it: the library, the reader's settings, and a few verbs."""

    quire: Quire
    secrets: SecretStore
    settings: Callable[[], Settings]
    t: Callable[[], Translator]
    save_settings: Callable[[], object]
    index_line: Callable[[int], IndexLine]
    start_index: Callable[[], object]
    cancel_index: Callable[[], object]
    open_citation: Callable[[Citation], None]
    open_settings: Callable[[], object]
    notify: Callable[[str], object]
    redraw: Callable[[], object]  # the chat panel only (the text beside it stays)
    workers: Workers  # background work: answers stream in its threads, redraws go onto the UI loop through it
    show_dialog: Callable[[ft.DialogControl], object]
    close_dialog: Callable[[], object]
    guard: Callable[[A], A]  # actions that close the book with a notice if another window removed it


class ChatController:
    """One per window. ``slot`` is redrawn on its own while an answer streams; ``draft`` keeps the typing."""

    def __init__(self, app: ChatContext) -> None:
        self.app = app
        self.model: ChatViewModel | None = None
        self.slot = ft.Container(expand=True)
        self.draft = text_field(
            label=app.t()("chat.ask"), expand=True, dense=True, shift_enter=True, min_lines=1, max_lines=4
        )
        self.send = ft.IconButton(ft.Icons.SEND)  # send, or stop while an answer streams
        self.view: ChatPanelView | None = None  # the panel drawn in ``slot``

    def for_book(self, reader: ReaderViewModel) -> ChatViewModel:
        """The chat of the open book (the latest thread when it is first shown)."""
        from app.chat_model import ChatViewModel

        if self.model is None or self.model.book_id != reader.book.id:
            app = self.app
            self.model = ChatViewModel(
                app.quire,
                reader.book.id,
                provider=app.settings().provider_config,
                secrets=app.secrets,
                spoilers=lambda: not app.settings().spoiler_protection,
                spawn=app.workers.thread,
            )
        return self.model

    def status(self, reader: ReaderViewModel) -> ChatStatus:
        app = self.app
        index = app.index_line(reader.book.id)
        return ChatStatus(
            spoiler_protection=app.settings().spoiler_protection,
            index_text=index.text,
            indexing=index.running,
            indexed=index.done,
            chapter=reader.chapter_title,
            selection=reader.notes.selection.text if reader.notes.selection else None,
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
    ) -> tuple[ChatViewModel, ChatStatus, ChatActions, Translator, ft.TextField, ft.IconButton]:
        return self.for_book(reader), self.status(reader), self.actions(reader), self.app.t(), self.draft, self.send

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

    def actions(self, reader: ReaderViewModel) -> ChatActions:
        app = self.app

        def change(step: Callable[[ChatViewModel], object]) -> Callable[[], None]:
            def run() -> None:
                step(self.for_book(reader))
                app.redraw()

            return run

        return app.guard(
            ChatActions(
                ask=lambda question: self.ask(reader, question),
                recap=lambda: self.ask(reader, app.t()("chat.suggest.recap"), recap=True),
                stop=lambda: self.for_book(reader).stop(),
                new_thread=change(lambda chat: chat.new_thread()),
                open_thread=lambda thread_id: change(lambda chat: chat.open_thread(thread_id))(),
                rename=lambda: self.rename(reader),
                delete=change(lambda chat: chat.delete_thread()),
                regenerate=lambda: self.for_book(reader).regenerate(self.changed),
                copy=lambda text: app.workers.later(self.copy, text),
                open_citation=app.open_citation,
                set_spoilers=self.set_spoiler_protection,
                start_index=app.start_index,
                cancel_index=app.cancel_index,
                open_settings=app.open_settings,
            )
        )

    def rename(self, reader: ReaderViewModel) -> None:
        app = self.app
        chat = self.for_book(reader)

        def save(title: str) -> None:
            chat.rename(title)
            app.close_dialog()
            app.redraw()

        app.show_dialog(rename_dialog(app.t(), chat.title, save, app.close_dialog))

    def set_spoiler_protection(self, on: bool) -> None:
        self.app.settings().spoiler_protection = on
        self.app.save_settings()
        self.app.redraw()

    async def copy(self, text: str) -> None:
        await ft.Clipboard().set(text)
        self.app.notify(self.app.t()("chat.copied"))
