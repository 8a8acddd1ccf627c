"""The reading statistics screen: totals, a heatmap of the last weeks' days, a weekly chart and each book's time,
speed and time left (every device synced).

The weekly chart is flet-charts' BarChart (Flet's own charts: its Flutter side is in the prebuilt web client this
app serves, and ``flet build`` builds it into the apps); the heatmap is a grid of squares, a chart type flet-charts
does not have.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING

import flet as ft

from app.a11y import IconButton
from app.i18n import Translator
from core import StatsReport

if TYPE_CHECKING:
    import flet_charts as fc

CELL = 14  # a day of the heatmap, in pixels
BAR_HEIGHT = 120  # the tallest week's bar, in pixels
AXIS_WIDTH = 80  # the weekly chart's time labels ("2 小时 50 分" on one line)
WEEK_WIDTH = 36  # a week of the weekly chart at most; under it, every other week's date is shown


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


def weekly_chart(report: StatsReport, t: Translator, width: float) -> fc.BarChart:
    """A bar per week, in minutes, fitted to ``width``: its Monday's date under it (every other week's where the
    dates would touch, this week's always), its time read in the bar's tooltip, and the time half way and at the
    top of the side."""
    import flet_charts as fc  # here, not at the top: it takes 70 ms, and the app imports this module as it starts

    minutes = [seconds / 60 for _, seconds in report.weeks]
    top = max(max(minutes, default=0.0), 1.0)
    width = min(width, AXIS_WIDTH + WEEK_WIDTH * len(report.weeks))
    every = 1 if (width - AXIS_WIDTH) / max(len(report.weeks), 1) >= WEEK_WIDTH else 2
    last = len(report.weeks) - 1
    groups = [
        fc.BarChartGroup(
            x=index,
            rods=[
                fc.BarChartRod(
                    from_y=0,
                    to_y=spent,
                    width=16,
                    color=ft.Colors.PRIMARY,
                    border_radius=4,
                    tooltip=f"{week}: {t.duration(seconds)}",
                )
            ],
        )
        for index, ((week, seconds), spent) in enumerate(zip(report.weeks, minutes, strict=True))
    ]
    week_labels = [
        fc.ChartAxisLabel(value=index, label=ft.Text(week[5:], size=10, color=ft.Colors.ON_SURFACE_VARIANT))
        for index, (week, _) in enumerate(report.weeks)
        if (last - index) % every == 0
    ]
    time_labels = [
        fc.ChartAxisLabel(value=value, label=ft.Text(t.duration(value * 60), size=10)) for value in (top / 2, top)
    ]
    return fc.BarChart(
        groups=groups,
        min_y=0,
        max_y=top * 1.15,  # room above the tallest bar for its label
        bottom_axis=fc.ChartAxis(labels=week_labels, label_size=24),
        left_axis=fc.ChartAxis(labels=time_labels, label_size=AXIS_WIDTH - 8, label_spacing=top / 2),
        horizontal_grid_lines=fc.ChartGridLines(interval=top / 2, color=ft.Colors.OUTLINE_VARIANT, width=1),
        animation=0,  # drawn once, as the screen opens
        height=BAR_HEIGHT + 60,
        width=width,
    )


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
    padding = max(12, (width - 760) / 2)  # a column at most 760 wide, centred
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
            weekly_chart(report, t, width - 2 * padding),
            ft.Text(t("stats.books"), size=18, weight=ft.FontWeight.BOLD),
            *book_lines(report, t),
        ]
    return ft.Column(
        [
            ft.Row(
                [
                    IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: on_back()),
                    ft.Text(t("stats.title"), size=22, weight=ft.FontWeight.BOLD),
                ]
            ),
            ft.ListView(body, spacing=12, expand=True, padding=ft.Padding.symmetric(horizontal=padding)),
        ],
        expand=True,
    )
