"""Client-less page tests: a real Flet Session and Page over a connection that only records.

Helpers find controls in the page's tree and fire their events through the session, as a client would.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import flet as ft
import msgpack
from flet.controls.base_control import BaseControl
from flet.messaging.connection import Connection
from flet.messaging.protocol import MessageAction, configure_encode_object_for_msgpack
from flet.messaging.session import Session
from flet.pubsub.pubsub_hub import PubSubHub

ENCODE = configure_encode_object_for_msgpack(BaseControl)


def encode(payload: object) -> bytes:
    """Serialize as Flet's socket server does; it is serializing that snapshots what the client was sent, so list
    changes (a service registered, a control appended) show in the next patch."""
    return msgpack.packb(payload, default=ENCODE)


class RecordingConnection(Connection):
    """A connection with no client at the other end: messages are kept, not sent.

    Method calls on services (a wake lock, a haptic tick, a folder's path) are answered as a device answers them,
    through the session's own reply path: with ``answers["Type.method"]`` when set (called, when a function; awaited,
    when that returns an awaitable), else an empty result. They
    are kept in ``invoked`` as (service type, method name), and their arguments in ``arguments``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.sent: list = []
        self.wire: list[bytes] = []  # each message as it was serialized when sent (``sent`` holds live controls)
        self.invoked: list[tuple[str, str]] = []
        self.arguments: list[dict] = []
        self.answers: dict[str, object] = {}
        self.session: Session | None = None
        self._asked = asyncio.Event()  # set each time a method is asked of the client

    def send_message(self, message) -> None:
        self.sent.append(message)
        # as a real connection does: this records what the client now has
        self.wire.append(encode([message.action, message.body]))
        if message.action == MessageAction.INVOKE_METHOD and self.session is not None:
            body = message.body
            control = self.session.index.get(body.control_id)
            kind = type(control).__name__
            self.invoked.append((kind, body.name))
            self._asked.set()
            self.arguments.append(dict(body.args or {}))
            answer = self.answers.get(f"{kind}.{body.name}")
            answer = answer() if callable(answer) else answer  # a function: the device's answer, made as it is asked
            if inspect.isawaitable(answer):  # the device answers later (a sentence spoken to its end)
                self.loop.create_task(self._answer_later(body, answer))
                return
            self.loop.call_soon(self.session.handle_invoke_method_results, body.control_id, body.call_id, answer, None)

    async def asked(self, method: str) -> None:
        """Return once a control's ``method`` was asked of the client (a list's ``scroll_to``)."""
        while not any(name == method for _, name in self.invoked):
            self._asked.clear()
            await self._asked.wait()

    async def _answer_later(self, body, pending) -> None:
        answer = await pending
        assert self.session is not None
        self.session.handle_invoke_method_results(body.control_id, body.call_id, answer, None)


async def new_session(width: int, height: int = 900, beside: Session | None = None) -> Session:
    """A connected session whose page reports the given size, as a browser window of that size would; ``beside``:
    another window of the same app (the two share the app's message hub, as a web server's sessions do)."""
    connection = RecordingConnection()
    connection.loop = asyncio.get_running_loop()
    connection.executor = ThreadPoolExecutor(max_workers=2)
    connection.pubsubhub = (
        beside.connection.pubsubhub if beside is not None
        else PubSubHub(loop=connection.loop, executor=connection.executor)
    )  # fmt: skip
    session = Session(connection)
    connection.session = session
    encode(session.get_page_patch())  # what registering a client does: mounts the page's views, dialogs and services
    await session.connect(connection)
    session.apply_patch(session.page._i, {"width": width, "height": height, "web": True})
    return session


def walk(root: object) -> Iterator[ft.BaseControl]:
    """Every control under ``root`` (depth first), following the usual child slots."""
    stack = [root]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
            continue
        if not isinstance(item, ft.BaseControl) or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        for name in ("controls", "content", "title", "subtitle", "leading", "trailing", "actions", "segments",
                     "items", "label", "spans", "_b"):  # fmt: skip  # _b: what a component (app/drawn.py) drew
            child = getattr(item, name, None)
            if isinstance(child, (list, ft.BaseControl)):
                stack.append(child)


def texts(root: object) -> list[str]:
    """All visible strings: Text values and spans, button labels, tooltips."""
    found = []
    for control in walk(root):
        if isinstance(control, ft.Markdown):
            found.append(control.value)
        elif isinstance(control, ft.Text):
            found.append(control.value or "".join(s.text or "" for s in control.spans or []))
        elif isinstance(control, ft.TextSpan) and control.text:
            found.append(control.text)
        elif isinstance(getattr(control, "content", None), str):
            found.append(control.content)
        if isinstance(getattr(control, "label", None), str):  # a switch's or a checkbox's own words
            found.append(control.label)
        tooltip = getattr(control, "tooltip", None)
        if isinstance(tooltip, str):
            found.append(tooltip)
    return found


def find(root: object, *, text: str | None = None, tooltip: str | None = None, kind: type | None = None):
    """The first control with this text (exactly), tooltip, or type; AssertionError when there is none."""
    for control in walk(root):
        if kind is not None and not isinstance(control, kind):
            continue
        if tooltip is not None and getattr(control, "tooltip", None) != tooltip:
            continue
        if text is not None:
            own = control.value if isinstance(control, ft.Text) else getattr(control, "content", None)
            if own != text:
                continue
        return control
    raise AssertionError(f"no control with text={text!r} tooltip={tooltip!r} kind={kind}")


async def fire(session: Session, control: ft.BaseControl, event: str = "click", data: object = None) -> None:
    """Deliver an event to a control through the session, then wait for what it scheduled on the UI loop (the
    app's workers: redraws, short background jobs) to have run; threads it started (an answer streaming) go on."""
    from app.workers import Workers

    await session.dispatch_event(control._i, event, data)
    workers = Workers.of(session.page)
    if workers is not None:
        await workers.settled()


async def set_value(session: Session, control: ft.BaseControl, value: object, event: str) -> None:
    """Change a control's value as a browser does: the value patched from the client, then its event (a control
    drawn on Flet's declarative layer is frozen: a test cannot set its value directly). A dropdown's event is
    ``select``, a switch's ``change``."""
    session.apply_patch(control._i, {"value": value})
    await fire(session, control, event)


async def type_into(session: Session, field: ft.BaseControl, text: str, event: str = "change") -> None:
    """Type ``text`` into a field as a browser does (then ``event``: ``submit`` presses Enter)."""
    await set_value(session, field, text, event)


def clickable(root: object, text: str) -> ft.BaseControl:
    """The innermost control with an on_click handler that shows ``text`` (a list tile, a button)."""
    best = None
    for control in walk(root):
        if getattr(control, "on_click", None) and text in texts(control):
            best = control  # depth first: a later match inside an earlier one is more specific
    if best is None:
        raise AssertionError(f"nothing clickable shows {text!r}")
    return best
