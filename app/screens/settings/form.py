"""What the Settings screen holds that is not saved yet: the text typed in each field, a choice not saved yet, and
each section's last line (a check's result, an error).

Settings is drawn on Flet's declarative layer (``app/drawn.py``): every change draws the whole screen again and
only the difference is sent, so the list keeps where it was scrolled. A field's text lives here, not in the field:
a drawing gives each field what was typed in it, so the text typed in one section survives a switch flipped in
another (it was lost with the screen drawn anew), and a drawn control is never changed in place (it is frozen).
"""

from __future__ import annotations

from typing import Any

import flet as ft

from app.keys import TextField, text_field


class SettingsForm:
    """Drafts by field key (``"sync.target"``), choices by key, and lines by section, kept across drawings."""

    def __init__(self) -> None:
        self.typed: dict[str, str] = {}
        self.chosen: dict[str, str] = {}
        self.lines: dict[str, tuple[str, bool]] = {}

    def clear(self) -> None:
        """Forget everything not saved (the screen is opened anew)."""
        self.typed.clear()
        self.chosen.clear()
        self.lines.clear()

    def field(self, key: str, saved: str = "", **options: Any) -> TextField:
        """A text field showing what was typed in it (else ``saved``), keeping each keystroke here."""

        def typing(e: ft.Event[Any]) -> None:
            self.typed[key] = e.control.value or ""

        return text_field(value=self.typed.get(key, saved), on_change=typing, **options)

    def text(self, key: str, saved: str = "") -> str:
        """What the field ``key`` holds now: the text typed in it, else ``saved``."""
        return self.typed.get(key, saved)

    def forget(self, *keys: str) -> None:
        """Let these fields show what is saved again (after a save; a password field is emptied)."""
        for key in keys:
            self.typed.pop(key, None)

    def say(self, section: str, text: str, ok: bool = True) -> None:
        """Set a section's line (shown until the screen is opened anew, or another line replaces it)."""
        self.lines[section] = (text, ok)

    def line(self, section: str, default: str = "", ok: bool = True) -> ft.Text:
        """The section's line as drawn: what was said last, else ``default``; in the error colour when not ok."""
        text, fine = self.lines.get(section, (default, ok))
        return ft.Text(text, size=12, color=None if fine else ft.Colors.ERROR)
