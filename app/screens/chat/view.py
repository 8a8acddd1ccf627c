"""The chat panel: threads, the mode and spoiler switch, answers drawn part by part, and the question box."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import flet as ft

from app.a11y import IconButton, named_icon, selectable
from app.drawn import Drawn
from app.i18n import Translator
from app.look.theme import FONT_FAMILIES
from app.screens.chat import intents as intent
from app.screens.chat.intents import Post
from core import NOTICES, Citation, parse_locator, quoted, without_remote_images

if TYPE_CHECKING:  # the chat model loads LangChain: the app imports it on first use, not at start
    from app.screens.chat.model import ChatViewModel
    from core import Message, Part


@dataclass
class ChatStatus:
    """What the shell knows beside the chat: protection, indexing, the place, the selection."""

    spoiler_protection: bool
    index_text: str
    indexing: bool
    indexed: bool
    chapter: str
    selection: str | None
    in_part: tuple[int, int] | None = None  # a long PDF's first pages only: (read, in all)


def _tool_card(part: Part, t: Translator) -> ft.Control:
    if part.state == "running":
        icon: ft.Control = ft.ProgressRing(width=16, height=16, stroke_width=2)
    elif part.state == "error":
        icon = ft.Icon(ft.Icons.ERROR_OUTLINE, color=ft.Colors.ERROR, size=18)
    else:
        icon = ft.Icon(ft.Icons.CHECK_CIRCLE_OUTLINE, color=ft.Colors.PRIMARY, size=18)
    args = part.text  # the arguments, as they stream and then whole
    return ft.ExpansionTile(
        leading=icon,
        title=ft.Text(t("chat.tool", name=part.data["name"]), size=13, weight=ft.FontWeight.W_600),
        subtitle=ft.Text(args, size=11, max_lines=1, color=ft.Colors.ON_SURFACE_VARIANT) if args else None,
        dense=True,
        controls=[
            ft.Text(t("chat.tool.args"), size=11, weight=ft.FontWeight.BOLD),
            selectable(args or "—", size=12, font_family=FONT_FAMILIES["monospace"]),
            ft.Text(t("chat.tool.result"), size=11, weight=ft.FontWeight.BOLD),
            selectable(part.data.get("result") or "…", size=12, max_lines=20),
        ],
        expanded_cross_axis_alignment=ft.CrossAxisAlignment.START,
    )


def _chip_label(number: int, citation: Citation, t: Translator, book_title: Callable[[int], str] | None) -> str:
    """A citation's chip: its number in the order cited, its book (an answer from the library) and a PDF's page."""
    words = [f"[{number}]"]
    if book_title is not None:
        words.append(book_title(citation.book_id))
    if citation.page:
        words.append(t("chat.page", page=citation.page))
    return " ".join(words)


def _part(part: Part, t: Translator) -> ft.Control:
    if part.kind == "reasoning":
        return ft.ExpansionTile(
            leading=ft.Icon(ft.Icons.PSYCHOLOGY_OUTLINED, size=18),
            title=ft.Text(t("chat.thinking"), size=13, italic=True),
            dense=True,
            controls=[selectable(part.text, size=12, italic=True, color=ft.Colors.ON_SURFACE_VARIANT)],
        )
    if part.kind == "tool_call":
        return _tool_card(part, t)
    if part.kind == "error":
        notice = part.data.get("type") in {*NOTICES, "NotStarted"}  # an honest answer, or why there is none: plainly
        color = ft.Colors.ON_SURFACE_VARIANT if notice else ft.Colors.ERROR
        return ft.Row(
            [
                ft.Icon(ft.Icons.INFO_OUTLINE if notice else ft.Icons.ERROR_OUTLINE, color=color),
                ft.Text(
                    t.error_named(part.data.get("type", ""), part.text, sentence_in_english=False),
                    color=color,
                    italic=notice,
                    expand=True,
                ),
            ]
        )
    return ft.Markdown(  # the model's text and the book's may both try to load a remote image: neither can
        without_remote_images(part.text), selectable=True, extension_set=ft.MarkdownExtensionSet.GITHUB_WEB
    )


def _receipt(message: Message, post: Post, t: Translator, book_title: Callable[[int], str] | None) -> list[ft.Control]:
    """The fence's receipt under an answer: where it could read to (each book quoted, for the library's answer),
    each place a tap away, and with a provider the passages it was given."""
    fence = message.fence
    if fence is None:
        return []
    shown: list[ft.Control] = []

    def place_button(label: str, book: int, locator: str) -> ft.Control:
        place = parse_locator(locator)
        return ft.TextButton(
            label,
            icon=ft.Icons.FENCE,
            on_click=lambda e: post(intent.OpenCitation(Citation(book, 0, place, place, ""))),
        )

    if "books" in fence:  # the library: each book at its own place
        for read in fence["books"]:
            title = book_title(read["book"]) if book_title is not None else str(read["book"])
            if read.get("locator"):
                label = t("chat.fence.book", title=title, place=read["locator"], percent=f"{read['percent']:g}")
                shown.append(place_button(label, read["book"], read["locator"]))
        shown.append(ft.Text(t("chat.fence.searched", n=fence.get("searched", 0)), size=12, italic=True,
                             color=ft.Colors.ON_SURFACE_VARIANT))  # fmt: skip
    elif fence.get("locator"):
        label = t("chat.fence", place=str(fence["locator"]), percent=f"{float(fence.get('percent') or 0):g}")
        shown.append(place_button(label, message.book_id, str(fence["locator"])))
    else:
        shown.append(ft.Text(t("chat.fence.none"), size=12, italic=True, color=ft.Colors.ON_SURFACE_VARIANT))
    if fence.get("sent"):  # with a provider: what it was given
        places = ", ".join(str(p["start"]) for p in fence["sent"])
        shown.append(ft.Text(t("chat.fence.sent", places=places), size=12, color=ft.Colors.ON_SURFACE_VARIANT))
    return shown


def message_view(
    message: Message, last: bool, post: Post, t: Translator, *, book_title: Callable[[int], str] | None = None
) -> ft.Control:
    """One message of a conversation; ``book_title`` (an answer from the whole library) names each citation's book
    on its chip."""
    if message.role == "user":
        return ft.Row(
            [
                ft.Container(
                    selectable(message.text),
                    bgcolor=ft.Colors.PRIMARY_CONTAINER,
                    border_radius=12,
                    padding=10,
                    margin=ft.Margin.only(left=40),
                )
            ],
            alignment=ft.MainAxisAlignment.END,
            wrap=True,
        )
    controls = [_part(p, t) for p in message.shown_parts]
    if last and any(p.kind == "error" and p.data.get("type") == "NotStarted" for p in message.shown_parts):
        # pages flipped through count for nothing: the reader may say they have read them
        controls.append(
            ft.TextButton(
                t("reader.read_to_here"), icon=ft.Icons.DONE_ALL, on_click=lambda e: post(intent.ReadToHere())
            )
        )
    if message.citations:
        controls.append(
            ft.Row(
                [
                    ft.Chip(
                        # numbered in the order they were cited; a PDF's printed page beside the number
                        label=ft.Text(_chip_label(number, c, t, book_title)),
                        tooltip=t("chat.citation", quote=quoted(c.quote[:160])),
                        on_click=lambda e, c=c: post(intent.OpenCitation(c)),
                    )
                    for number, c in enumerate(message.citations, start=1)
                ],
                wrap=True,
                spacing=4,
            )
        )
    controls += _receipt(message, post, t, book_title)
    footer: list[ft.Control] = []
    if message.status == "stopped":
        footer.append(ft.Text(t("chat.stopped"), size=12, italic=True, color=ft.Colors.ON_SURFACE_VARIANT))
    if message.status != "streaming":
        footer.append(
            IconButton(
                ft.Icons.COPY, tooltip=t("chat.copy"), icon_size=16, on_click=lambda e: post(intent.Copy(message.text))
            )
        )
        if last:
            footer.append(
                IconButton(
                    ft.Icons.REFRESH,
                    tooltip=t("chat.regenerate"),
                    icon_size=16,
                    on_click=lambda e: post(intent.Regenerate()),
                )
            )
    if footer:
        controls.append(ft.Row(footer, spacing=0))
    return ft.Column(controls, spacing=4)


def _header(chat: ChatViewModel, status: ChatStatus, post: Post, t: Translator) -> list[ft.Control]:
    threads = chat.threads()
    picker = ft.Dropdown(
        value=str(chat.thread_id) if chat.thread_id is not None else None,
        options=[ft.DropdownOption(key=str(th.id), text=th.title) for th in threads],
        hint_text=t("chat.thread.new") if chat.thread_id is None else None,
        on_select=lambda e: post(intent.OpenThread(int(e.control.value))),
        tooltip=t("chat.thread.pick"),  # its name in the accessibility tree (a chosen value alone names nothing)
        dense=True,
        expand=True,
        disabled=not threads,
    )
    menu = ft.PopupMenuButton(
        icon=named_icon(ft.Icons.MORE_VERT, t("chat.thread.menu")),
        tooltip=t("chat.thread.menu"),
        items=[
            ft.PopupMenuItem(content=ft.Text(t("chat.thread.rename")), on_click=lambda e: post(intent.RenameThread())),
            ft.PopupMenuItem(content=ft.Text(t("chat.thread.delete")), on_click=lambda e: post(intent.DeleteThread())),
        ],
        disabled=chat.thread_id is None,
    )
    mode = chat.mode
    chip = ft.Chip(
        label=ft.Text(
            t(f"chat.mode.{mode}") if mode in ("offline", "local-only") else t("chat.mode.provider", name=mode)
        ),
        leading=ft.Icon(
            ft.Icons.LOCK_OUTLINE
            if mode == "local-only"
            else ft.Icons.CLOUD_OFF
            if mode == "offline"
            else ft.Icons.CLOUD_OUTLINED,
            size=16,
        ),
        on_click=lambda e: post(intent.OpenSettings()),
        tooltip=t("settings.title"),
    )
    spoilers = ft.Switch(
        label=t("settings.spoilers"),
        value=status.spoiler_protection,
        on_change=lambda e: post(intent.SetSpoilers(bool(e.control.value))),
    )
    index_row: list[ft.Control] = [ft.Text(status.index_text, size=12, expand=True, color=ft.Colors.ON_SURFACE_VARIANT)]
    if status.indexing:
        index_row.append(ft.TextButton(t("chat.index.cancel"), on_click=lambda e: post(intent.CancelIndex())))
    elif not status.indexed:
        index_row.append(
            ft.TextButton(t("chat.index.start"), icon=ft.Icons.BOLT, on_click=lambda e: post(intent.StartIndex()))
        )
    rows: list[ft.Control] = [
        ft.Row(
            [
                picker,
                IconButton(
                    ft.Icons.ADD_COMMENT_OUTLINED,
                    tooltip=t("chat.thread.new"),
                    on_click=lambda e: post(intent.NewThread()),
                ),
                menu,
            ]
        ),
        ft.Row([chip, spoilers], wrap=True),
        ft.Row(index_row),
    ]
    if mode == "offline":
        rows.append(ft.Text(t("chat.offline.hint"), size=12, color=ft.Colors.ON_SURFACE_VARIANT))
    if status.in_part is not None:  # answers come from what is in so far
        read, pages = status.in_part
        rows.append(ft.Text(t("chat.in_part", read=read, pages=pages), size=12, color=ft.Colors.ON_SURFACE_VARIANT))
    return rows


@dataclass
class ChatPanelView:
    """A drawn chat panel: ``root`` goes into the page; ``body`` (the header and the messages) is redrawn in place
    from ``state``, the latest arguments of ``update_chat_panel``."""

    root: ft.Column
    body: Drawn
    state: list[tuple[ChatViewModel, ChatStatus, Post, Translator]]


def build_chat_panel(
    chat: ChatViewModel,
    status: ChatStatus,
    post: Post,
    t: Translator,
    draft: ft.TextField,
    send: ft.IconButton,
) -> ChatPanelView:
    """The whole panel. ``draft`` (the question box) and ``send`` (send, or stop while an answer streams) are
    kept by the controller across redraws: typing survives them. Their row and the panel are new each time the
    reader's screen is built: Flet keeps a control it has seen move between two kept parents out of its index, and
    the box would stop hearing the browser (measured: the question typed after a citation click arrived empty).
    Between two builds, ``update_chat_panel`` redraws the header and the messages through Flet's renderer, which
    changes on the client only what changed (see app/drawn.py), and leaves the box's row alone."""
    state: list[tuple[ChatViewModel, ChatStatus, Post, Translator]] = [(chat, status, post, t)]
    body = Drawn(lambda: _body(*state[0]))
    root = ft.Column([body.control, ft.Row([draft, send])], expand=True, spacing=6)
    view = ChatPanelView(root, body, state)
    update_chat_panel(view, chat, status, post, t, draft, send)
    return view


def _body(chat: ChatViewModel, status: ChatStatus, post: Post, t: Translator) -> ft.Control:
    """The header and the messages, as the chat and the shell say now."""
    if chat.messages:
        last_answer = max((i for i, m in enumerate(chat.messages) if m.role == "assistant"), default=-1)
        body: list[ft.Control] = [message_view(m, i == last_answer, post, t) for i, m in enumerate(chat.messages)]
    else:
        body = [ft.Text(t("chat.empty"), color=ft.Colors.ON_SURFACE_VARIANT)]
        body.append(
            ft.OutlinedButton(
                t("chat.suggest.recap"), icon=ft.Icons.HISTORY_EDU, on_click=lambda e: post(intent.Recap())
            )
        )
        body += [
            ft.OutlinedButton(question, on_click=lambda e, q=question: post(intent.Ask(q)))
            for question in suggestions(t, status.chapter, status.selection, offline=chat.provider() is None)
        ]
    return ft.Column(
        [
            ft.Column(_header(chat, status, post, t), spacing=6),
            ft.Divider(height=1),
            ft.ListView(body, spacing=10, expand=True, auto_scroll=True),
        ],
        expand=True,
        spacing=6,
    )


def update_chat_panel(
    view: ChatPanelView,
    chat: ChatViewModel,
    status: ChatStatus,
    post: Post,
    t: Translator,
    draft: ft.TextField,
    send: ft.IconButton,
) -> None:
    """Redraw the panel's header and messages in place. The box's row is not touched: a new row around the box
    takes the keyboard focus from it, and streamed text redraws ten times a second (measured in Chromium with
    a mouse: the letters typed while an answer streamed went nowhere)."""
    view.state[0] = (chat, status, post, t)
    view.body.redraw()
    draft.label = t("chat.ask")  # a screen reader's name for the box, also once it holds a question
    draft.on_submit = lambda e: post(intent.Ask(draft.value or ""))
    if chat.streaming:
        send.icon, send.tooltip, send.on_click = (
            named_icon(ft.Icons.STOP_CIRCLE_OUTLINED, t("chat.stop")),
            t("chat.stop"),
            lambda e: post(intent.Stop()),
        )
    else:
        send.icon, send.tooltip = named_icon(ft.Icons.SEND, t("chat.send")), t("chat.send")
        send.on_click = lambda e: post(intent.Ask(draft.value or ""))


def suggestions(t: Translator, chapter: str, selection: str | None, offline: bool = False) -> list[str]:
    """Questions to start an empty thread with, in the reader's language.

    Offline (no AI provider) the answer can only quote sentences the search finds: no summaries are promised,
    only a search for what is selected.
    """
    if offline:
        return [t("chat.suggest.offline.where", passage=selection[:40])] if selection else []
    found = [t("chat.suggest.summary", chapter=chapter) if chapter else t("chat.suggest.so_far")]
    found.append(t("chat.suggest.characters"))
    if selection:
        found.append(t("chat.suggest.explain", passage=selection[:200]))
    return found
