"""KOReader's highlights into Quire (issue 41): sidecars written as KOReader writes them, and hostile ones."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import book_path

from app.cli import main
from core.koreader.document import EpubPointers, partial_md5
from core.koreader.lua import MAX_DEPTH, SidecarError, parse_sidecar
from core.services import Quire

pytestmark = pytest.mark.storage


def _lua(value: object, indent: int = 0) -> str:
    """A value as KOReader's dump.lua writes it: ``["key"] = value,`` lines, strings as Lua's %q gives them."""
    pad = "    " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}[{_lua(k)}] = {_lua(v, indent + 1)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + "\n" + "    " * indent + "}"
    if isinstance(value, list):
        return _lua({i + 1: v for i, v in enumerate(value)}, indent)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\\n").replace("\r", "\\r")
    return f'"{text}"'


def _sidecar(book: Path, table: dict) -> Path:
    folder = book.with_suffix(".sdr")
    folder.mkdir(exist_ok=True)
    path = folder / f"metadata{book.suffix}.lua"
    path.write_text(f"-- {book.name}\nreturn {_lua(table)}\n", encoding="utf-8")
    return path


@pytest.fixture
def reader_folder(tmp_path: Path) -> Path:
    """An e-reader's books folder: Moby-Dick as KOReader keeps it, with two highlights (one with a note)."""
    folder = tmp_path / "Books"
    folder.mkdir()
    book = folder / "moby-dick.epub"
    shutil.copyfile(book_path("en/idpf-moby-dick.epub"), book)
    pointers = EpubPointers(book.read_bytes())
    loomings = "Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse"
    chapter = next(href for href in pointers.spine if href and "chapter_001" in href)
    start = pointers.xpointer(chapter, loomings, 0)
    annotations = [
        {"chapter": "Chapter 1. Loomings.", "color": "yellow", "datetime": "2026-11-30 21:04:11",
         "drawer": "lighten", "note": "The first line.\nA famous one.", "page": start, "pos0": start,
         "pos1": start.replace(".0", ".16") if start else "", "text": "Call me Ishmael."},
        {"chapter": "Chapter 1. Loomings.", "color": "red", "datetime": "2026-11-30 21:05:00", "drawer": "underscore",
         "page": start, "pos0": start, "pos1": start, "text": "having little or no money in my purse"},
        {"chapter": "Chapter 1. Loomings.", "datetime": "2026-11-30 21:06:00", "page": start},  # a bookmark
    ]  # fmt: skip
    _sidecar(book, {
        "annotations": annotations,
        "doc_props": {"authors": "Herman Melville", "title": "Moby-Dick", "language": "en"},
        "partial_md5_checksum": partial_md5(book),
        "percent_finished": 0.012,
        "summary": {"status": "reading", "modified": "2026-11-30"},
        "cre_dom_version": [20240114],
    })  # fmt: skip
    return folder


def test_koreaders_highlights_and_notes_come_in_once_and_a_deleted_one_stays_deleted(
    quire: Quire, reader_folder: Path
) -> None:
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    [result] = quire.koreader.import_highlights(reader_folder)
    assert (result.book_id, result.added, result.kept, result.left_out, result.problem) == (book, 2, 0, 0, "")
    highlights = {h.text: h for h in quire.notes.highlights(book)}
    assert set(highlights) == {"Call me Ishmael.", "having little or no money in my purse"}  # Quire's own text
    assert highlights["Call me Ishmael."].note == "The first line.\nA famous one."
    assert highlights["having little or no money in my purse"].color == "pink"  # KOReader's red, as near as Quire has
    [again] = quire.koreader.import_highlights(reader_folder)
    assert (again.added, again.kept) == (0, 2) and len(quire.notes.highlights(book)) == 2  # never twice
    quire.notes.remove_highlight(highlights["having little or no money in my purse"].id)
    [third] = quire.koreader.import_highlights(reader_folder)
    assert (third.added, third.kept, third.left_out) == (0, 1, 1)  # deleted in Quire: not brought back
    assert [h.text for h in quire.notes.highlights(book)] == ["Call me Ishmael."]


def test_a_book_is_found_by_its_title_when_its_file_differs(quire: Quire, reader_folder: Path) -> None:
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    sidecar = next(reader_folder.rglob("metadata.epub.lua"))
    text = sidecar.read_text(encoding="utf-8")
    sidecar.write_text(text.replace('["partial_md5_checksum"] = "', '["partial_md5_checksum"] = "0'), encoding="utf-8")
    [result] = quire.koreader.import_highlights(reader_folder)
    assert result.book_id == book and result.added == 2


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda t: t[: len(t) // 2], "cut short"),
        (lambda t: t.replace('["doc_props"] = {', '["doc_props"] = os.execute("rm -rf ~") or {'), "where a value"),
        (lambda t: "return " + "{" * (MAX_DEPTH + 5) + "}" * (MAX_DEPTH + 5), "nested deeper"),
        (lambda t: "return " + " " * (9 * 1024 * 1024) + "{}", "over 8 MB"),
        (lambda t: 'return "just a string"', "does not return a table"),
    ],
)
def test_a_hostile_sidecar_gets_one_line_and_nothing_is_written(
    quire: Quire, reader_folder: Path, damage, says: str
) -> None:
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    sidecar = next(reader_folder.rglob("metadata.epub.lua"))
    sidecar.write_text(damage(sidecar.read_text(encoding="utf-8")), encoding="utf-8")
    [result] = quire.koreader.import_highlights(reader_folder)
    assert result.problem.startswith("not read:") and says in result.problem and "\n" not in result.problem
    assert quire.notes.highlights(book) == []


def test_wrong_types_inside_a_sidecar_leave_those_entries_out(quire: Quire, reader_folder: Path) -> None:
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    sidecar = next(reader_folder.rglob("metadata.epub.lua"))
    table = parse_sidecar(sidecar.read_text(encoding="utf-8"))
    table["annotations"] = [5, "text", {"text": 7}, {"text": ["a"]}, *table["annotations"][:1], {"pos0": {}}]
    table["doc_props"] = "not a table"
    _sidecar(reader_folder / "moby-dick.epub", table)
    [result] = quire.koreader.import_highlights(reader_folder)
    assert result.problem == "" and result.added == 1 and result.left_out == 2  # a text of 7 and of ["a"]
    assert [h.text for h in quire.notes.highlights(book)] == ["Call me Ishmael."]


def test_the_lua_reader_takes_what_dump_lua_writes_and_runs_nothing() -> None:
    table = parse_sidecar('-- comment\nreturn {\n  ["a"] = "x\\\ny \\"q\\" \\228\\184\\173",\n  [1] = 1.5, b = -2, '
                          '["c"] = { true, false, nil, 0x10 }, --[[ block ]] ["d"] = {},\n}\n')  # fmt: skip
    assert table == {"a": 'x\ny "q" 中', 1: 1.5, "b": -2, "c": [True, False, None, 16], "d": {}}
    for hostile in ("return { a = b }", "return { [f()] = 1 }", "return {} ; os.exit()", "return { 'a' .. 'b' }"):
        with pytest.raises(SidecarError):
            parse_sidecar(hostile)


def test_quire_koreader_import_says_what_each_sidecar_gave(
    quire: Quire, reader_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quire.import_paths([book_path("en/idpf-moby-dick.epub")])
    quire.close()
    stranger = reader_folder / "unknown.epub"
    shutil.copyfile(book_path("en/epubjs-alice.epub"), stranger)
    _sidecar(stranger, {"doc_props": {"title": "Nobody's Book"}, "annotations": []})
    library = ["--library", str(tmp_path / "quire")]
    assert main([*library, "koreader", "import", str(reader_folder)]) == 0
    out = capsys.readouterr().out
    assert "Moby-Dick: 2 added, 0 already here, 0 left out" in out and "no book in the library matches it" in out
    assert main([*library, "koreader", "import", str(reader_folder), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["title"], r["kept"]) for r in rows if not r["problem"]] == [("Moby-Dick", 2)]
    assert main([*library, "koreader", "import", str(tmp_path / "missing")]) == 1
    assert "is not a folder" in capsys.readouterr().err


# --- Quire's highlights into KOReader's sidecars (quire koreader export) ---

GRIM = "growing grim about the mouth"


def _at(quire: Quire, book: int, words: str) -> tuple[str, str]:
    """The start and end locators of ``words`` in the first paragraph holding them."""
    for segment in quire.text.segments(book, 0, 5000):
        at = segment.text.find(words)
        if at >= 0:
            place = segment.locator
            return str(place.at(at)), str(place.at(at + len(words)))
    raise AssertionError(f"{words!r} is not in the book")


def _marked(quire: Quire) -> int:
    """Moby-Dick with two highlights of Quire's: one with a note on KOReader's first, one KOReader lacks."""
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    quire.notes.add_highlight(book, *_at(quire, book, "Call me Ishmael."), color="green", note="Quire's note")
    quire.notes.add_highlight(book, *_at(quire, book, GRIM), color="pink", note='Line one.\nLine "two" \\ 二')
    return book


def test_quires_highlights_go_into_koreaders_sidecar_beside_its_own_and_nothing_else_changes(
    quire: Quire, reader_folder: Path
) -> None:
    _marked(quire)
    sidecar = next(reader_folder.rglob("metadata.epub.lua"))
    before_text = sidecar.read_text(encoding="utf-8")
    before = parse_sidecar(before_text)
    [result] = quire.koreader.export_highlights(reader_folder)
    assert (result.sidecar, result.added, result.kept, result.left_out, result.problem) == (str(sidecar), 1, 1, 0, "")
    after = parse_sidecar(sidecar.read_text(encoding="utf-8"))
    for key in ("doc_props", "partial_md5_checksum", "percent_finished", "summary", "cre_dom_version"):
        assert after[key] == before[key]  # KOReader's settings, as they were
    assert after["annotations"][1:3] == before["annotations"][1:3]  # its own highlight (underscore, red) and bookmark
    first = after["annotations"][0]
    assert {k: v for k, v in first.items() if k != "note"} == {k: v for k, v in before["annotations"][0].items()
                                                               if k != "note"}  # fmt: skip
    assert first["note"] == before["annotations"][0]["note"]  # KOReader's own note is not replaced by Quire's
    new = after["annotations"][3]
    xpointer = "/body/DocFragment[7]/body/section/p[1]/span[4]/text()"
    start = len("Whenever I find myself ")  # the fourth sentence's span: its words, counted in its own text node
    assert (new["pos0"], new["pos1"]) == (f"{xpointer}.{start}", f"{xpointer}.{start + len(GRIM)}")
    assert (new["page"], new["text"], new["color"], new["drawer"]) == (new["pos0"], GRIM, "red", "lighten")
    assert new["note"] == 'Line one.\nLine "two" \\ 二' and new["chapter"] == "Chapter 1. Loomings."
    assert after["annotations_externally_modified"] is True  # KOReader re-numbers and re-sorts them on opening
    assert sidecar.with_name(sidecar.name + ".old").read_text(encoding="utf-8") == before_text  # KOReader's fallback


def test_a_sidecar_written_by_export_reads_back_with_nothing_lost_or_doubled(quire: Quire, tmp_path: Path) -> None:
    book = _marked(quire)
    folder = tmp_path / "Kobo"
    folder.mkdir()
    shutil.copyfile(book_path("en/idpf-moby-dick.epub"), folder / "Moby Dick.epub")
    [result] = quire.koreader.export_highlights(folder)
    assert (result.added, result.kept, result.problem) == (2, 0, "")
    assert result.sidecar == str(folder / "Moby Dick.sdr" / "metadata.epub.lua")  # where KOReader looks for it
    written = parse_sidecar(Path(result.sidecar).read_text(encoding="utf-8"))
    assert written["partial_md5_checksum"] == partial_md5(folder / "Moby Dick.epub")
    [again] = quire.koreader.import_highlights(folder)
    assert (again.book_id, again.added, again.kept, again.left_out) == (book, 0, 2, 0)  # no doubles here
    elsewhere = Quire(tmp_path / "another")
    try:
        other = elsewhere.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
        [there] = elsewhere.koreader.import_highlights(folder)
        assert (there.added, there.left_out) == (2, 0)
        mine = {(h.start, h.end, h.text, h.note, h.color) for h in quire.notes.highlights(book)}
        theirs = {(h.start, h.end, h.text, h.note, h.color) for h in elsewhere.notes.highlights(other)}
        assert theirs == mine  # every span, word, note and colour through KOReader's file
    finally:
        elsewhere.close()
    assert [r.added for r in quire.koreader.export_highlights(folder)] == [0]  # the second time: nothing new


def test_a_highlight_deleted_on_the_e_reader_is_not_sent_again(quire: Quire, reader_folder: Path) -> None:
    _marked(quire)
    sidecar = next(reader_folder.rglob("metadata.epub.lua"))
    quire.koreader.export_highlights(reader_folder)
    table = parse_sidecar(sidecar.read_text(encoding="utf-8"))
    table["annotations"] = [a for a in table["annotations"] if a.get("text") != GRIM]  # the reader deletes it there
    _sidecar(reader_folder / "moby-dick.epub", table)
    [result] = quire.koreader.export_highlights(reader_folder)
    assert (result.added, result.kept, result.left_out) == (0, 1, 1)
    assert GRIM not in sidecar.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda t: t[: len(t) // 2], "not read: "),
        (lambda t: t.replace('["annotations"]', '["highlight"]'), "older than 2024.07"),
        (lambda t: t.replace('["page"] = "/body', '["page"] = 3, ["x"] = "/body'), "paged document"),
    ],
)
def test_a_sidecar_export_cannot_merge_into_is_left_as_it_was(
    quire: Quire, reader_folder: Path, damage, says: str
) -> None:
    _marked(quire)
    sidecar = next(reader_folder.rglob("metadata.epub.lua"))
    sidecar.write_text(damage(sidecar.read_text(encoding="utf-8")), encoding="utf-8")
    before = sidecar.read_bytes()
    [result] = quire.koreader.export_highlights(reader_folder)
    assert says in result.problem and "\n" not in result.problem and result.added == 0
    assert sidecar.read_bytes() == before and list(sidecar.parent.iterdir()) == [sidecar]


def test_a_sidecar_in_koreaders_own_folder_is_found_by_its_checksum(quire: Quire, reader_folder: Path) -> None:
    _marked(quire)
    book = reader_folder / "moby-dick.epub"
    hashed = reader_folder / "koreader" / "hashdocsettings" / "ab" / f"{partial_md5(book)}.sdr"
    hashed.mkdir(parents=True)
    (book.with_suffix(".sdr") / "metadata.epub.lua").rename(hashed / "metadata.epub.lua")
    book.rename(reader_folder / "elsewhere.bin")  # the book file itself is not under the folder given
    [result] = quire.koreader.export_highlights(reader_folder)
    assert result.sidecar == str(hashed / "metadata.epub.lua") and result.added == 1


def test_quire_koreader_export_says_what_each_sidecar_received(
    quire: Quire, reader_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _marked(quire)
    quire.close()
    library = ["--library", str(tmp_path / "quire")]
    assert main([*library, "koreader", "export", str(reader_folder)]) == 0
    assert "Moby-Dick: 1 added, 1 already there, 0 left out" in capsys.readouterr().out
    assert main([*library, "koreader", "export", str(reader_folder), "--json"]) == 0
    assert [(r["added"], r["kept"]) for r in json.loads(capsys.readouterr().out)] == [(0, 2)]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*library, "koreader", "export", str(empty)]) == 0
    assert "No book with highlights" in capsys.readouterr().out


def test_settings_bring_koreaders_highlights_in_write_quires_out_and_send_them_to_readwise(
    quire: Quire, reader_folder: Path
) -> None:
    """Settings › Highlights elsewhere, as a reader uses it: the folder typed, Import, Export, then Readwise."""
    import asyncio

    from fletkit import clickable, fire, new_session, texts, type_into, walk
    from readwisekit import ReadwiseServer

    from app.shell import QuireApp
    from platform_adapters.memory import MemorySecrets

    book = _marked(quire)

    async def click(session, app: QuireApp, label: str) -> str:
        told = asyncio.Event()  # the work runs in a worker thread; the app says so when it is done
        shown = app.notify
        app.notify = lambda text: (shown(text), told.set())  # type: ignore[method-assign]
        try:
            await fire(session, clickable(app.page.controls, label))
            await asyncio.wait_for(told.wait(), timeout=20)
        finally:
            del app.notify
        return app.message

    async def scenario(server: ReadwiseServer) -> None:
        session = await new_session(1440)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.preferences.travel.readwise_url = server.url
        app.render()
        await fire(session, clickable(app.page.controls, "Settings"))
        [folder] = [c for c in walk(app.page.controls) if getattr(c, "label", None) == "KOReader's books folder"]
        await type_into(session, folder, str(reader_folder))
        said = await click(session, app, "Import highlights")
        assert said == "From KOReader: 1 highlight added, from 1 book."
        assert len(quire.notes.highlights(book)) == 3  # KOReader's "having little…" joined Quire's two
        assert app.settings.koreader_folder == str(reader_folder)  # remembered for the next time
        said = await click(session, app, "Export highlights")
        assert said == "To KOReader: 1 highlight written, into 1 book."
        [token] = [c for c in walk(app.page.controls) if getattr(c, "label", None) == "Readwise access token"]
        await type_into(session, token, "good-token")
        said = await click(session, app, "Connect and send")
        assert said == "Sent to Readwise: 3 highlights, of 1 book; 0 there already." and len(server.highlights) == 3
        assert "Send new highlights" in texts(app.page.controls)
        await fire(session, clickable(app.page.controls, "Turn off Readwise"))
        assert quire.readwise.settings() is None and "Connect and send" in texts(app.page.controls)

    with ReadwiseServer() as server:
        asyncio.run(scenario(server))


def test_a_selection_that_took_a_space_either_side_still_meets_its_koreader_twin(quire: Quire, tmp_path: Path) -> None:
    """Found running the command by hand: a highlight ending in a space was written out, then read back as another
    highlight (KOReader's placed by its words, without the space), and the next export took it for deleted there."""
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    start, end = _at(quire, book, "Call me Ishmael. ")
    quire.notes.add_highlight(book, start, end, note="with its space")
    folder = tmp_path / "Kobo"
    folder.mkdir()
    shutil.copyfile(book_path("en/idpf-moby-dick.epub"), folder / "moby.epub")
    assert [r.added for r in quire.koreader.export_highlights(folder)] == [1]
    [back] = quire.koreader.import_highlights(folder)
    assert (back.added, back.kept) == (0, 1) and len(quire.notes.highlights(book)) == 1  # not doubled
    [again] = quire.koreader.export_highlights(folder)
    assert (again.added, again.kept, again.left_out) == (0, 1, 0)  # the same highlight, not one deleted there
