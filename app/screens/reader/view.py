"""The reader view: the book's text with reading typography, marks, panels (contents, search, notes, appearance)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import flet as ft

from app.a11y import IconButton
from app.i18n import Translator
from app.look.fonts import CJK_FALLBACK
from app.look.theme import FONT_FAMILIES, highlight_color, marked_span
from app.screens.reader import intents as intent
from app.screens.reader.intents import ReaderIntent
from app.screens.reader.model import PAGE, SCROLL_PADDING, ReaderViewModel
from app.screens.reader.navigation import NextPage, PreviousPage
from app.screens.reader.notes import NAME, Mark
from app.screens.reader.pagination import PageBox, Slice
from app.screens.reader.panels import BY_NAME, PANELS, panel_width
from app.screens.reader.vertical_view import vertical_columns
from app.settings import Settings
from core import HIGHLIGHT_COLORS, SegmentRecord

WIDE = 900  # px: from here panels open beside the text instead of over it
TEXT_WIDTH = 720
# Heights the reader's bars take around the text (title bar, page-turn row, list padding), measured in Chromium
# at both sizes, with room to spare: a page errs towards a line too few, never a line hidden.
DESK_CHROME = 176
PHONE_CHROME = 190
BACK_ROW = 48
WHO_IS_CHARS = 40  # a selection this short (and of four words at most) may be a name: "Who is this?" is offered
SWIPE_VELOCITY = 300  # px/s: a faster horizontal fling turns the page


@dataclass
class ReaderActions:
    """What the reader view asks for (typed intents, posted to one handler) and what is on offer here."""

    post: Callable[[ReaderIntent], object]
    ai: bool = False  # an AI provider is set up: translate, describe, tell me more
    share: bool = False  # the phone's share sheet


def percent_label(percents: tuple[float, float], t: Translator) -> str:
    """ "40% read", or "At 3% · 40% read" when the reader has jumped away from the furthest place read."""
    here, read = percents
    if abs(here - read) >= 0.5:
        return t("reader.percent.behind", c=f"{here:.0f}", p=f"{read:.0f}")
    return t("reader.percent", p=f"{read:.0f}")


def chapter_label(title: str, left: tuple[float, float] | None, t: Translator) -> str:
    """The chapter's name under the book's, with the time left in it and in the book at the reader's own speed
    (once there is enough reading to tell)."""
    if left is None:
        return title
    chapter, book = left
    shown = t("reader.left", chapter=t.duration(chapter * 60), book=t.duration(book * 60))
    return f"{title} · {shown}" if title else shown


def _spans(text: str, marks: list[Mark], dark: bool, on_name: Callable[[str], None] | None = None) -> list[ft.TextSpan]:
    """The text cut at mark edges, marked parts on their colour; a name X-Ray knows underlined, a tap on it
    ``on_name`` (its card)."""
    edges = sorted({0, len(text), *(m.start for m in marks), *(m.end for m in marks)})
    spans = []
    for a, b in itertools.pairwise(edges):
        if a >= b:
            continue
        covering = [m for m in marks if m.start <= a and b <= m.end]
        colour = next((m.color for m in reversed(covering) if m.color != NAME), None)
        named = next((m.name for m in covering if m.color == NAME), "")
        spans.append(marked_span(text[a:b], colour, named, dark, on_name))
    return spans


def segment_control(
    segment: SegmentRecord,
    settings: Settings,
    marks: list[Mark] | None = None,
    *,
    dark: bool = False,
    on_select: Callable[[int, int, int], None] | None = None,
    on_name: Callable[[str], None] | None = None,
    image: Callable[[SegmentRecord], bytes | None] | None = None,
    page_height: float | None = None,
) -> ft.Control:
    """One segment with the typography of its kind and its highlight or search marks; pictures for images.

    ``page_height``: a book of pictures (a comic): each picture fills the page's height, and pinches zoom it.
    """
    size = settings.font_size
    family = FONT_FAMILIES.get(settings.font_family)
    style = ft.TextStyle(height=settings.line_height, font_family=family, font_family_fallback=list(CJK_FALLBACK))
    text = segment.text
    marks = marks or []

    def selected(e: ft.TextSelectionChangeEvent[Any]) -> None:
        if on_select is not None:
            on_select(segment.ordinal, e.selection.base_offset, e.selection.extent_offset)

    def body(**extra: Any) -> ft.Text:
        return ft.Text(
            "" if marks else text,
            spans=_spans(text, marks, dark, on_name) if marks else None,
            selectable=True,
            semantics_label=text,  # a screen reader reads the book: selectable text is an empty node (app/a11y.py)
            on_selection_change=selected if on_select else None,
            style=style,
            **{"size": size, **extra},
        )

    if segment.kind == "heading":
        return body(size={1: size + 10, 2: size + 6}.get(segment.level, size + 3), weight=ft.FontWeight.BOLD)
    if segment.kind == "quote":
        return ft.Container(
            body(italic=True),
            padding=ft.Padding.only(left=16),
            border=ft.Border.only(left=ft.BorderSide(3, ft.Colors.OUTLINE_VARIANT)),
        )
    if segment.kind == "list_item":
        return ft.Row([ft.Text("•", size=size), body(expand=True)], vertical_alignment=ft.CrossAxisAlignment.START)
    if segment.kind == "preformatted":
        return ft.Text(
            text, size=size - 2, font_family=FONT_FAMILIES["monospace"], selectable=True, semantics_label=text
        )
    if segment.kind == "image":
        caption = ft.Text(
            text, size=size - 3, italic=True, color=ft.Colors.ON_SURFACE_VARIANT, text_align=ft.TextAlign.CENTER
        )
        picture = image(segment) if image else None
        if picture is None:
            return ft.Text(f"[{text or 'image'}]", size=size - 2, italic=True, color=ft.Colors.ON_SURFACE_VARIANT)
        if page_height is not None:  # a comic's page: fitted whole, zoomed with a pinch or the wheel
            return ft.InteractiveViewer(
                ft.Image(src=picture, fit=ft.BoxFit.CONTAIN, height=page_height), min_scale=1, max_scale=5
            )
        return ft.Column(  # alt text names the picture for screen readers; only a caption is shown under it
            [
                ft.Image(src=picture, fit=ft.BoxFit.SCALE_DOWN, semantics_label=text or None),
                *([caption] if segment.caption else []),
            ],
            horizontal_alignment=ft.CrossAxisAlignment.CENTER,
            spacing=4,
        )
    return body()


def _text_area(
    model: ReaderViewModel, settings: Settings, actions: ReaderActions, t: Translator, dark: bool, width: float
) -> ft.Control:
    marks: dict[int, list[Mark]] = {}
    for mark in model.shown.marks:
        marks.setdefault(mark.ordinal, []).append(mark)
    paginated = model.box is not None
    if model.page_view:  # a text PDF's page as printed: fitted whole, zoomed with a pinch or the wheel
        return _printed_page(model, actions, t)
    pictures = model.pictures and model.box is not None  # a comic: a page is one picture, fitted
    if pictures:
        assert model.box is not None
        return ft.Container(
            ft.Column(
                [segment_control(s.segment, settings, image=model.images.of, page_height=model.box.height)
                 for s in model.page()],
                horizontal_alignment=ft.CrossAxisAlignment.CENTER,
            ),
            expand=True,
            alignment=ft.Alignment.CENTER,
        )  # fmt: skip
    if model.box is not None and model.box.vertical:  # columns from the right: Chinese and Japanese set upright
        return _vertical_page(model, settings, marks, dark, actions)
    if paginated and model.box is not None:  # the measured page: whole segments and the slices at its edges
        pieces = model.page()
        controls: list[ft.Control] = [
            _slice_control(piece, settings, marks.get(piece.segment.ordinal, []), dark, actions, model)
            for piece in pieces
        ]
        drawn = [(piece.segment.ordinal, piece.end == len(piece.segment.text)) for piece in pieces]
    else:
        here = model.current.ordinal if model.current else 0  # pages before their box is measured: a fixed run
        segments = [s for s in model.visible if s.ordinal >= here][:PAGE] if paginated else model.visible
        controls = [
            segment_control(
                s,
                settings,
                marks.get(s.ordinal),
                dark=dark,
                on_select=_selecting(actions),
                on_name=_naming(actions),
                image=model.images.of,
            )
            for s in segments
        ]
        drawn = [(s.ordinal, True) for s in segments]
    for index, (ordinal, ends) in enumerate(drawn):  # bilingual reading: a translation under its paragraph
        if ordinal in model.translations and (ends or index == len(drawn) - 1):
            controls[index] = _with_translation(controls[index], model.translations[ordinal], settings)
    if drawn and drawn[-1] == (model.book.segment_count - 1, True) and model.in_part is not None:
        controls.append(_still_reading(t, model.in_part, model.rest_read))
    words = ".pictures" if model.pictures else ""  # a comic's steps are pages, not text
    growing = not paginated and not model.at_end and not model.window_full
    if not paginated:
        if not model.at_start:
            controls.insert(
                0, ft.TextButton(t("reader.earlier" + words), on_click=lambda e: actions.post(intent.LoadMore(False)))
            )
        if not model.at_end and model.window_full:
            controls.append(
                ft.TextButton(t("reader.continue" + words), on_click=lambda e: actions.post(intent.LoadMore(True)))
            )

    def scrolled(e: ft.OnScrollEvent) -> None:
        if e.max_scroll_extent:
            actions.post(intent.Scrolled(max(0.0, min(1.0, e.pixels / e.max_scroll_extent)), e.pixels))
        # Within two screens of the end: read on without a button, as Apple Books and Readest do.
        if e.viewport_dimension and e.pixels >= e.max_scroll_extent - 2 * e.viewport_dimension and growing:
            actions.post(intent.Grow())  # the list drawn again longer: the same controls, the new ones after them

    listing = ft.ListView(
        controls=controls,
        spacing=max(8, settings.font_size * 0.8),
        expand=True,
        padding=ft.Padding.symmetric(horizontal=settings.margins, vertical=SCROLL_PADDING),
        on_scroll=None if paginated else scrolled,
        scroll_interval=250,
    )

    measure = TEXT_WIDTH + 2 * settings.margins  # a comfortable line length, centred on wide screens
    return ft.Container(
        ft.GestureDetector(content=listing, on_horizontal_drag_end=_turn_on_fling(actions), expand=True),
        width=measure if width > measure else None,
        expand=width <= measure,
    )


def _still_reading(t: Translator, in_part: tuple[int, int], rest: tuple[int, int] | None) -> ft.Control:
    """Where a long PDF's first part ends: the rest is still being read (how far, when it is being read now),
    and appears when it is."""
    lines: list[ft.Control] = [
        ft.Text(t("reader.still_reading", read=in_part[0], pages=in_part[1]), italic=True, size=13)
    ]
    if rest is not None:
        lines.append(ft.Text(t("reader.still_reading.progress", page=rest[0], pages=rest[1]), size=12))
        lines.append(ft.ProgressBar(value=rest[0] / max(1, rest[1])))
    return ft.Container(ft.Column(lines, spacing=6), padding=ft.Padding.symmetric(vertical=24))


def _with_translation(control: ft.Control, translation: str, settings: Settings) -> ft.Control:
    """A paragraph with its translation under it, smaller and set apart by a rule at its side."""
    return ft.Column(
        [
            control,
            ft.Container(
                ft.Text(translation, selectable=True, size=settings.font_size - 2, color=ft.Colors.ON_SURFACE_VARIANT),
                padding=ft.Padding.only(left=12),
                border=ft.Border.only(left=ft.BorderSide(2, ft.Colors.PRIMARY)),
                key="translation",
            ),
        ],
        spacing=6,
    )


def _turn_on_fling(actions: ReaderActions, leftward: bool = False) -> Callable[[ft.DragEndEvent[Any]], None]:
    """A horizontal fling faster than SWIPE_VELOCITY turns the page: leftwards to the next one, or (``leftward``:
    vertical text, whose pages go right to left) rightwards."""

    def swiped(e: ft.DragEndEvent[Any]) -> None:
        velocity = e.primary_velocity or 0.0
        if abs(velocity) > SWIPE_VELOCITY:
            actions.post(NextPage() if (velocity > 0) == leftward else PreviousPage())

    return swiped


def _vertical_page(
    model: ReaderViewModel, settings: Settings, marks: dict[int, list[Mark]], dark: bool, actions: ReaderActions
) -> ft.Control:
    """A page of vertical columns, the first at the right; a picture fills a page of its own."""
    box = model.box
    assert box is not None
    drawn: list[ft.Control] = []
    for piece in model.page():
        if piece.segment.kind == "image":
            drawn.append(segment_control(piece.segment, settings, image=model.images.of, page_height=box.height))
            continue
        drawn += vertical_columns(piece, box, marks.get(piece.segment.ordinal, []), dark, _column_selecting(actions),
                                  _naming(actions))  # fmt: skip
    page = ft.Row(list(reversed(drawn)), spacing=0, alignment=ft.MainAxisAlignment.END,
                  vertical_alignment=ft.CrossAxisAlignment.START, width=box.width)  # fmt: skip
    return ft.GestureDetector(content=page, on_horizontal_drag_end=_turn_on_fling(actions, leftward=True))


def _printed_page(model: ReaderViewModel, actions: ReaderActions, t: Translator) -> ft.Control:
    picture = model.images.printed_page(model.pdf_page)
    if picture is None:  # the stored file went missing or the page cannot be drawn
        shown: ft.Control = ft.Text(t("reader.page_view.missing"), color=ft.Colors.ON_SURFACE_VARIANT)
    else:
        height = model.box.height if model.box is not None else None
        shown = ft.InteractiveViewer(
            ft.Image(src=picture, fit=ft.BoxFit.CONTAIN, height=height), min_scale=1, max_scale=5
        )

    return ft.Container(
        ft.GestureDetector(content=shown, on_horizontal_drag_end=_turn_on_fling(actions)),
        expand=True,
        alignment=ft.Alignment.CENTER,
    )


def _slice_control(
    piece: Slice, settings: Settings, marks: list[Mark], dark: bool, actions: ReaderActions, model: ReaderViewModel
) -> ft.Control:
    """A segment as a page shows it: only its characters ``start``..``end``, marks and selection shifted to fit."""
    segment, start = piece.segment, piece.start
    if start == 0 and piece.end == len(segment.text):
        return segment_control(
            segment,
            settings,
            marks,
            dark=dark,
            on_select=_selecting(actions),
            on_name=_naming(actions),
            image=model.images.of,
        )
    shown = dataclasses.replace(segment, text=piece.text)
    moved = [
        dataclasses.replace(m, start=max(0, m.start - start), end=min(len(piece.text), m.end - start))
        for m in marks
        if m.end > start and m.start < piece.end
    ]
    return segment_control(
        shown,
        settings,
        moved,
        dark=dark,
        on_select=_selecting(actions, start),
        on_name=_naming(actions),
        image=model.images.of,
    )


def page_box(settings: Settings, width: float, height: float, panel: str | None, back_row: bool) -> PageBox:
    """The text box a page fills at this window size: the reader's width and what the bars leave of the height."""
    phone = width < WIDE
    text_space = width - (0 if phone else panel_width(panel)) - 40
    text_width = min(TEXT_WIDTH, text_space - 2 * settings.margins)
    chrome = (PHONE_CHROME if phone else DESK_CHROME) + (BACK_ROW if back_row else 0)
    return PageBox(max(120.0, text_width), max(120.0, height - chrome), settings.font_size, settings.line_height,
                   settings.font_family)  # fmt: skip


def _selecting(actions: ReaderActions, shift: int = 0) -> Callable[[int, int, int], None]:
    """A text's selection handler: the selection (its offsets ``shift`` into the paragraph) posted as an intent."""

    def select(ordinal: int, start: int, end: int) -> None:
        actions.post(intent.Select(ordinal, start + shift, end + shift))

    return select


def _column_selecting(actions: ReaderActions) -> Callable[[int, int, int, tuple[int, int]], None]:
    """A vertical column's selection handler: the selection and the column text's own characters, which tell
    whether it continues the selection the column before it holds."""

    def select(ordinal: int, start: int, end: int, run: tuple[int, int]) -> None:
        actions.post(intent.Select(ordinal, start, end, run))

    return select


def _naming(actions: ReaderActions) -> Callable[[str], None]:
    """An underlined name's tap: its X-Ray card."""

    def tapped(name: str) -> None:
        actions.post(intent.OpenName(name))

    return tapped


def _colouring(
    actions: ReaderActions, kind: type[intent.Highlight] | type[intent.RecolourTapped]
) -> Callable[[str], None]:
    def colour(color: str) -> None:
        actions.post(kind(color))

    return colour


def selection_bar(model: ReaderViewModel, actions: ReaderActions, t: Translator) -> ft.Control | None:
    """What the reader can do with the selected text (highlight, ask, copy, share) or with the highlight they
    tapped (colour, note, copy, delete); None when neither."""
    if model.notes.selection is not None:
        text = model.notes.selection.text
        label = t("reader.highlight")
        swatch_tip, on_colour = "reader.highlight.color", _colouring(actions, intent.Highlight)
        extra = [
            IconButton(
                ft.Icons.EDIT_NOTE,
                tooltip=t("reader.note.add"),
                on_click=lambda e: actions.post(intent.NoteSelection()),
            ),
            IconButton(
                ft.Icons.FORUM_OUTLINED, tooltip=t("reader.ask"), on_click=lambda e: actions.post(intent.AskAbout())
            ),
        ]
        if actions.ai:
            extra.append(
                IconButton(
                    ft.Icons.TRANSLATE,
                    tooltip=t("reader.translate"),
                    on_click=lambda e: actions.post(intent.Translate()),
                )
            )
        if len(text) <= WHO_IS_CHARS and len(text.split()) <= 4:  # a name or a word, not a passage
            extra[:0] = [
                IconButton(
                    ft.Icons.MENU_BOOK, tooltip=t("reader.define"), on_click=lambda e: actions.post(intent.Define())
                ),
                IconButton(
                    ft.Icons.PERSON_SEARCH, tooltip=t("reader.who_is"), on_click=lambda e: actions.post(intent.WhoIs())
                ),
            ]
        close = lambda e: actions.post(intent.Select(-1, 0, 0))  # noqa: E731
    elif model.notes.tapped is not None:
        text = model.notes.tapped.text
        label = t("reader.highlight.menu")
        swatch_tip, on_colour = "reader.highlight.recolour", _colouring(actions, intent.RecolourTapped)
        extra = [
            IconButton(
                ft.Icons.EDIT_NOTE, tooltip=t("reader.note"), on_click=lambda e: actions.post(intent.NoteTapped())
            ),
            IconButton(
                ft.Icons.DELETE_OUTLINE,
                tooltip=t("reader.highlight.remove"),
                on_click=lambda e: actions.post(intent.RemoveTapped()),
            ),
        ]
        close = lambda e: actions.post(intent.Select(-1, 0, 0))  # noqa: E731
    else:
        return None
    swatches = [
        IconButton(
            ft.Icons.CHECK_CIRCLE
            if model.notes.tapped is not None and model.notes.tapped.color == color
            else ft.Icons.CIRCLE,
            icon_color=highlight_color(color),
            tooltip=t(swatch_tip, color=t(f"color.{color}")),
            on_click=lambda e, color=color: on_colour(color),
        )
        for color in HIGHLIGHT_COLORS
    ]
    extra.append(
        IconButton(ft.Icons.COPY, tooltip=t("reader.copy"), on_click=lambda e: actions.post(intent.Copy(text)))
    )
    if actions.share:
        extra.append(
            IconButton(ft.Icons.SHARE, tooltip=t("reader.share"), on_click=lambda e: actions.post(intent.Share(text)))
        )
    bar = ft.Container(
        ft.Row(
            [
                ft.Text(label, weight=ft.FontWeight.W_600),
                *_joined_quote(model),
                *swatches,
                *extra,
                IconButton(ft.Icons.CLOSE, tooltip=t("common.cancel"), on_click=close),
            ],
            wrap=True,
            alignment=ft.MainAxisAlignment.CENTER,
        ),
        bgcolor=ft.Colors.SURFACE_CONTAINER_HIGH,
        border_radius=12,
        padding=4,
    )
    # Centred in the width the screen gives, so that the bar wraps onto a second line on a phone (in a Row it had
    # no bound and was cut off at 390 px after the sixth button: the note, copy and close were out of reach).
    return ft.Container(bar, alignment=ft.Alignment.CENTER)


def _joined_quote(model: ReaderViewModel) -> list[ft.Control]:
    """A selection made across vertical columns, quoted in the bar (each column shows its own part alone)."""
    selection = model.notes.selection
    if selection is None or not selection.joined:
        return []
    shown = selection.text if len(selection.text) <= 16 else selection.text[:7] + "…" + selection.text[-7:]
    return [ft.Text(f"「{shown}」", semantics_label=selection.text, max_lines=1)]


def _panel_frame(
    title: str, content: ft.Control, actions: ReaderActions, t: Translator, width: float | None
) -> ft.Control:
    return ft.Container(
        ft.Column(
            [
                ft.Row(
                    [
                        ft.Text(title, size=16, weight=ft.FontWeight.BOLD, expand=True),
                        IconButton(
                            ft.Icons.CLOSE,
                            tooltip=t("common.close"),
                            on_click=lambda e: actions.post(intent.OpenPanel(None)),
                        ),
                    ]
                ),
                content,
            ],
            expand=True,
        ),
        width=width,
        expand=width is None,
        padding=ft.Padding.only(left=8, right=8),
    )


def status_labels(model: ReaderViewModel, t: Translator) -> tuple[str, str]:
    """What the reader's two status lines say: how far (with a PDF page's own number), and the chapter."""
    percent = percent_label(model.shown.percents, t)
    if model.page_view:  # the page's own number (as printed, else its place in the file) beside "% read"
        label = model.pdf_page_label
        page = t("chat.page", page=label) if label else t("reader.page_view.page", page=model.pdf_page + 1,
                                                           pages=model.printed_pages)  # fmt: skip
        percent = f"{page} · {percent}"
    return percent, chapter_label(model.chapter_title, model.shown.left, t)


def page_area(
    model: ReaderViewModel, settings: Settings, actions: ReaderActions, t: Translator, dark: bool, width: float,
    panel: str | None,
) -> ft.Control:  # fmt: skip
    """The page itself (or the scrolling text), centred in what the panel leaves of ``width``."""
    text_space = width - (0 if width < WIDE else panel_width(panel)) - 40
    return ft.Row(
        [_text_area(model, settings, actions, t, dark, text_space)],
        alignment=ft.MainAxisAlignment.CENTER,
        expand=True,
        vertical_alignment=ft.CrossAxisAlignment.STRETCH,
    )


def reading_column(
    model: ReaderViewModel,
    t: Translator,
    *,
    width: float,
    actions: ReaderActions,
    page: ft.Control,
    aloud_bar: ft.Control | None = None,
) -> ft.Control:
    """The book's side of the reader screen: the title, the status lines, the page (``page``: drawn on its own,
    see ``page_area``), the selection bar, read-aloud's bar and the page-turn row.

    Drawn from the view-model's state: call ``model.refresh()`` first; drawing reads nothing from the library.
    """
    phone = width < WIDE
    bookmarked = model.shown.bookmark is not None
    tools = [
        IconButton(p.icon, tooltip=t(p.title), on_click=lambda e, name=p.name: actions.post(intent.OpenPanel(name)))
        for p in PANELS
    ]
    bookmark = IconButton(
        ft.Icons.BOOKMARK if bookmarked else ft.Icons.BOOKMARK_BORDER,
        tooltip=t("reader.bookmark.remove") if bookmarked else t("reader.bookmark"),
        on_click=lambda e: actions.post(intent.ToggleBookmark()),
    )
    aloud = IconButton(
        ft.Icons.STOP_CIRCLE_OUTLINED if aloud_bar is not None else ft.Icons.HEADPHONES_OUTLINED,
        tooltip=t("aloud.stop") if aloud_bar is not None else t("aloud.start"),
        on_click=lambda e: actions.post(intent.ReadAloud()),
    )
    page_view = (
        [
            IconButton(
                ft.Icons.ARTICLE_OUTLINED if model.page_view else ft.Icons.PICTURE_AS_PDF_OUTLINED,
                tooltip=t("reader.page_view.off") if model.page_view else t("reader.page_view.on"),
                on_click=lambda e: actions.post(intent.PageView(not model.page_view)),
            )
        ]
        if model.printed_pages  # a text PDF where pages can be drawn: as printed, or reflowed
        else []
    )
    shown_percent, shown_chapter = status_labels(model, t)
    percent = ft.Text(shown_percent, size=12, text_align=ft.TextAlign.CENTER, expand=not phone or None)
    chapter = ft.Text(
        shown_chapter, size=12, color=ft.Colors.ON_SURFACE_VARIANT, max_lines=1, overflow=ft.TextOverflow.ELLIPSIS
    )
    header = ft.Row(
        [
            IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: actions.post(intent.Back())),
            ft.Column(
                [
                    ft.Text(
                        model.book.title,
                        size=16,
                        weight=ft.FontWeight.BOLD,
                        no_wrap=True,
                        max_lines=1,
                        overflow=ft.TextOverflow.ELLIPSIS,  # on a phone it must stop before "% read"
                    ),
                    chapter,
                ],
                spacing=0,
                expand=True,
            ),
            # a phone: bookmark, read-aloud and a PDF's page view at the top (the bottom row is full: with the
            # page view there too, "Next page" was pushed off a 390-wide screen)
            *(
                [percent, *page_view, aloud, bookmark]
                if phone
                else [*tools[:2], aloud, bookmark, *tools[2:], *page_view]
            ),
        ],
        spacing=0,
    )
    previous = IconButton(
        ft.Icons.CHEVRON_LEFT, tooltip=t("reader.previous"), on_click=lambda e: actions.post(PreviousPage())
    )
    following = IconButton(
        ft.Icons.CHEVRON_RIGHT, tooltip=t("reader.next"), on_click=lambda e: actions.post(NextPage())
    )
    if model.box is not None and model.box.vertical:  # pages go right to left: the next one is on the left
        previous = IconButton(
            ft.Icons.CHEVRON_LEFT, tooltip=t("reader.next"), on_click=lambda e: actions.post(NextPage())
        )
        following = IconButton(
            ft.Icons.CHEVRON_RIGHT, tooltip=t("reader.previous"), on_click=lambda e: actions.post(PreviousPage())
        )
    if phone:  # tools along the bottom, within reach of a thumb
        footer = ft.Row([previous, *tools, following], alignment=ft.MainAxisAlignment.SPACE_BETWEEN)
    else:
        footer = ft.Row([previous, percent, following])
    back_row = (
        [
            ft.Row(
                [
                    ft.TextButton(
                        t("reader.back_to"),
                        icon=ft.Icons.UNDO,
                        on_click=lambda e: actions.post(intent.GoBack()),
                        key="back-to",
                    )
                ],
                alignment=ft.MainAxisAlignment.CENTER,
                key="back-to-row",
            )
        ]
        if model.return_to is not None
        else []
    )
    if model.previously:  # back after days away: the story so far, one tap away
        back_row.append(
            ft.Row(
                [
                    ft.TextButton(
                        t("reader.previously"),
                        icon=ft.Icons.HISTORY_EDU,
                        on_click=lambda e: actions.post(intent.Recap()),
                    )
                ],
                alignment=ft.MainAxisAlignment.CENTER,
                key="previously",
            )
        )
    bar = selection_bar(model, actions, t)
    # What comes and goes has a key, so that Flet's diff matches the rest by place: the page, the header and the
    # page-turn row stay the controls they were when "Back to where you were" or the selection bar appear.
    return ft.Column(
        [
            header,
            *back_row,
            ft.Container(page, expand=True),
            *([ft.Container(bar, key="selection-bar")] if bar is not None else []),
            *([ft.Container(aloud_bar, key="aloud-bar")] if aloud_bar is not None else []),
            footer,
        ],
        expand=True,
    )


@dataclass(frozen=True, slots=True)
class PageShown:
    """What the page shows, as a value: the page is drawn again when this changes and only then (a selection made,
    the status lines, the bar under the page leave it as the client has it)."""

    book: int
    pieces: tuple[tuple[int, int, int], ...]  # (ordinal, first, end) of each paragraph or slice drawn
    marks: tuple[Mark, ...]  # highlights, search hits, names underlined, the sentence read aloud
    translations: tuple[tuple[int, str], ...]
    window: tuple[object, ...]  # scroll mode: the buttons around the list; a long PDF: how far the rest is read
    look: tuple[object, ...]  # the typography and theme, the width, the language, the box, a PDF's printed page


def page_shown(
    model: ReaderViewModel, settings: Settings, t: Translator, dark: bool, width: float, panel: str | None
) -> PageShown:
    """The value of what ``page_area`` draws now (after ``model.refresh()``)."""
    if model.page_view:
        pieces: tuple[tuple[int, int, int], ...] = ()
    elif model.box is not None and model.current is not None:
        pieces = tuple((piece.segment.ordinal, piece.start, piece.end) for piece in model.page())
    else:
        pieces = tuple((s.ordinal, 0, len(s.text)) for s in model.visible)  # scroll mode: the window
    ordinals = {ordinal for ordinal, _, _ in pieces}
    return PageShown(
        model.book.id,
        pieces,
        tuple(model.shown.marks),
        tuple(sorted((o, text) for o, text in model.translations.items() if o in ordinals)),
        (model.at_start, model.at_end, model.window_full, model.in_part, model.rest_read),
        (dataclasses.astuple(settings), dark, width, panel, t.language, model.box, model.page_view, model.pdf_page),
    )


def build_reader_view(
    t: Translator,
    *,
    width: float,
    actions: ReaderActions,
    reading: ft.Control,
    panel: str | None = None,
    panel_content: ft.Control | None = None,
) -> ft.Control:
    """The whole reader screen: ``reading`` (see ``reading_column``) and the open panel beside it or over it, whose
    body is ``panel_content`` (see ``app.screens.reader.panels``)."""
    phone = width < WIDE
    if panel not in BY_NAME:
        return reading
    spec = BY_NAME[panel]
    content = panel_content or ft.Text("")
    if phone:  # a full-screen sheet over the text, closed with its X, Esc or a choice
        return _panel_frame(t(spec.title), content, actions, t, None)
    frame = _panel_frame(t(spec.title), content, actions, t, spec.width)
    if spec.leading:
        return ft.Row([frame, ft.VerticalDivider(width=1), reading], expand=True)
    return ft.Row([reading, ft.VerticalDivider(width=1), frame], expand=True)
