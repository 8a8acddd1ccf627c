"""Issue 61 item 2: an X-Ray the reader corrects (hide, merge, rename, kind, add), kept per book through a new import
and a better finder, synced between libraries, and from the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import book_path

from app.cli import main
from core import Quire, XrayCorrectionError
from core.companion import xray as xray_module
from core.sync.wire import checked

ALICE = book_path("en/epubjs-alice.epub")


def names(quire: Quire, book: int, **options: bool) -> dict[str, tuple[str, int, tuple[str, ...]]]:
    return {e.name: (e.kind, e.mentions, e.variants) for e in quire.companion.xray(book, **options)}


def read_to_end_of(quire: Quire, book: int, chapter: str) -> None:
    """The furthest place: the last paragraph of the chapter titled ``chapter``."""
    toc = quire.text.toc(book)
    after = next(row for i, row in enumerate(toc[:-1]) if toc[i - 1].title == chapter)
    ordinal = quire.text.ordinal_of(book, after.locator) - 1
    place = quire.text.segments(book, ordinal, 1)[0].locator
    quire.save_position(book, place, reading=False)
    quire.set_furthest(book, place)


def test_hide_merge_rename_kind_and_add_change_what_xray_shows(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    book = quire.import_paths([ALICE])[0].book.id
    found = names(quire, book, spoilers=True)
    assert {"Alice", "Dinah", "Hatter", "Queen", "Duchess", "White Rabbit"} <= set(found)
    assert "Cook" not in found and found["Hatter"][0] == "person"

    quire.companion.correct(book, "dinah", hide=True)  # case and spacing aside
    quire.companion.correct(book, "The  Duchess", into="Queen")  # by one of its other names
    quire.companion.correct(book, "Queen", rename="Queen of Hearts")
    quire.companion.correct(book, "Hatter", kind="term")
    quire.companion.correct(book, "Cook", add=True)
    shown = names(quire, book, spoilers=True)
    assert "Dinah" not in shown and "Duchess" not in shown and "Queen" not in shown
    _, mentions, variants = shown["Queen of Hearts"]
    assert mentions == found["Queen"][1] + found["Duchess"][1] and {"Queen", "Duchess", "the Duchess"} <= set(variants)
    assert shown["Hatter"][0] == "term"
    assert shown["Cook"][1] >= 2 and shown["Cook"][0] == "person"  # found in the text, its kind by its company
    merged = next(e for e in quire.companion.xray(book, spoilers=True) if e.name == "Queen of Hearts")
    assert merged.first.ordinal == min(m.ordinal for m in merged.places)  # the Duchess came first: her mention
    assert [m.ordinal for m in merged.places] == sorted(m.ordinal for m in merged.places)

    quire.companion.correct(book, "Hatter", hide=True)  # a second word on a name keeps the first
    said = {c.name: c for c in quire.companion.corrections(book)}
    assert said["Hatter"].hide and said["Hatter"].kind == "term"
    assert quire.companion.forget_correction(book, "DINAH") and not quire.companion.forget_correction(book, "Dinah")
    assert "Dinah" in names(quire, book, spoilers=True)


def test_a_correction_that_cannot_be_kept_is_a_typed_error(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    book = quire.import_paths([ALICE])[0].book.id
    for bad in ({"kind": "robot"}, {"into": "alice"}):
        with pytest.raises(XrayCorrectionError):
            quire.companion.correct(book, "Alice", **bad)  # type: ignore[arg-type]
    with pytest.raises(XrayCorrectionError):
        quire.companion.correct(book, "   ", hide=True)
    assert quire.companion.corrections(book) == []  # nothing half kept


def test_an_added_name_shows_only_once_read_and_with_no_mention_past_the_place(tmp_path: Path) -> None:
    """The fence holds for the reader's own names: the cook is first met in "Pig and Pepper", and met again after."""
    quire = Quire(tmp_path / "lib")
    book = quire.import_paths([ALICE])[0].book.id
    quire.companion.correct(book, "Cook", add=True)
    read_to_end_of(quire, book, "Advice From A Caterpillar")
    assert "Cook" not in names(quire, book)
    read_to_end_of(quire, book, "Pig And Pepper")
    fence = quire.position(book).furthest_ordinal
    entry = next(e for e in quire.companion.xray(book) if e.name == "Cook")
    assert entry.places and all(m.ordinal <= fence for m in entry.places)
    assert entry.mentions < next(e for e in quire.companion.xray(book, spoilers=True) if e.name == "Cook").mentions


def test_corrections_outlive_a_new_import_of_the_book_and_a_better_finder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quire = Quire(tmp_path / "lib")
    book = quire.import_paths([ALICE])[0].book.id
    quire.companion.correct(book, "Dinah", hide=True)
    quire.companion.correct(book, "Hatter", kind="place")
    quire.remove(book)
    assert quire.books() == []
    again = quire.import_paths([ALICE])[0].book.id
    shown = names(quire, again, spoilers=True)
    assert "Dinah" not in shown and shown["Hatter"][0] == "place"
    monkeypatch.setattr(xray_module, "SCAN_VERSION", xray_module.SCAN_VERSION + 1)  # a new finder: scanned again
    assert quire.companion.xray_needs_scan(again, spoilers=True)
    shown = names(quire, again, spoilers=True)
    assert "Dinah" not in shown and shown["Hatter"][0] == "place"


def test_corrections_sync_between_two_libraries_and_a_taken_back_one_goes_everywhere(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    phone, desk = Quire(tmp_path / "phone"), Quire(tmp_path / "desk")
    for quire in (phone, desk):
        quire.import_paths([ALICE])
        quire.sync.setup(str(shared))
    phone.companion.correct(1, "Dinah", hide=True)
    phone.companion.correct(1, "Bill", rename="Bill the Lizard")
    phone.companion.correct(1, "Cook", add=True, kind="term")
    phone.sync.run()
    desk.sync.run()
    shown = names(desk, 1, spoilers=True)
    assert "Dinah" not in shown and "Bill the Lizard" in shown and shown["Cook"][0] == "term"
    assert names(desk, 1, spoilers=True) == names(phone, 1, spoilers=True)
    desk.companion.forget_correction(1, "Dinah")
    desk.sync.run()
    phone.sync.run()
    assert "Dinah" in names(phone, 1, spoilers=True)
    assert [c.name for c in phone.companion.corrections(1)] == ["Bill", "Cook"]


def test_a_synced_correction_of_the_wrong_shape_is_refused() -> None:
    key = "xray/" + "a" * 64 + "/dinah"
    good = {"present": True, "name": "Dinah", "hide": True, "into": "", "rename": "", "kind": "", "add": False}
    assert checked(key, "000000000000001-000000", "phone1", good).value["hide"] is True
    for bad in ({**good, "kind": "robot"}, {**good, "name": ""}, {**good, "rename": "x" * 1000}):
        with pytest.raises(ValueError):
            checked(key, "000000000000001-000000", "phone1", bad)


def test_quire_xray_corrects_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    assert main(["import", str(ALICE), *lib]) == 0
    capsys.readouterr()
    code = main(["xray", "1", "--spoilers", "--hide", "Dinah", "--merge", "Queen", "Duchess", "--rename", "King",
                 "King of Hearts", "--kind", "Hatter", "term", "--add", "Cook", *lib])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "Hidden: Dinah" in out and "Merged: Duchess is Queen." in out
    listed = {line.split("[")[0].strip().split("  ")[-1].split(" (also")[0] for line in out.splitlines() if "[" in line}
    assert {"Queen", "King of Hearts", "Cook"} <= listed and not {"Dinah", "Duchess", "King"} & listed
    assert "Hatter  [term" in out
    assert main(["xray", "1", "--corrections", "--json", *lib]) == 0
    said = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert said["Duchess"]["into"] == "Queen" and said["Cook"]["add"] and said["Hatter"]["kind"] == "term"
    assert main(["xray", "1", "--kind", "Alice", "robot", *lib]) == 1
    err = capsys.readouterr().err
    assert "person, place or term" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["xray", "1", "--forget", "Dinah", "--spoilers", *lib]) == 0
    assert "Dinah  [" in capsys.readouterr().out


def test_quire_xray_ends_with_the_fences_receipt(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 61 item 4: X-Ray says what text it could use, as an answer does (none with --spoilers)."""
    lib = ["--library", str(tmp_path / "lib")]
    quire = Quire(tmp_path / "lib")
    quire.import_paths([ALICE])
    quire.save_position(1, "5.10")
    read = quire.position(1)
    quire.close()
    capsys.readouterr()
    assert main(["xray", "1", *lib]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[-1]
        == f"(Used the book up to {read.furthest}, {round(read.furthest_percent, 1):g}%: where you have read to.)"
    )
    assert main(["xray", "1", "--spoilers", *lib]) == 0
    assert "Used the book" not in capsys.readouterr().out
