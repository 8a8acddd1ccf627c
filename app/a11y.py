"""What screen readers read: text the reader can select, given its words again as its accessible label.

Flutter's web build gives selectable text an empty node (flutter/flutter#96877): a question asked, a book's details,
a catalog's address were missing from the page's accessibility tree. Every selectable text of the app's screens is
made here, so that each carries its words.
"""

from __future__ import annotations

from typing import Any

import flet as ft


def selectable(text: str, **style: Any) -> ft.Text:
    """A text the reader can select and a screen reader reads."""
    return ft.Text(text, selectable=True, semantics_label=text, **style)


def relabel(control: ft.Text, text: str) -> None:
    """Change a selectable text's words and its label together."""
    control.value = control.semantics_label = text


@ft.control("IconButton")  # type: ignore[arg-type]  # Flet's decorator is typed for its own classes only
class IconButton(ft.IconButton):
    """Flet's icon button, named for a screen reader by its tooltip: every icon button of the app is one of these.

    In Flutter's web build a tooltip labels a node around the button, not the button, so a screen reader on the
    button itself said only "button"; inside a card (the notes screen's colour and delete) even that outer node was
    gone (measured in Chromium's accessibility tree). The icon carries the tooltip as its semantic label, which the
    button takes as its name, and nothing changes on screen. The icon keeps the button's ``icon_color``: Flet draws
    an icon given as a control in its own colour, not the button's (the highlight swatches were five grey dots).
    """

    def init(self) -> None:
        super().init()  # type: ignore[no-untyped-call]  # Flet's hook has no type hints
        if (
            isinstance(self.tooltip, str)
            and self.tooltip
            and self.icon is not None
            and not isinstance(self.icon, ft.Control)
        ):
            self.icon = named_icon(self.icon, self.tooltip, self.icon_color)


def named_icon(icon: ft.IconData, label: str, color: ft.ColorValue | None = None) -> ft.Icon:
    """An icon that tells a screen reader what it is for (the button it is in takes that as its name)."""
    return ft.Icon(icon, semantics_label=label, color=color)
