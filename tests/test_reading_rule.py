"""What counts as reading (core.library.reading): only reading on moves the furthest place, never a jump, a skim,
closing the book or another device's place. The reader's repro: open, turn a page, jump ahead, go to the library."""

from pathlib import Path

import pytest
from conftest import book_path
from test_reader_model import Clock

from app.screens.reader.model import ReaderViewModel
from core.library.reading import MAX_CHARS_PER_SECOND, MIN_DWELL_SECONDS, RESUME_PAGES, ReadingTracker
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


def test_a_page_shown_long_enough_is_read_and_a_skimmed_one_is_not() -> None:
    clock = Clock()
    tracker = ReadingTracker(current=0, furthest=-1, clock=clock)  # a new book, at its start
    clock.now += 20
    assert tracker.moved_on(10, chars_passed=1500)  # 20 s for 1,500 characters: read
    clock.now += 1
    assert not tracker.moved_on(20, chars_passed=1500)  # 1 s: skimmed, and now past what was read
    clock.now += 20
    assert not tracker.moved_on(30, chars_passed=1500)  # reading resumes only after RESUME_PAGES pages
    clock.now += 20
    assert tracker.moved_on(40, chars_passed=1500) and tracker.furthest == 40
    clock.now += MIN_DWELL_SECONDS / 2
    assert not tracker.moved_on(41, chars_passed=10)  # a page with one line still takes a moment to read
    assert RESUME_PAGES == 2 and MAX_CHARS_PER_SECOND >= 50


def test_a_jump_ahead_reads_nothing_until_the_reader_reads_on_there() -> None:
    clock = Clock()
    tracker = ReadingTracker(current=5, furthest=5, clock=clock)
    tracker.jumped(500)  # the contents, Go to 60%, a search hit, a citation
    clock.now += 30
    assert not tracker.moved_on(510, 1500)  # the first page read there does not move the fence
    clock.now += 30
    assert not tracker.settled
    assert tracker.moved_on(520, 1500) and tracker.furthest == 520  # the second does: the reader reads on here
    assert tracker.settled  # and "Back to where you were" can go


def test_rereading_inside_what_was_read_is_reading_and_never_lowers_the_furthest_place() -> None:
    clock = Clock()
    tracker = ReadingTracker(current=100, furthest=100, clock=clock)
    tracker.jumped(10)  # back to an earlier chapter
    clock.now += 30
    assert tracker.moved_on(20, 1500) and tracker.furthest == 100
    tracker.moved_back(15)
    tracker.set_furthest(15)  # "I haven't read past here"
    clock.now += 30
    assert tracker.moved_on(25, 1500) and tracker.furthest == 25


@pytest.fixture
def alice(tmp_path: Path) -> Quire:
    quire = Quire(tmp_path / "lib")
    quire.import_paths([book_path("en/epubjs-alice.epub"), book_path("formats/epubjs-alice.mobi")])
    yield quire
    quire.close()


@pytest.mark.parametrize("book", [1, 2], ids=["epub", "mobi"])
@pytest.mark.parametrize("jump", ["contents", "go to 60%", "search hit", "citation", "bookmark"])
def test_open_turn_a_page_jump_ahead_and_close_leaves_the_furthest_place_where_reading_left_it(
    alice: Quire, book: int, jump: str
) -> None:
    """The repro: the furthest place (and the library's "% read") once became the jumped-to place on closing."""
    clock = Clock()
    reader = ReaderViewModel(alice, book, clock)
    reader.open()
    clock.now += 30
    reader.next_page()  # one page read
    read = alice.position(book)
    assert read.furthest is not None and read.furthest_ordinal > 0
    late = alice.text.segments(book, int(reader.book.segment_count * 0.7), 1)[0]
    if jump == "contents":
        reader.go_to(next(r for r in reader.toc()[::-1] if r.locator is not None).locator)
    elif jump == "go to 60%":
        reader.go_to_place("60%")
    elif jump == "search hit":
        reader.open_hit(alice.find(book, "Queen", None, in_book_order=True)[-1], "Queen")
    elif jump == "citation":
        reader.open_citation(late.locator, late.locator)
    else:
        mark = alice.notes.add_bookmark(book, str(late.locator))
        reader.go_to(mark.locator)
    clock.now += 3
    reader.next_page()  # a glance at the next page there
    reader.place.save()  # what closing the book, going to the library and the app pausing do
    after = alice.position(book)
    assert after.ordinal > read.furthest_ordinal  # the current place moved
    assert (after.furthest, after.furthest_percent) == (read.furthest, read.furthest_percent)  # the fence did not
    again = ReaderViewModel(alice, book, clock)
    again.open()  # reopened where it was left, still ahead of what was read
    clock.now += 30
    again.next_page()
    assert alice.position(book).furthest == read.furthest  # one page after reopening there is not enough
    again.place.read_to_here()  # "I've read up to here"
    assert alice.position(book).furthest == again.current.locator


def test_another_devices_place_moves_only_the_current_place(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    a, b = Quire(tmp_path / "a"), Quire(tmp_path / "b")
    for quire in (a, b):
        quire.import_paths([book_path("en/epubjs-alice.epub")])
        quire.sync.setup(str(shared))
    a.save_position(1, "3.5")  # read on to 3.5
    a.sync.run(), b.sync.run()
    b.save_position(1, "11.2", reading=False)  # b jumped far ahead
    b.sync.run(), a.sync.run()
    position = a.position(1)
    assert str(position.locator) == "11.2" and str(position.furthest) == "3.5"
