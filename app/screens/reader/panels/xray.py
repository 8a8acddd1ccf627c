"""The X-Ray panel: the people, places and terms met so far, each with where it is mentioned."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import flet as ft

from app.screens.reader import intents as intent
from app.screens.reader.navigation import GoTo
from app.screens.reader.view import ReaderActions
from core import XRAY_KINDS, XrayEntry, quoted

if TYPE_CHECKING:
    from app.i18n import Translator
    from app.screens.reader.model import ReaderViewModel
    from app.screens.reader.panels.shape import Reader

Places = tuple[Any, ...]  # an X-Ray entry's mentions (core's Mention records)
XRAY_MENTIONS = 12  # mentions listed under an entry (each opens its place); the count says how many in all


def xray_panel(model: ReaderViewModel, actions: ReaderActions, t: Translator) -> ft.Control:
    """X-Ray: the people, places and terms named up to the furthest place read, most mentioned first. Each opens to
    its other names, the sentences that introduced it, its first mention and its mentions (each a jump there)."""
    _, read = model.shown.percents
    position = model.opened.position()
    furthest = position.furthest if position is not None else None
    rows: list[ft.Control] = [
        ft.TextButton(  # the receipt, as under an answer: what these names were found in, tappable to the place
            t("chat.fence", place=str(furthest), percent=f"{round(position.furthest_percent, 1):g}"),
            icon=ft.Icons.FENCE,
            on_click=lambda e, place=furthest: actions.post(GoTo(place)),
        )
        if furthest is not None and position is not None
        else ft.Text(t("xray.fence", p=f"{read:.0f}"), size=12, color=ft.Colors.ON_SURFACE_VARIANT)
    ]
    if not model.xray_scanning:
        rows.append(_adding(actions, t))
    if actions.ai and model.xray and not model.xray_lines:
        rows.append(
            ft.TextButton(
                t("xray.describe"), icon=ft.Icons.AUTO_AWESOME, on_click=lambda e: actions.post(intent.Describe())
            )
        )
    if model.xray_scanning:
        rows.append(ft.Row([ft.ProgressRing(width=16, height=16, stroke_width=2), ft.Text(t("xray.scanning"))]))
    elif not model.xray:
        cjk = model.book.language.split("-")[0].lower() in ("zh", "ja", "ko")
        none = "xray.none.cjk" if cjk and not model.quire.companion.finds_chinese_names else "xray.none"
        rows.append(ft.Text(t(none if model.reads_names else "xray.none.ja")))
    focused = [e for e in model.xray if e.name == model.xray_focus]  # "Who is this?": the entry asked about first
    for entry in focused + [e for e in model.xray if e.name != model.xray_focus]:
        others = [v for v in entry.variants if v != entry.name]
        details: list[ft.Control] = [ft.Text(t("xray.also", names=", ".join(others)), size=12)] if others else []
        line = model.xray_lines.get(entry.name)
        if line is not None:  # the AI's line, tied by its numbers to the sentences it was sent
            details.append(ft.Text(line.text, size=13, weight=ft.FontWeight.W_500))
            details.append(
                ft.Row(
                    [
                        ft.Chip(
                            label=ft.Text(f"[{c.passage}]"),
                            tooltip=quoted(c.quote[:120]),
                            on_click=lambda e, loc=c.start: actions.post(GoTo(loc)),
                        )
                        for c in line.citations
                    ],
                    wrap=True,
                    spacing=6,
                )
            )
        details += [ft.Text(quoted(sentence), size=13, italic=True, selectable=True) for sentence in entry.introduced]
        chips: list[ft.Control] = [
            ft.Chip(
                label=ft.Text(t("xray.first")),
                leading=ft.Icon(ft.Icons.FIRST_PAGE, size=16),
                on_click=lambda e, loc=entry.first.locator: actions.post(GoTo(loc)),
            )
        ]
        chips += _mention_chips(entry.places[1:XRAY_MENTIONS], 2, actions, t)
        chip_row = ft.Row(chips, wrap=True, spacing=6, run_spacing=6)
        rest = entry.places[XRAY_MENTIONS:]
        if rest:  # every mention the count says is listed: the rest a tap away (hundreds for a main character)

            def show_rest(e: ft.Event[ft.Chip], row: ft.Row = chip_row, rest: Places = rest) -> None:
                index = row.controls.index(e.control)
                row.controls[index : index + 1] = _mention_chips(rest, XRAY_MENTIONS + 1, actions, t)
                row.update()

            chips.append(ft.Chip(label=ft.Text(t("xray.more", n=len(rest))), on_click=show_rest))
        if actions.ai:  # the chat, fenced as every answer is
            chips.append(
                ft.Chip(
                    label=ft.Text(t("xray.tell_more")),
                    leading=ft.Icon(ft.Icons.AUTO_AWESOME, size=16),
                    on_click=lambda e, name=entry.name: actions.post(intent.TellMore(name)),
                )
            )
        details.append(chip_row)
        details.append(_fixes(entry, actions, t))
        rows.append(
            ft.ExpansionTile(
                title=ft.Text(entry.name, weight=ft.FontWeight.W_600),
                subtitle=ft.Text(
                    (model.xray_lines[entry.name].text + " · " if entry.name in model.xray_lines else "")
                    + t("xray.mentions", n=entry.mentions, kind=t(f"xray.kind.{entry.kind}")),
                    size=12,
                    max_lines=2,
                ),
                controls=[
                    ft.Container(ft.Column(details, spacing=6), padding=ft.Padding.only(left=16, right=8, bottom=8))
                ],
                dense=True,
                expanded=entry.name == model.xray_focus,
            )
        )
    if model.xray_hidden:  # what the reader hid, each a tap from showing again
        rows.append(ft.Text(t("xray.hidden"), size=12, color=ft.Colors.ON_SURFACE_VARIANT))
        rows.append(
            ft.Row(
                [
                    ft.Chip(
                        label=ft.Text(name),
                        leading=ft.Icon(ft.Icons.VISIBILITY, size=16),
                        tooltip=t("xray.show_again", name=name),
                        on_click=lambda e, n=name: actions.post(intent.ForgetCorrection(n)),
                    )
                    for name in model.xray_hidden
                ],
                wrap=True,
                spacing=6,
            )
        )
    return ft.ListView(rows, spacing=4, expand=True)


def _name_box(
    label: str, said: Callable[[str], intent.CorrectXray], actions: ReaderActions, **look: Any
) -> ft.TextField:
    """A box for a name: Enter posts ``said(name)`` (nothing for a blank box)."""

    def submitted(e: ft.Event[ft.TextField]) -> None:
        typed = (e.control.value or "").strip()
        if typed:
            actions.post(said(typed))

    return ft.TextField(label=label, dense=True, on_submit=submitted, **look)


def _adding(actions: ReaderActions, t: Translator) -> ft.Control:
    """A box for a name X-Ray missed: found in the text up to the place once submitted."""
    return _name_box(
        t("xray.add"), lambda name: intent.CorrectXray(name, add=True), actions, prefix_icon=ft.Icons.PERSON_ADD_ALT
    )


def _fixes(entry: XrayEntry, actions: ReaderActions, t: Translator) -> ft.Control:
    """The reader's corrections of one entry: hide it, its kind, the same as another entry, another name."""
    name = entry.name
    return ft.Row(
        [
            ft.TextButton(
                t("xray.fix.hide"),
                icon=ft.Icons.VISIBILITY_OFF,
                on_click=lambda e: actions.post(intent.CorrectXray(name, hide=True)),
            ),
            ft.Dropdown(
                label=t("xray.fix.kind"),
                value=entry.kind,
                dense=True,
                width=140,
                options=[ft.DropdownOption(key=kind, text=t(f"xray.kind.{kind}")) for kind in XRAY_KINDS],
                on_select=lambda e: actions.post(intent.CorrectXray(name, kind=e.control.value or entry.kind)),
            ),
            _name_box(  # typed, not chosen: a list of every other entry under each of 150 entries is 22,500 rows
                t("xray.fix.same_as"), lambda other: intent.CorrectXray(name, into=other), actions, width=200
            ),
            _name_box(t("xray.fix.rename"), lambda new: intent.CorrectXray(name, rename=new), actions, width=200),
        ],
        wrap=True,
        spacing=8,
        run_spacing=8,
    )


def _mention_chips(mentions: Places, start: int, actions: ReaderActions, t: Translator) -> list[ft.Control]:
    """A chip per mention, numbered from ``start``; each opens its place (a jump)."""
    return [
        ft.Chip(label=ft.Text(t("xray.mention", n=n)), on_click=lambda e, loc=m.locator: actions.post(GoTo(loc)))
        for n, m in enumerate(mentions, start=start)
    ]


def body(model: ReaderViewModel, actions: ReaderActions, reader: Reader) -> ft.Control:
    return xray_panel(model, actions, reader.app.t)
