"""What the Settings view asks for, as typed intents posted to its controller (``SettingsController.handle``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Saved:
    """A setting the view changed on the shared Settings: save it and let every screen follow it."""


@dataclass(frozen=True, slots=True)
class Redraw:
    """Something typed, chosen or said and not saved (a form's line, a field shown): draw Settings again in place;
    nothing when the reader has left it (a reply that comes after)."""


@dataclass(frozen=True, slots=True)
class Back:
    """Back to the library."""


SettingsIntent = Saved | Redraw | Back
