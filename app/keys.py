"""One place routes the keyboard: an open dialog or a focused text field owns it; the screen gets what is left.

Flet hands every key to ``page.on_keyboard_event``, keys typed into a focused text field included (PLATFORM-FACTS),
so a screen that turns pages on Space would turn one for every space of a note typed in a dialog. The router asks
two questions before a key reaches a screen:

- Is a dialog open (a note, a rename, a word's definition)? Then Flutter's dialog has the keyboard, Escape
  included (it closes the dialog itself): the screen behind hears nothing.
- Does a text field have the focus? Fields opt in with :func:`track`; their focus and blur events are counted
  per window. Escape still reaches the screen (it closes the panel the field is in); nothing else does.

A field taken off the page while it had the focus sends no blur: a field no longer in the session's index of live
controls, or inside a dialog that was closed, does not count.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import flet as ft

ESCAPE = "Escape"
F = TypeVar("F", bound=ft.TextField)
_focused: weakref.WeakKeyDictionary[ft.Page, set[int]] = weakref.WeakKeyDictionary()


def track(field: F) -> F:
    """``field``, its focus counted by the router of the window it is in (its own focus handlers still run)."""
    own_focus: Callable[..., Any] | None = field.on_focus
    own_blur: Callable[..., Any] | None = field.on_blur

    def focused(e: ft.Event[Any]) -> None:
        _focused.setdefault(e.page, set()).add(field._i)
        if own_focus is not None:
            own_focus(e)

    def blurred(e: ft.Event[Any]) -> None:
        _focused.setdefault(e.page, set()).discard(field._i)
        if own_blur is not None:
            own_blur(e)

    field.on_focus, field.on_blur = focused, blurred
    return field


def dialog_open(page: ft.Page) -> bool:
    """A modal dialog or sheet is open (a snack bar is not modal: it takes no keys).

    Flet keeps ``show_dialog``'s stack in ``page._dialogs`` and offers no public way to ask it; the router's
    tests open real dialogs through ``show_dialog``, so a Flet that moves it fails them.
    """
    dialogs = getattr(page, "_dialogs", None)
    stack = getattr(dialogs, "controls", None) or []
    return any(getattr(d, "open", False) and not isinstance(d, ft.SnackBar) for d in stack)


def field_focused(page: ft.Page) -> bool:
    """A tracked text field of this window has the keyboard focus (and is still on the page)."""
    ids = _focused.get(page)
    if not ids:
        return False
    live = page.session.index
    ids.intersection_update(i for i in list(ids) if i in live and on_screen(live[i]))
    return bool(ids)


def on_screen(control: ft.BaseControl) -> bool:
    """``control`` is on its window's page now: in the session's index of live controls, and not inside a closed
    dialog (Flet keeps a closed dialog, and its fields, in that index)."""
    try:
        page = control.page
    except RuntimeError:  # never added to a page
        return False
    if page.session.index.get(control._i) is not control:
        return False
    node: ft.BaseControl | None = control
    while node is not None:
        if isinstance(node, ft.DialogControl) and not node.open:
            return False
        node = node.parent
    return True


class KeyRouter:
    """Sends each key of one window to its owner: a dialog, a focused field, or the screen (``on_screen``)."""

    def __init__(self, page: ft.Page, on_screen: Callable[[ft.KeyboardEvent], object]) -> None:
        self.page = page
        self.on_screen = on_screen

    def owner(self) -> str:
        """Who has the keyboard now: ``dialog``, ``field`` or ``screen``."""
        if dialog_open(self.page):
            return "dialog"
        return "field" if field_focused(self.page) else "screen"

    def route(self, event: ft.KeyboardEvent) -> bool:
        """Hand ``event`` to the screen unless a dialog or a field owns it; True when the screen got it."""
        owner = self.owner()
        if owner == "dialog" or (owner == "field" and event.key != ESCAPE):
            return False
        self.on_screen(event)
        return True


@ft.control("TextField")  # type: ignore[arg-type]  # Flet's decorator is typed for its own classes only
class TextField(ft.TextField):
    """Flet's text field, with a focus that also reaches a field where Shift+Enter makes a new line.

    Flet's ``focus()`` asks the client to focus the field's plain focus node, but a ``shift_enter`` field listens on
    another one, so the call does nothing there (flet ``packages/flet/lib/src/controls/textfield.dart``,
    ``_invokeMethod``: measured in Chromium, the chat's box never took the focus). The client also reads a ``focus``
    property and, each time its value changes, focuses the node the field uses: :meth:`take_focus` sets it.
    """

    focus: str | None = None  # type: ignore[assignment]  # the client's focus request (a new value asks again)

    def take_focus(self) -> None:
        """Ask the client to put the keyboard into this field (sent with the next update)."""
        self.focus = str(int(self.focus or 0) + 1)


def text_field(**options: Any) -> TextField:
    """A text field whose focus the router knows, and with a name a screen reader reads: every field of the app is
    made here.

    A field's hint names it to a screen reader only while it is empty (Flutter's web build); its label names it
    always. So a field given only a hint has it as its label instead (Material shows a label inside an empty box
    as it shows a hint, and above the text once there is some). A field with neither is a mistake.
    """
    if not options.get("label"):
        hint = options.pop("hint_text", None)
        if not hint:
            raise ValueError("a text field needs a label or a hint: a screen reader names the field by it")
        options["label"] = hint
    return track(TextField(**options))
