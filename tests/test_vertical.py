"""Issue 61 item 1: vertical text for Chinese and Japanese: the book says so or the reader chooses it; columns by the
kinsoku rules with vertical punctuation; pages turned right to left; every character shown once, forward and back;
selection, highlights and search marks in the segment's own offsets; at both sizes."""

from __future__ import annotations

import dataclasses
import itertools

import flet as ft
import pytest
from conftest import book_path
from fletkit import new_session, walk
from test_app_pages import _key, run, start

from app.screens.reader.model import ReaderViewModel
from app.screens.reader.vertical import CELL_HEIGHT, Cell, cells, columns, upright
from app.screens.reader.view import page_box
from app.settings import Settings
from core import Quire

KUSAMAKURA = book_path("ja/idpf-kusamakura-japanese-vertical-writing.epub")
HONGLOUMENG = book_path("zh/hongloumeng_120.md")


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> Quire:
    """草枕 (1), 红楼梦 (2) and Alice (3), imported once for the module (红楼梦 takes seconds)."""
    quire = Quire(tmp_path_factory.mktemp("vertical") / "lib")
    quire.import_paths([KUSAMAKURA, HONGLOUMENG, book_path("en/epubjs-alice.epub")])
    return quire


def test_cells_keep_two_digits_upright_and_lay_longer_latin_sideways() -> None:
    assert cells("12月") == [Cell(0, 2), Cell(2, 3)]  # tate-chu-yoko: one upright cell
    assert cells("2026年") == [Cell(0, 4, sideways=True), Cell(4, 5)]
    assert cells("A級") == [Cell(0, 1), Cell(1, 2)]
    assert cells("Natsume、") == [Cell(0, 7, sideways=True), Cell(7, 8)] and Cell(0, 7, sideways=True).size == 4
    assert upright("「こんにちは、」。（上）") == "﹁こんにちは︑﹂︒︵上︶"
    assert upright("“林黛玉”——") == "﹁林黛玉﹂︱︱"


def test_columns_break_by_the_kinsoku_rules() -> None:
    assert columns("あいうえお。かき", 5) == [(0, 6), (6, 8)]  # "。" hangs at the foot, never opens a column
    assert columns("あいうえっかき", 4) == [(0, 5), (5, 7)]  # small kana too
    assert columns("あいう「えお」", 4) == [(0, 3), (3, 7)]  # "「" never ends one: it moves on
    text = "宝玉听了，忙问：「林妹妹在哪里？」众人笑道：「在里间呢。」" * 5
    spans = columns(text, 7)
    assert "".join(text[a:b] for a, b in spans) == text  # every character once, in order
    for a, b in spans:
        assert text[a] not in "，。：？」、" and text[b - 1] != "「", text[a:b]
        assert sum(c.size for c in cells(text[a:b])) <= 9  # at most two hanging marks over


def test_the_book_says_vertical_and_the_reader_may_choose(books: Quire) -> None:
    quire = books
    modes = {b.title: (b.writing_mode, b.language) for b in quire.books()}
    assert modes["草枕"][0] == "vertical-rl" and modes["hongloumeng 120"][0] == ""
    assert modes["Alice's Adventures in Wonderland"][0] == ""
    chosen = {}
    for book in quire.books():
        model = ReaderViewModel(quire, book.id)
        model.open()
        chosen[book.title] = [model.vertical(w) for w in ("book", "vertical", "horizontal")]
    assert chosen == {"草枕": [True, True, False], "hongloumeng 120": [False, True, False],
                      "Alice's Adventures in Wonderland": [False, False, False]}  # fmt: skip


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)])
def test_vertical_pages_show_every_character_once_forward_and_back(books: Quire, size: tuple[int, int]) -> None:
    quire = books
    box = dataclasses.replace(page_box(Settings(layout="paginated"), *size, None, back_row=False), vertical=True)
    reader = ReaderViewModel(quire, 2)
    reader.open()
    reader.set_box(box)
    chapter = reader.toc()[2]  # 第三回: long paragraphs
    reader.go_to(chapter.locator)
    section = chapter.locator.section
    shown: dict[int, list[tuple[int, int]]] = {}
    starts = []
    while reader.current.locator.section == section:
        starts.append(reader.page_start)
        page = reader.page()
        columns_used = sum(len(columns(piece.text, box.per_column)) for piece in page)
        assert 0 < columns_used * box.column_pitch <= box.width  # what the page's width holds
        for piece in page:
            shown.setdefault(piece.segment.ordinal, []).append((piece.start, piece.end))
        reader.next_page()
    for segment in quire.text.section(2, section):
        pieces = sorted(shown[segment.ordinal])
        assert pieces[0][0] == 0 and pieces[-1][1] == len(segment.text), segment.locator
        assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces)), (segment.locator, pieces)
    assert len(starts) > 5 and any(start[1] > 0 for start in starts)  # pages end inside paragraphs, at a column
    back = []
    reader.previous_page()
    while reader.current.locator.section == section:
        back.append(reader.page_start)
        if reader.page_start == starts[0]:
            break
        reader.previous_page()
    assert back == starts[::-1]


def _columns(app) -> list[ft.Text]:
    """The vertical page's upright runs: Texts whose lines are single cells."""
    return [c for c in walk(app.page.controls) if isinstance(c, ft.Text) and c.on_selection_change
            and c.style is not None and c.style.height == CELL_HEIGHT]  # fmt: skip


def _select(text: ft.Text, first_line: int, last_line: int) -> None:
    """The reader drags over lines ``first_line`` to ``last_line`` of a column (a cell a line)."""
    drawn = text.value or "".join(s.text or "" for s in text.spans or [])
    lines = drawn.split("\n")
    base = sum(len(line) + 1 for line in lines[:first_line])
    extent = sum(len(line) + 1 for line in lines[: last_line + 1]) - (last_line == len(lines) - 1)
    text.on_selection_change(
        type("E", (), {"selection": type("S", (), {"base_offset": base, "extent_offset": extent})()})()
    )


def _select_across_two_columns(app, width: int) -> None:
    """Issue 61: a selection runs on from one column into the next (each column is its own text, so a drag stops at
    its foot): the foot of one column and then the head of the next are one selection, quoted in the bar, and
    highlighted whole; the other order too; a selection that does not touch the first is a new one."""
    reader = app.reader
    segment = next(
        p.segment for p in reader.page() if p.segment.kind == "paragraph" and len(p.text) > 2 * reader.box.per_column
    )
    runs = sorted(
        ((segment.text.index(t.semantics_label), t) for t in _columns(app) if t.semantics_label and t.semantics_label in segment.text),
        key=lambda pair: pair[0],
    )  # fmt: skip
    (_, first), (then, second) = next(
        (a, b) for a, b in itertools.pairwise(runs)
        if a[0] + len(a[1].semantics_label) == b[0] and len(a[1].semantics_label) > 3 and len(b[1].semantics_label) > 3
    )  # fmt: skip
    for order in ("forward", "backward"):
        app.reading.marking.select(-1, 0, 0)
        lines = len(first.semantics_label)
        steps = [(first, lines - 2, lines - 1), (second, 0, 1)]
        for text, a, b in steps if order == "forward" else reversed(steps):
            _select(text, a, b)
        selected = reader.notes.selection
        assert selected is not None and (selected.start, selected.end) == (then - 2, then + 2), (width, order, selected)
        assert selected.joined and selected.text == segment.text[then - 2 : then + 2]
        bar = next(c for c in walk(app.page.controls) if getattr(c, "key", None) == "selection-bar")
        quoted = [c for c in walk([bar]) if isinstance(c, ft.Text) and c.semantics_label]
        assert [q.semantics_label for q in quoted] == [selected.text], (width, order)
    _select(second, 2, 3)  # away from the selection: a new one
    assert (reader.notes.selection.start, reader.notes.selection.end) == (then + 2, then + 4)
    assert not reader.notes.selection.joined
    _select(first, lines - 2, lines - 1)  # joined, then the selection gone as a page turn leaves it: the part
    _select(second, 0, 1)  # selected before is continued no more
    assert reader.notes.selection.joined
    reader.notes.selection = None
    _select(second, 0, 1)
    assert not reader.notes.selection.joined and reader.notes.selection.start == then
    app.reading.marking.select(-1, 0, 0)  # the bar closed
    _select(first, lines - 1, lines - 1)  # the foot of the first again, then on into the second: joined again
    _select(second, 0, 2)
    app.reading.marking.highlight("green")
    (made,) = [h for h in app.quire.notes.highlights(1) if h.color == "green"]
    assert made.text == segment.text[then - 1 : then + 3]
    app.quire.notes.remove_highlight(made.id)


def test_the_reader_draws_columns_turns_leftward_and_marks_in_the_books_offsets(books: Quire) -> None:
    quire = books
    third = next(row for row in quire.text.toc(1) if row.title == "三")
    quire.save_position(1, third.locator, reading=False)

    async def scenario() -> None:
        for width in (1440, 390):
            session = await new_session(width, 844)
            app = start(quire, session)
            app.open_book(1)
            reader = app.reader
            assert reader.box is not None and reader.box.vertical  # the book says so: pages, from the right
            drawn = _columns(app)
            assert drawn, width
            for text in drawn:
                lines = (text.value or "".join(s.text or "" for s in text.spans or [])).split("\n")
                assert len(lines) <= reader.box.per_column + 1 and not any(ch in "、。「」" for ch in "".join(lines))
            first = reader.page_start
            await _key(session, "Arrow Left")  # the next page is to the left
            assert reader.page_start > first
            await _key(session, "Arrow Right")
            assert reader.page_start == first
            segment = next(p.segment for p in reader.page() if p.segment.kind == "paragraph" and len(p.text) > 20)
            text = next(t for t in _columns(app) if t.semantics_label and t.semantics_label in segment.text)
            offset = segment.text.index(text.semantics_label)
            text.on_selection_change(  # the column's 3rd to 5th characters: lines 3-5, a line break after each
                type("E", (), {"selection": type("S", (), {"base_offset": 4, "extent_offset": 9})()})()
            )
            selected = reader.notes.selection
            assert selected is not None and selected.ordinal == segment.ordinal
            assert (selected.start, selected.end) == (offset + 2, offset + 5)
            app.reading.marking.highlight("yellow")  # drawn on those three cells, in the column
            marked = [s.text.strip("\n") for t in _columns(app) for s in t.spans or [] if s.style and s.style.bgcolor]
            assert "".join(marked) == upright(segment.text[offset + 2 : offset + 5]), marked
            for highlight in quire.notes.highlights(1):
                quire.notes.remove_highlight(highlight.id)
            _select_across_two_columns(app, width)
            app.settings.writing = "horizontal"
            app.settings_changed()
            assert (reader.box is None or not reader.box.vertical) and not _columns(app)
            app.settings.writing = "book"
            app.settings_changed()

    run(scenario())
