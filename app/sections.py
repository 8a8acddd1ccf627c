"""A part of a screen that redraws itself where it is: the screen around it keeps its scroll and its fields."""

from __future__ import annotations

from collections.abc import Callable

import flet as ft

from app.keys import on_screen


class Section:
    """``column`` shows what ``draw`` returns; ``redraw`` draws it again in place (Settings › Catalogs, › Folders)."""

    def __init__(self, draw: Callable[[], list[ft.Control]]) -> None:
        self._draw = draw
        self.column = ft.Column(draw(), spacing=10)

    def redraw(self) -> bool:
        """Draw again and send the change; False when the section is no longer on the page (its screen was left
        while the work behind it ran), and nothing was sent."""
        self.column.controls = self._draw()
        if not on_screen(self.column):
            return False
        self.column.update()
        return True
