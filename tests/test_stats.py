"""Reading statistics (issue 29): time, characters read on and sessions per book and day, counted as places are
saved; speeds and time left; synced between devices without counting anything twice; quire stats."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import book_path
from dbkit import inside

from app.cli import main as cli
from core import Quire
from core.library.stats import today

pytestmark = pytest.mark.storage  # a new table and its sync records: CI runs them again on apsw


def _turn(quire: Quire, book: int, ordinal: int, seconds: float, reading: bool = True) -> None:
    quire.save_position(book, quire.text.segments(book, ordinal, 1)[0].locator, read_seconds=seconds, reading=reading)


def _chars(quire: Quire, book: int, after: int, upto: int) -> int:
    return sum(len(s.text) for s in quire.text.segments(book, after + 1, upto - after) if s.kind != "image")


def test_reading_adds_time_characters_and_sessions_and_a_jump_adds_no_characters(quire: Quire) -> None:
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    _turn(quire, book, 20, 0)  # opened here: nothing read yet
    _turn(quire, book, 26, 45)  # a page turn: six paragraphs read in 45 s
    _turn(quire, book, 31, 40)
    _turn(quire, book, 200, 5, reading=False)  # a jump: its time counts, its paragraphs were not read
    stats = quire.stats.report(book)
    assert stats.chars == _chars(quire, book, 20, 31) and stats.seconds == pytest.approx(90)
    assert stats.sessions == 1 and stats.days == {today(): pytest.approx(90)} and stats.streak == 1
    with inside(quire).library.transaction() as conn:  # an hour away: the next reading is a new session
        an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat(timespec="seconds")
        conn.execute("UPDATE reading_days SET last_at = ? WHERE book_id = ?", (an_hour_ago, book))
    _turn(quire, book, 205, 60)
    assert quire.stats.report(book).sessions == 2
    [alice] = quire.stats.report().books
    assert alice.title == "Alice's Adventures in Wonderland" and alice.days == 1


def test_the_readers_own_speed_gives_the_time_left_in_the_chapter_and_the_book(quire: Quire) -> None:
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    _turn(quire, book, 100, 0)
    assert quire.stats.report(book).books == []  # nothing read yet
    _turn(quire, book, 110, 120)
    [early] = quire.stats.report(book).books
    assert early.chars_per_minute is None and early.minutes_left is None  # two minutes are too little to tell
    _turn(quire, book, 130, 240)
    [moby] = quire.stats.report(book).books
    read = _chars(quire, book, 100, 130)
    assert moby.chars_per_minute == pytest.approx(read / 6, rel=0.01)
    rest = sum(len(s.text) for s in quire.text.segments(book, 131, quire.book(book).segment_count) if s.kind != "image")
    assert moby.minutes_left == pytest.approx(rest / moby.chars_per_minute, rel=0.01)
    assert 0 < moby.chapter_minutes_left < moby.minutes_left
    chapter, whole = quire.stats.minutes_left(book, 130)  # what the reader's title line shows at that place
    assert (round(chapter, 1), round(whole, 1)) == (moby.chapter_minutes_left, moby.minutes_left)
    assert quire.stats.minutes_left(book, 200)[1] < whole  # further on, less is left


def test_two_devices_reading_the_same_book_add_up_once_however_often_they_sync(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    alice = book_path("en/epubjs-alice.epub")
    phone, desk = Quire(tmp_path / "phone"), Quire(tmp_path / "desk")
    for quire in (phone, desk):
        quire.import_paths([alice])
        quire.sync.setup(str(shared))
    _turn(phone, 1, 20, 0), _turn(phone, 1, 30, 300)
    _turn(desk, 1, 40, 0), _turn(desk, 1, 45, 120)
    for _ in range(3):  # again and again: nothing is added twice
        phone.sync.run(), desk.sync.run()
    both = 300 + 120
    for quire in (phone, desk):
        stats = quire.stats.report(1)
        assert stats.seconds == pytest.approx(both) and stats.days == {today(): pytest.approx(both)}
        assert stats.chars == _chars(quire, 1, 20, 30) + _chars(quire, 1, 40, 45) and stats.sessions == 2
    _turn(phone, 1, 35, 60)  # the phone reads on; the desk's copy of the phone's day is replaced, not added to
    phone.sync.run(), desk.sync.run()
    assert desk.stats.report(1).seconds == pytest.approx(both + 60) == phone.stats.report(1).seconds


def test_quire_stats_prints_and_gives_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    library = ["--library", str(tmp_path / "lib")]
    assert cli([*library, "import", str(book_path("en/epubjs-alice.epub"))]) == 0
    assert cli([*library, "stats"]) == 0
    assert "No reading recorded yet" in capsys.readouterr().out
    quire = Quire(tmp_path / "lib")
    _turn(quire, 1, 20, 0), _turn(quire, 1, 40, 200)
    quire.close()
    assert cli([*library, "stats", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["seconds"] == 200 and report["books"][0]["sessions"] == 1 and len(report["weeks"]) == 12
    assert report["weeks"][-1]["seconds"] == 200 and report["streak"] == 1
    assert cli([*library, "stats", "1"]) == 0
    out = capsys.readouterr().out
    other = ["--library", str(tmp_path / "other")]  # read on from the command line only: paragraphs, no time
    assert cli([*other, "import", str(book_path("en/epubjs-alice.epub"))]) == 0
    assert cli([*other, "position", "1", "3.2"]) == 0 and cli([*other, "position", "1", "4.5"]) == 0
    capsys.readouterr()
    assert cli([*other, "stats", "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert read["seconds"] == 0 and read["chars"] > 0 and read["streak"] == 1  # a day with reading, though untimed
    assert "Read 3 min in 1 session" in out and "Alice's Adventures in Wonderland: 3 min" in out
