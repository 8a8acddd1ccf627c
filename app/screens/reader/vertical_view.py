"""A vertical page drawn: its columns from the right, each a column of cells with the page's marks on them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flet as ft

from app.look.fonts import CJK_FALLBACK
from app.look.theme import marked_span
from app.screens.reader.notes import NAME, Mark
from app.screens.reader.pagination import PageBox, Slice
from app.screens.reader.vertical import CELL_HEIGHT, Cell, cells, columns, upright

Select = Callable[[int, int, int, tuple[int, int]], None]  # (ordinal, start, end, the column text's own span)
Named = Callable[[str], None]


def vertical_columns(
    piece: Slice, box: PageBox, marks: list[Mark], dark: bool, on_select: Select, on_name: Named
) -> list[ft.Control]:
    """A page's slice of a paragraph as its columns, first (rightmost) first; marks keep the segment's offsets."""
    heading = piece.segment.kind == "heading"
    return [
        _column(piece, piece.start + a, piece.start + b, box, marks, dark, on_select, on_name, heading)
        for a, b in columns(piece.text, box.per_column)
    ]


def _column(
    piece: Slice, start: int, end: int, box: PageBox, marks: list[Mark], dark: bool, on_select: Select,
    on_name: Named, heading: bool,
) -> ft.Control:  # fmt: skip
    """One column: runs of upright cells, each one Text (a cell a line), and sideways Latin runs turned a quarter."""
    text = piece.segment.text
    parts: list[ft.Control] = []
    run: list[Cell] = []

    def close_run() -> None:
        if run:
            parts.append(_upright_text(piece.segment.ordinal, text, list(run), box, marks, dark, on_select, on_name,
                                       heading))  # fmt: skip
            run.clear()

    for cell in cells(text[start:end]):
        cell = Cell(cell.start + start, cell.end + start, cell.sideways)
        if cell.sideways:
            close_run()
            parts.append(
                ft.RotatedBox(
                    quarter_turns=1,
                    content=ft.Text(text[cell.start : cell.end], size=box.font_size, no_wrap=True,
                                    style=ft.TextStyle(font_family_fallback=list(CJK_FALLBACK))),
                )
            )  # fmt: skip
        else:
            run.append(cell)
    close_run()
    return ft.Container(
        ft.Column(parts, spacing=0, horizontal_alignment=ft.CrossAxisAlignment.CENTER, tight=True),
        width=box.column_pitch,
        alignment=ft.Alignment.TOP_CENTER,
    )


def _upright_text(
    ordinal: int, text: str, run: list[Cell], box: PageBox, marks: list[Mark], dark: bool, on_select: Select,
    on_name: Named, heading: bool,
) -> ft.Control:  # fmt: skip
    """Upright cells as one selectable Text, a cell a line; a selection in it is posted in the segment's offsets."""
    spans: list[ft.TextSpan] = []
    where: list[int] = []  # the segment offset of each character of the drawn text (its line breaks included)
    marks = [m for m in marks if m.ordinal == ordinal and m.start < run[-1].end and run[0].start < m.end]
    for index, cell in enumerate(run):
        shown = upright(text[cell.start : cell.end])
        covering = [m for m in marks if m.start < cell.end and cell.start < m.end]
        colour = next((m.color for m in reversed(covering) if m.color != NAME), None)
        named = next((m.name for m in covering if m.color == NAME), "")
        spans.append(marked_span(shown + ("\n" if index < len(run) - 1 else ""), colour, named, dark, on_name))
        where += [cell.start + min(i, cell.end - cell.start - 1) for i in range(len(shown))] + [cell.end]

    def selected(e: ft.TextSelectionChangeEvent[Any]) -> None:
        a, b = sorted((e.selection.base_offset, e.selection.extent_offset))
        a, b = max(0, min(a, len(where) - 1)), max(0, min(b, len(where) - 1))
        on_select(ordinal, where[a], where[b] if b > a else where[a], (run[0].start, run[-1].end))

    plain = not marks  # no mark on this run: one string, not a span a cell (a page is a tenth of the size)
    return ft.Text(
        "".join(span.text or "" for span in spans) if plain else "",
        spans=None if plain else spans,
        size=box.font_size,
        weight=ft.FontWeight.BOLD if heading else None,
        text_align=ft.TextAlign.CENTER,
        selectable=True,
        semantics_label=text[run[0].start : run[-1].end],
        on_selection_change=selected,
        style=ft.TextStyle(height=CELL_HEIGHT, font_family_fallback=list(CJK_FALLBACK)),
    )
