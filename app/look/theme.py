"""Themes: Material 3 light and dark from one seed colour, and a sepia paper theme for long reading."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import flet as ft

from app.look.fonts import CJK_FALLBACK, READING_FONTS
from app.settings import Settings

SEED = "#5C6BC0"  # indigo: calm, readable accents in both light and dark
SEPIA = ft.ColorScheme(
    primary="#8B5A2B",
    on_primary="#FFFFFF",
    surface="#F4ECD8",
    on_surface="#4B3A2A",
    on_surface_variant="#6E5A45",
    surface_container="#EADFC6",
    surface_container_low="#EFE5CE",
    surface_container_high="#E4D7BA",
    surface_container_highest="#DDCFAF",
    outline="#A08A6C",
    outline_variant="#CDBB98",
    secondary_container="#E4D3B0",
    on_secondary_container="#4B3A2A",
)
HIGHLIGHT_COLORS = {
    "yellow": "#FFE58A",
    "green": "#BFE8B0",
    "blue": "#B5D5F5",
    "pink": "#F6C1D4",
    "purple": "#D8C4F0",
    "search": "#FFB74D",
}
# Reading fonts ship in assets/fonts (Liberation 2, SIL OFL 1.1, from Debian's fonts-liberation2), so the
# choice looks the same everywhere, including the offline web client, which cannot fetch fonts; "sans-serif"
# is the theme's own (Roboto). Chinese falls back to the CJK font (served to the web client, see app.look.fonts).
FONT_FAMILIES = {"serif": "Liberation Serif", "sans-serif": None, "monospace": "Liberation Mono"}
TEXT_STYLES = [
    "display_large",
    "display_medium",
    "display_small",
    "headline_large",
    "headline_medium",
    "headline_small",
    "title_large",
    "title_medium",
    "title_small",
    "label_large",
    "label_medium",
    "label_small",
    "body_large",
    "body_medium",
    "body_small",
]


def _theme(**values: Any) -> ft.Theme:
    # A text theme replaces Material's default styles rather than merging with them, so the colour is set
    # here too (a theme token, resolved per light/dark/sepia); without it dark mode drew black on black.
    fallback = ft.TextStyle(font_family_fallback=list(CJK_FALLBACK), color=ft.Colors.ON_SURFACE)
    text_theme = ft.TextTheme(**dict.fromkeys(TEXT_STYLES, fallback))
    return ft.Theme(use_material3=True, text_theme=text_theme, primary_text_theme=text_theme, **values)


def apply_theme(page: ft.Page, settings: Settings, fonts: dict[str, str] | None = None) -> None:
    """Set the page's theme mode and colour schemes from the reader's choice (system by default).

    ``fonts`` maps font families to the asset files the client loads (the reading fonts by default).
    """
    page.fonts = dict(READING_FONTS if fonts is None else fonts)
    page.theme = _theme(color_scheme_seed=SEED)
    page.dark_theme = _theme(color_scheme_seed=SEED)
    if settings.theme == "sepia":
        page.theme = _theme(color_scheme=SEPIA, scaffold_bgcolor=SEPIA.surface)
        page.theme_mode = ft.ThemeMode.LIGHT
    elif settings.theme == "light":
        page.theme_mode = ft.ThemeMode.LIGHT
    elif settings.theme == "dark":
        page.theme_mode = ft.ThemeMode.DARK
    else:
        page.theme_mode = ft.ThemeMode.SYSTEM


ALOUD = "aloud"  # the mark on the sentence being read aloud


def marked_span(
    text: str, colour: str | None, name: str, dark: bool, on_name: Callable[[str], None] | None = None
) -> ft.TextSpan:
    """A run of the book's text with its marks: on its highlight's (or search hit's) ``colour``, and when it is a
    name X-Ray knows, underlined (dotted), a tap on it ``on_name(name)`` (its card)."""
    style = ft.TextStyle(bgcolor=highlight_color(colour, dark)) if colour else None
    if name:
        style = dataclasses.replace(style or ft.TextStyle(), decoration=ft.TextDecoration.UNDERLINE,
                                    decoration_style=ft.TextDecorationStyle.DOTTED)  # fmt: skip
    tapped = (lambda e: on_name(name)) if name and on_name is not None else None
    return ft.TextSpan(text, style=style, on_click=tapped)


def highlight_color(name: str, dark: bool = False) -> str:
    """The background colour of a highlight; darker, translucent tints on dark themes keep text readable."""
    if name == ALOUD:
        return ft.Colors.with_opacity(0.28, ft.Colors.PRIMARY)  # the theme's own colour: not one of the reader's
    color = HIGHLIGHT_COLORS.get(name, HIGHLIGHT_COLORS["yellow"])
    return ft.Colors.with_opacity(0.45, color) if dark else color
