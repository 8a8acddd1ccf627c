"""The app's screens, by name: one window shows one of them (the reader's panels: app/screens/reader/panels/)."""

from __future__ import annotations

from enum import StrEnum


class Screen(StrEnum):
    """A screen; its value is its name in the window's address (``/notes``) and equals the plain string."""

    LIBRARY = "library"
    READER = "reader"
    NOTES = "notes"
    SETTINGS = "settings"
    STATS = "stats"
    CATALOG = "catalog"
