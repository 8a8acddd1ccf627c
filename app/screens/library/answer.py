""" "Ask your library": a dialog that streams an answer from every book, its citations opening their own books."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import flet as ft

from app.a11y import IconButton, named_icon
from app.drawn import Drawn
from app.keys import text_field
from app.screens.chat import intents as intent
from app.screens.chat.view import message_view

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.screens.chat.intents import Post
    from app.screens.chat.model import ChatViewModel


class LibraryAnswerDialog:
    """The dialog: the questions asked of the library and their answers (one thread of the library's own), a box
    for the next question, and Stop while an answer streams. ``redraw`` draws the messages again in place."""

    def __init__(
        self,
        chat: ChatViewModel,
        post: Post,
        t: Translator,
        book_title: Callable[[int], str],
        on_close: Callable[[], object],
        *,
        phone: bool = False,
    ) -> None:
        self.chat, self.post, self.t, self.book_title = chat, post, t, book_title
        self.box = text_field(label=t("library.ask.box"), expand=True, dense=True, shift_enter=True, max_lines=3)
        self.box.on_submit = lambda e: self._send()
        self.send = IconButton(ft.Icons.SEND, tooltip=t("chat.send"), on_click=lambda e: self._send_or_stop())
        self.body = Drawn(self._messages)
        self.dialog = ft.AlertDialog(
            modal=False,
            title=ft.Row([ft.Icon(ft.Icons.LOCAL_LIBRARY_OUTLINED), ft.Text(t("library.ask.title"))]),
            content=ft.Container(
                ft.Column([self.body.control, ft.Row([self.box, self.send])], spacing=8, expand=True),
                width=640,
                height=620 if phone else 520,
            ),
            inset_padding=ft.Padding.symmetric(horizontal=8, vertical=16) if phone else None,  # a phone's width
            actions=[ft.TextButton(t("common.close"), on_click=lambda e: on_close())],
            on_dismiss=lambda e: chat.stop(),  # closing it stops the answer; what came is kept in its thread
        )
        self._update_send()

    def _messages(self) -> ft.Control:
        chat = self.chat
        last = max((i for i, m in enumerate(chat.messages) if m.role == "assistant"), default=-1)
        shown: list[ft.Control] = [ft.Text(self.t("library.ask.fence"), size=12, color=ft.Colors.ON_SURFACE_VARIANT)]
        shown += [
            message_view(m, i == last, self.post, self.t, book_title=self.book_title)
            for i, m in enumerate(chat.messages)
        ]
        return ft.ListView(shown, spacing=10, expand=True, auto_scroll=True)

    def _send(self) -> None:
        question = (self.box.value or "").strip()
        if question and not self.chat.streaming:
            self.box.value = ""
            self.post(intent.Ask(question))

    def _send_or_stop(self) -> None:
        if self.chat.streaming:
            self.post(intent.Stop())
        else:
            self._send()

    def _update_send(self) -> None:
        label = self.t("chat.stop") if self.chat.streaming else self.t("chat.send")
        self.send.icon = named_icon(ft.Icons.STOP_CIRCLE_OUTLINED if self.chat.streaming else ft.Icons.SEND, label)
        self.send.tooltip = label

    def redraw(self) -> None:
        """The messages as the chat holds them now, and Send or Stop as it streams or not."""
        self._update_send()
        self.body.redraw()
