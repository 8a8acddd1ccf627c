"""The reading statistics screen: totals, a heatmap of the last weeks' days, a weekly chart and each book's time,
speed and time left (every device synced).

Drawn with plain Flet containers: flet-charts is a Flet extension (a Flutter package built into the app by
``flet build``), which the prebuilt web client this app also serves does not carry.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import flet as ft

from app.i18n import Translator
from core import StatsReport

CELL = 14  # a day of the heatmap, in pixels
BAR_HEIGHT = 120  # the tallest week's bar


def _shade(seconds: float) -> str:
    """The heatmap's colour for a day's reading: none, a little, some, an hour or more."""
    if seconds <= 0:
        return ft.Colors.SURFACE_CONTAINER_HIGHEST
    if seconds < 15 * 60:
        return ft.Colors.with_opacity(0.35, ft.Colors.PRIMARY)
    if seconds < 60 * 60:
        return ft.Colors.with_opacity(0.65, ft.Colors.PRIMARY)
    return ft.Colors.PRIMARY


def heatmap(report: StatsReport, t: Translator) -> ft.Control:
    """A column of seven days per week, oldest week first; each day's tooltip says its date and time read."""
    columns: list[ft.Control] = []
    for week, _ in report.weeks:
        monday = date.fromisoformat(week)
        cells: list[ft.Control] = []
        for offset in range(7):
            day = (monday + timedelta(days=offset)).isoformat()
            spent = report.days.get(day, 0.0)
            cells.append(
                ft.Container(
                    width=CELL,
                    height=CELL,
                    border_radius=3,
                    bgcolor=_shade(spent),
                    tooltip=f"{day}: {t.duration(spent)}",
                )
            )
        columns.append(ft.Column(cells, spacing=3))
    return ft.Row(columns, spacing=3, wrap=False, scroll=ft.ScrollMode.AUTO)


def weekly_chart(report: StatsReport, t: Translator) -> ft.Control:
    """A bar per week (its Monday's date under it), the tallest week full height."""
    most = max((seconds for _, seconds in report.weeks), default=0.0) or 1.0
    bars: list[ft.Control] = []
    for week, seconds in report.weeks:
        bars.append(
            ft.Column(
                [
                    ft.Text(t.duration(seconds) if seconds else "", size=10),
                    ft.Container(
                        width=22,
                        height=max(2, BAR_HEIGHT * seconds / most),
                        bgcolor=ft.Colors.PRIMARY,
                        border_radius=4,
                        tooltip=f"{week}: {t.duration(seconds)}",
                    ),
                    ft.Text(week[5:], size=10, color=ft.Colors.ON_SURFACE_VARIANT),
                ],
                horizontal_alignment=ft.CrossAxisAlignment.CENTER,
                alignment=ft.MainAxisAlignment.END,
                spacing=2,
            )
        )
    return ft.Row(bars, spacing=6, vertical_alignment=ft.CrossAxisAlignment.END, scroll=ft.ScrollMode.AUTO)


def book_lines(report: StatsReport, t: Translator) -> list[ft.Control]:
    rows: list[ft.Control] = []
    for book in report.books:
        parts = [t.duration(book.seconds), t.plural("stats.sessions", book.sessions)]
        if book.chars_per_minute:
            parts.append(t("stats.speed", n=f"{book.chars_per_minute:.0f}"))
        if book.minutes_left is not None and book.chapter_minutes_left is not None:
            parts.append(t("stats.left", chapter=t.duration(book.chapter_minutes_left * 60),
                           book=t.duration(book.minutes_left * 60)))  # fmt: skip
        rows.append(
            ft.ListTile(
                leading=ft.Icon(ft.Icons.MENU_BOOK_OUTLINED),
                title=ft.Text(book.title),
                subtitle=ft.Text(" · ".join(parts)),
                dense=True,
            )
        )
    return rows


def build_stats_screen(report: StatsReport, t: Translator, on_back: Callable[[], object], width: float) -> ft.Control:
    """The whole screen; a library with no reading yet says how reading is counted."""
    body: list[ft.Control]
    if not report.books:
        body = [ft.Text(t("stats.none"), color=ft.Colors.ON_SURFACE_VARIANT)]
    else:
        summary = t("stats.summary", time=t.duration(report.seconds), sessions=t.plural("stats.sessions", report.sessions),
                    days=t.plural("stats.day_count", len(report.days)),
                    streak=t.plural("stats.day_count", report.streak))  # fmt: skip
        body = [
            ft.Text(summary, size=16),
            ft.Text(t("stats.days"), size=18, weight=ft.FontWeight.BOLD),
            heatmap(report, t),
            ft.Text(t("stats.weeks"), size=18, weight=ft.FontWeight.BOLD),
            weekly_chart(report, t),
            ft.Text(t("stats.books"), size=18, weight=ft.FontWeight.BOLD),
            *book_lines(report, t),
        ]
    return ft.Column(
        [
            ft.Row(
                [
                    ft.IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: on_back()),
                    ft.Text(t("stats.title"), size=22, weight=ft.FontWeight.BOLD),
                ]
            ),
            ft.ListView(
                body, spacing=12, expand=True, padding=ft.Padding.symmetric(horizontal=max(12, (width - 760) / 2))
            ),
        ],
        expand=True,
    )
