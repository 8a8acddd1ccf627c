"""The reader's side panels, listed once: what each is called, its tool icon, where and how wide it opens.

Each panel's body is one module of this package (``toc``, ``search``, ``notes``, ``xray``, ``appearance``,
``chat``) with one function, ``body(model, actions, reader) -> Control`` (``shape.Body``): the open book, the
view's one entry point, and ``shape.Reader``, what a panel may use of the reader's controller.
"""

from __future__ import annotations

from dataclasses import dataclass

import flet as ft


@dataclass(frozen=True, slots=True)
class Panel:
    """One reader panel. Its body is the ``body`` of the module of this package named ``name``."""

    name: str
    title: str  # i18n key of its title and of its tool's tooltip
    icon: ft.IconData
    width: int = 360  # beside the text on wide screens; a full-screen sheet on phones
    leading: bool = False  # opens before the text (the contents), else after it
    takes_keys: bool = True  # has fields: arrow and page keys type there instead of turning pages


PANELS: tuple[Panel, ...] = (
    Panel("toc", "reader.toc", ft.Icons.TOC, width=300, leading=True, takes_keys=False),
    Panel("search", "reader.search", ft.Icons.SEARCH),
    Panel("notes", "notes.title", ft.Icons.STICKY_NOTE_2_OUTLINED),
    Panel("xray", "reader.xray", ft.Icons.PERSON_SEARCH_OUTLINED, takes_keys=False),
    Panel("appearance", "reader.appearance", ft.Icons.FORMAT_SIZE),
    Panel("chat", "chat.title", ft.Icons.FORUM_OUTLINED, width=440),
)
BY_NAME = {panel.name: panel for panel in PANELS}


def panel_width(name: str | None) -> int:
    """Width a panel takes beside the text (0 when none is open)."""
    return BY_NAME[name].width if name in BY_NAME else 0
