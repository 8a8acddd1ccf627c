"""The first Flet page: its view-model, its controls, and the app starting in web mode."""

import urllib.request
from pathlib import Path

import flet as ft
import pytest
from conftest import book_path

from app.i18n import Translator
from app.screens.library.model import LibraryViewModel
from core.services import Quire
from main import parse_args


def _texts(control: ft.Control) -> list[str]:
    found = []
    stack = [control]
    while stack:
        item = stack.pop()
        if isinstance(item, ft.Text) and isinstance(item.value, str):
            found.append(item.value)
        if isinstance(item, ft.TextButton) and isinstance(item.content, str):
            found.append(item.content)
        for name in ("controls", "content", "title", "subtitle", "trailing", "leading"):
            child = getattr(item, name, None)
            if isinstance(child, list):
                stack.extend(child)
            elif isinstance(child, ft.Control):
                stack.append(child)
    return found


def test_view_model_rows_show_authors_progress_and_warnings(quire: Quire) -> None:
    model = LibraryViewModel(quire)
    model.refresh()
    assert model.rows() == [] and model.summary == "0 books"
    alice = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    kusamakura = quire.import_paths([book_path("ja/idpf-kusamakura-japanese-vertical-writing.epub")])[0].book
    quire.save_position(alice.id, "7.0")
    assert model.rows() == []  # what was read for the last drawing, until the next refresh
    model.refresh()
    rows = {row.book_id: row for row in model.rows()}
    assert rows[alice.id].subtitle == "Lewis Carroll" and rows[alice.id].badge == "EPUB · 41%"
    assert rows[kusamakura.id].subtitle == "夏目 漱石" and rows[kusamakura.id].warnings == "2 import warning(s)"
    assert rows[kusamakura.id].badge == "EPUB · New"
    assert model.summary == "2 books"


def test_every_edition_of_a_book_says_its_format_opened_or_not(quire: Quire) -> None:
    """The same book in four formats showed as four identical cards, AZW3 labelled "MOBI", and the format went
    once a book was opened (issue 25, item 12)."""
    names = ["en/epubjs-alice.epub", "formats/epubjs-alice.azw3", "formats/epubjs-alice.mobi",
             "formats/epubjs-alice.pdf", "formats/epubjs-alice.fb2"]  # fmt: skip
    books = [result.book for result in quire.import_paths([book_path(name) for name in names])]
    quire.save_position(books[1].id, "3.0")
    model = LibraryViewModel(quire)
    model.refresh()
    rows = {row.book_id: row for row in model.rows()}
    assert [rows[b.id].edition for b in books] == ["EPUB", "AZW3", "MOBI", "PDF", "FB2"]
    assert rows[books[1].id].badge.startswith("AZW3 · ") and rows[books[1].id].badge.endswith("%")  # opened
    assert len({rows[b.id].badge for b in books}) == 5  # no two cards alike


def test_main_arguments() -> None:
    args = parse_args(["--web", "--port", "8123", "--library", "/tmp/x"])
    assert (args.web, args.port, args.library) == (True, 8123, "/tmp/x")
    for blank in ("", "  "):  # once silently the default library
        with pytest.raises(SystemExit):
            parse_args(["--library", blank])


def test_app_serves_the_web_ui_offline(tmp_path: Path) -> None:
    from browserkit import app_server

    with app_server(tmp_path / "lib") as url, urllib.request.urlopen(url, timeout=10) as response:
        page = response.read()
    assert b"<html" in page.lower()
    assert b"flet.noCdn=true" in page  # CanvasKit and fonts served locally: works offline


def test_library_sorts_searches_filters_and_imports(quire: Quire) -> None:
    from platform_adapters.base import PickedFile

    model = LibraryViewModel(quire, Translator("en"))
    outcomes = model.import_files([
        PickedFile("alice.epub", data=book_path("en/epubjs-alice.epub").read_bytes()),
        PickedFile("broken.epub", data=b""),
        PickedFile("hlm.md", path=book_path("zh/hongloumeng_120.md")),
        PickedFile("again.epub", data=book_path("en/epubjs-alice.epub").read_bytes()),
    ])  # fmt: skip
    assert [o.ok for o in outcomes] == [True, False, True, True]
    assert outcomes[1].message == (
        "Could not import broken.epub: The file cannot be read as a book. Try another copy of it. "
        "(the file is empty: there is no book in it)"
    )
    assert outcomes[3].message == "Alice's Adventures in Wonderland is already in your library"

    def titles() -> list[str]:
        model.refresh()  # what the controller does before each drawing
        return [r.title for r in model.rows()]

    assert titles() == ["hlm", "Alice's Adventures in Wonderland"]  # most recent first
    model.sort = "title"
    assert titles() == ["Alice's Adventures in Wonderland", "hlm"]
    quire.save_position(1, "8.0")
    model.sort = "progress"
    assert titles()[0] == "Alice's Adventures in Wonderland"
    model.query = "carroll"
    assert titles() == ["Alice's Adventures in Wonderland"]
    model.query = ""
    quire.tag(2, "中文")
    model.tag = "中文"
    assert titles() == ["hlm"]
    model.tag = None
    assert model.remove_prompt(1) == "Remove “Alice's Adventures in Wonderland” and its notes?"
    zh = LibraryViewModel(quire, Translator("zh"))
    zh.refresh()
    assert zh.summary == "2 本书" and zh.remove_prompt(2) == "删除《hlm》及其笔记？"


def test_web_assets_serve_a_cut_cjk_font_first_and_the_full_one_after(tmp_path: Path) -> None:
    """The engine loads the client's font manifest before its first frame: the first CJK font (a 1.6 MB cut) is
    there, so Chinese is drawn at first paint (issue 39); the full 19 MB font is the page's, after the first frame,
    so the start does not wait for it (issue 60: 2.16 times a bare Flet app's start with it in the manifest)."""
    import json

    from app.look.fonts import CJK_ASSET, CJK_FIRST, CJK_FIRST_ASSET, CJK_FONT, READING_FONTS, cjk_font_file, web_assets

    cjk = cjk_font_file()
    assert cjk is not None and cjk.stat().st_size > 10_000_000  # noto-cjk-sans-otc is a dependency
    (tmp_path / "web" / "assets" / "fonts").mkdir(parents=True)
    (tmp_path / "web" / "assets" / CJK_ASSET).write_bytes(b"where the last version put it")
    folder, fonts = web_assets(tmp_path / "web")
    assert fonts == {**READING_FONTS, CJK_FONT: CJK_ASSET} and list(fonts)[-1] == CJK_FONT  # the last to load
    manifest = json.loads((folder / "assets" / "FontManifest.json").read_text(encoding="utf-8"))
    families = {entry["family"]: [font["asset"] for font in entry["fonts"]] for entry in manifest}
    assert families[CJK_FIRST] == [CJK_FIRST_ASSET] and "MaterialIcons" in families  # Flet's own fonts are kept
    assert CJK_FONT not in families
    first = folder / "assets" / CJK_FIRST_ASSET
    assert 500_000 < first.stat().st_size < 2_500_000 and not first.is_symlink()
    served = folder / CJK_ASSET
    assert served.stat().st_size == cjk.stat().st_size and not served.is_symlink()
    assert not (folder / "assets" / CJK_ASSET).exists()  # 19 MB not kept twice
    for asset in [*fonts.values(), "icon.png"]:
        assert (folder / asset).is_file() and not (folder / asset).is_symlink()
    copied = (
        served.stat().st_mtime_ns,
        first.stat().st_mtime_ns,
        (folder / "assets/FontManifest.json").stat().st_mtime_ns,
    )
    web_assets(tmp_path / "web")  # a second start copies and writes nothing
    assert (
        served.stat().st_mtime_ns,
        first.stat().st_mtime_ns,
        (folder / "assets/FontManifest.json").stat().st_mtime_ns,
    ) == copied


def test_the_first_cjk_font_holds_every_character_of_the_interface_and_the_common_ones() -> None:
    """The cut loaded before the first frame has a glyph for each character of both languages' interface strings,
    the 3,500 most used Chinese characters, kana and CJK punctuation (a new string with a character it lacks fails
    here: run ``python -m app.look.first_font``), and keeps the vertical forms for vertical text."""
    from fontTools.ttLib import TTFont

    from app.look.first_font import SC_FACE, characters
    from app.look.fonts import ASSETS, CJK_FIRST_ASSET, cjk_font_file

    source = TTFont(str(cjk_font_file()), fontNumber=SC_FACE, lazy=True).getBestCmap()
    font = TTFont(str(ASSETS / CJK_FIRST_ASSET), lazy=True)
    held = set(font.getBestCmap())
    missing = sorted(char for char in characters() if ord(char) not in held and ord(char) in source)
    assert not missing, f"not in the first CJK font: {''.join(missing[:40])} (run python -m app.look.first_font)"
    assert {ord(char) for char in "书库导入图书设置问问书库，。「」"} <= held
    features = {record.FeatureTag for record in font["GSUB"].table.FeatureList.FeatureRecord}
    assert "vert" in features


def test_recent_means_recently_read_then_recently_imported(quire: Quire, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: "Recent" sorted by import order, so the book just read stayed last."""
    import itertools

    import core.library.annotations

    minutes = itertools.count()  # a reading a minute apart (stamps are to the second)
    monkeypatch.setattr(core.library.annotations, "now", lambda: f"2026-12-03T06:{next(minutes):02d}:00+00:00")
    names = [
        "en/epubjs-alice.epub",
        "zh/hongloumeng_120.md",
        "en/idpf-childrens-literature.epub",
        "minimal/epubcheck-minimal.epub",
    ]
    ids = [r.book.id for r in quire.import_paths([book_path(name) for name in names])]
    model = LibraryViewModel(quire, Translator("en"))

    def order() -> list[int]:
        model.refresh()
        return [r.book_id for r in model.rows()]

    assert order() == ids[::-1]  # nothing read yet: the newest import first
    quire.save_position(ids[0], "8.0")  # read Alice, then 红楼梦
    quire.save_position(ids[1], "3.0")
    assert order() == [ids[1], ids[0], ids[3], ids[2]]
    quire.save_position(ids[0], "9.0")  # back to Alice: she comes first again
    assert order() == [ids[0], ids[1], ids[3], ids[2]]


def _images(control: ft.Control) -> list[ft.Image]:
    found, stack = [], [control]
    while stack:
        item = stack.pop()
        if isinstance(item, ft.Image):
            found.append(item)
        for name in ("controls", "content", "leading"):
            child = getattr(item, name, None)
            stack.extend(child if isinstance(child, list) else [child] if isinstance(child, ft.Control) else [])
    return found


@pytest.mark.parametrize("layout", ["grid", "list"])
def test_covers_are_sent_just_after_the_cards_and_at_once_when_drawn_again(quire: Quire, layout: str) -> None:
    """The first screen is the cards' text; the covers follow in batches (issue 26: 60 covers are ~2 MB and made the
    start 1.9 times a bare Flet app's). A coverless book keeps its coloured card; once read, the screen is drawn again
    (issue 36: nothing changes in place) and shows them, and a drawing after that has them at once."""
    import asyncio

    from app.screens.library.view import LibraryActions, PendingCovers, build_library_view

    names = ["en/epubjs-alice.epub", "formats/epubjs-alice.fb2", "formats/luxun-nahan.azw3"]
    books = [r.book for r in quire.import_paths([book_path(name) for name in names])]
    assert [b.has_cover for b in books] == [True, True, False]
    model = LibraryViewModel(quire)
    model.layout = layout
    model.refresh()
    queued: list = []
    redrawn: list[int] = []
    covers = PendingCovers()
    ids = [b.id for b in books]

    def actions() -> LibraryActions:
        nothing = lambda: None  # noqa: E731
        return LibraryActions(nothing, nothing, nothing, lambda screen: None, nothing,
                              drawn_again=lambda: redrawn.append(sum(map(model.cover_is_read, ids))), later=queued.append)  # fmt: skip

    view = build_library_view(model, actions(), Translator("en"), covers=covers)
    assert _images(view) == [] and len(queued) == 1  # the cards first, each with its placeholder
    assert _images(build_library_view(model, actions(), Translator("en"), covers=covers)) == [] and len(queued) == 1
    asyncio.run(queued.pop()())
    assert redrawn == [2]  # one batch read (both covers), then the screen drawn again
    again = build_library_view(model, actions(), Translator("en"), covers=covers)
    shown = _images(again)
    assert len(shown) == 2 and all(isinstance(i.src, bytes) and len(i.src) > 1000 for i in shown)
    assert len(_images(again)) == 2 and queued == []  # read once: drawn again, the covers come with the cards
