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
