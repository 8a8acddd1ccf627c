"""Reading position, bookmarks, highlights with notes, tags, and export, through the facade."""

import json

import pytest
from conftest import book_path
from dbkit import inside

from core.errors import LocatorError, QuireError
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture
def alice(quire: Quire) -> int:
    return quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id


def test_position_is_saved_with_percent_and_reading_time(quire: Quire, alice: int) -> None:
    assert quire.position(alice) is None
    first = quire.save_position(alice, "3.2", read_seconds=30)
    second = quire.save_position(alice, "12.5:10", read_seconds=45.5)
    assert str(second.locator) == "12.5:10"
    assert second.reading_seconds == pytest.approx(75.5)
    assert 0 < first.percent < second.percent <= 100
    assert quire.position(alice).locator == second.locator
    last = quire.book(alice).segment_count - 1
    segments = quire.text.show(alice, "0.0", last + 1)
    assert quire.save_position(alice, segments[-1].locator).percent == 100.0


def test_bookmarks_in_reading_order_with_default_labels(quire: Quire, alice: int) -> None:
    quire.notes.add_bookmark(alice, "5.3", "Caucus race")
    quire.notes.add_bookmark(alice, "3.0")
    marks = quire.notes.bookmarks(alice)
    assert [str(m.locator) for m in marks] == ["3.0", "5.3"]
    assert marks[0].label == "Down The Rabbit-Hole" and marks[1].label == "Caucus race"
    with pytest.raises(LocatorError):
        quire.notes.add_bookmark(alice, "99.0")


def test_highlight_across_segments_keeps_exact_text_and_note(quire: Quire, alice: int) -> None:
    first, second = quire.text.show(alice, "3.2", 2)
    highlight = quire.notes.add_highlight(alice, "3.2:6", "3.3:8", color="blue", note="Alice is bored")
    assert highlight.text == first.text[6:] + "\n" + second.text[:8]
    updated = quire.notes.update_highlight(highlight.id, note="changed", color="pink")
    assert (updated.note, updated.color) == ("changed", "pink")
    with pytest.raises(QuireError, match="choose one of"):
        quire.notes.add_highlight(alice, "3.2", color="octarine")
    with pytest.raises(LocatorError, match="before it starts"):
        quire.notes.add_highlight(alice, "3.3", "3.2")


def test_export_markdown_reads_well_and_json_round_trips(quire: Quire, alice: int) -> None:
    quire.notes.add_highlight(alice, "4.1", note="The pool")
    quire.notes.add_highlight(alice, "3.2", color="green")
    quire.notes.add_bookmark(alice, "6.0", "Bill")
    markdown = quire.notes.export(alice, "md")
    assert markdown.startswith('---\ntitle: "Alice\'s Adventures in Wonderland"')
    down, pool = markdown.index("## Down The Rabbit-Hole"), markdown.index("## The Pool Of Tears")
    assert down < pool  # reading order, grouped by chapter
    assert "**Note:** The pool" in markdown and "- `6.0` Bill" in markdown
    assert "\n> Alice was beginning" in markdown
    payload = json.loads(quire.notes.export(alice, "json"))
    assert [h["start"] for h in payload["highlights"]] == ["3.2", "4.1"]
    assert payload["bookmarks"][0]["label"] == "Bill"
    with pytest.raises(QuireError, match="md or json"):
        quire.notes.export(alice, "pdf")


def test_tags_filter_the_library(quire: Quire, alice: int) -> None:
    moby = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    quire.tag(moby, "whales")
    assert [b.id for b in quire.books(tag="whales")] == [moby]
    assert {b.id for b in quire.books()} == {alice, moby}
    assert quire.book(moby).tags == ["whales"]


def test_removing_a_book_removes_its_annotations(quire: Quire, alice: int) -> None:
    quire.notes.add_highlight(alice, "3.2")
    quire.notes.add_bookmark(alice, "3.2")
    quire.save_position(alice, "3.2")
    quire.remove(alice)
    for table in ("highlights", "bookmarks", "positions"):
        assert inside(quire).library.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0


def test_the_furthest_place_only_moves_forward_by_reading_and_back_on_purpose(quire: Quire, alice: int) -> None:
    quire.save_position(alice, "3.2")
    far = quire.save_position(alice, "11.5:10")  # read on to section 11
    back = quire.save_position(alice, "4.0", reading=False)  # a jump back: the contents, a citation
    assert (str(back.locator), str(back.furthest)) == ("4.0", "11.5:10")
    assert back.percent < back.furthest_percent == far.percent and back.furthest_ordinal == far.ordinal
    ahead = quire.save_position(alice, "12.0", reading=False)  # a jump ahead is not reading either
    assert str(ahead.furthest) == "11.5:10"
    assert str(quire.save_position(alice, "4.1").furthest) == "11.5:10"  # reading on from a place behind it
    moved = quire.set_furthest(alice, "8.0")  # "I haven't read past here", with the reader at 4.1
    assert (str(moved.furthest), str(moved.locator)) == ("8.0", "4.1")
    lowered = quire.set_furthest(alice, "2.0")  # the current place cannot stay past the furthest
    assert str(lowered.furthest) == str(lowered.locator) == "2.0"
    assert quire.position(alice).to_dict()["current"] == "2.0" and quire.position(alice).to_dict()["furthest"] == "2.0"


def test_a_first_jump_reads_nothing(quire: Quire, alice: int) -> None:
    jumped = quire.save_position(alice, "9.0", reading=False)  # opened, then straight to a chapter from the contents
    assert jumped.furthest is None and jumped.furthest_ordinal == -1 and jumped.furthest_percent == 0.0
    with pytest.raises(LocatorError):
        quire.set_furthest(alice, "999.0")
