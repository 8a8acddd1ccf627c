"""The reader's view-model on a real book: windows, navigation, position and time, marks, search."""

import itertools
from pathlib import Path

import pytest
from conftest import book_path

from app.screens.reader.model import PAGE, WINDOW, ReaderViewModel
from app.screens.reader.notes import Mark
from app.screens.reader.place import IDLE_CAP_SECONDS
from core.books import Locator
from core.services import Quire


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def moby(tmp_path: Path) -> Quire:
    quire = Quire(tmp_path)
    quire.import_paths([book_path("en/idpf-moby-dick.epub")])
    yield quire
    quire.close()


def test_opening_renders_a_window_not_the_whole_book(moby: Quire) -> None:
    reader = ReaderViewModel(moby, 1)
    first = reader.open()
    assert first.locator == Locator(0, 0) and len(reader.visible) == WINDOW < moby.book(1).segment_count
    chapter = next(r for r in reader.toc() if r.title.startswith("Chapter 1."))
    reader.go_to(chapter.locator)
    assert reader.chapter_title.startswith("Chapter 1.") and reader.current.locator == chapter.locator
    assert reader.visible[0].ordinal <= reader.current.ordinal <= reader.visible[-1].ordinal


def test_position_is_restored_exactly_and_reading_time_counts_only_activity(moby: Quire) -> None:
    clock = Clock()
    reader = ReaderViewModel(moby, 1, clock)
    reader.open()
    reader.go_to("20.5")
    clock.now += 40
    reader.next_page()  # scroll mode: a run of paragraphs further in 40 s, faster than anyone reads
    clock.now += 10_000  # left the book open overnight
    reader.scrolled(0.5)  # scroll mode: half-way down the window
    position = moby.position(1)
    assert position.ordinal == reader.visible[len(reader.visible) // 2].ordinal
    assert position.reading_seconds == pytest.approx(IDLE_CAP_SECONDS)  # the night counts as a long pause at most
    again = ReaderViewModel(moby, 1)
    assert again.open().locator == position.locator
    assert again.place.current_percent == position.percent > 0
    assert again.place.percent == 0  # a jump, then one page and a scroll there: not read yet (core.library.reading)


def _paged(quire: Quire, clock: Clock) -> ReaderViewModel:
    from app.screens.reader.view import page_box
    from app.settings import Settings

    reader = ReaderViewModel(quire, 1, clock)
    reader.open()
    reader.set_box(page_box(Settings(layout="paginated"), 1440, 900, None, back_row=False))
    chapter = next(r for r in reader.toc() if r.title.startswith("Chapter 3."))
    reader.go_to(chapter.locator)
    return reader


def _page_chars(reader: ReaderViewModel) -> int:
    return sum(len(piece.text) for piece in reader.page())


def test_the_readers_speed_comes_from_pages_read_not_from_time_away_or_skimming(moby: Quire) -> None:
    """Issue 38: minutes with the chat, X-Ray or search open, or the app in the background, counted as reading while
    no text was read, and pages inside a long paragraph counted time but no text: 43 characters a minute, and a
    time left that grew to 82 h. A page counts once shown long enough to be read, with its own characters."""
    clock = Clock()
    reader = _paged(moby, clock)
    read = 0
    for _ in range(1):  # a page at 750 characters a minute (under five minutes)
        chars = _page_chars(reader)
        clock.now += chars / 750 * 60
        reader.next_page()
        read += chars
    stats = moby.stats.report(1).books[0]
    assert stats.chars_per_minute is None and moby.stats.minutes_left(1, reader.current.ordinal) is None  # too soon
    reader.place.away("panel", True)  # the chat over the page for ten minutes
    clock.now += 600
    reader.place.away("panel", False)
    reader.place.away("background", True)  # and the app in the background for an hour
    clock.now += 3_600
    reader.place.away("background", False)
    for _ in range(6):
        chars = _page_chars(reader)
        clock.now += chars / 750 * 60
        reader.next_page()
        read += chars
    for _ in range(10):  # skimmed: a page a second
        clock.now += 1
        reader.next_page()
    stats = moby.stats.report(1).books[0]
    assert stats.chars == read  # the pages' own characters, a page inside a paragraph included
    assert stats.chars_per_minute == pytest.approx(750, rel=0.01)
    assert stats.minutes_left is not None and moby.stats.minutes_left(1, reader.current.ordinal) is not None
    before = stats.seconds
    chars = _page_chars(reader)
    clock.now += 10_000  # a page left open overnight counts what a slow reader would take for it, at most
    reader.next_page()
    assert moby.stats.report(1).books[0].seconds - before == pytest.approx(min(IDLE_CAP_SECONDS, chars / 4))


def test_paging_moves_by_a_page_and_stops_at_the_ends(moby: Quire) -> None:
    reader = ReaderViewModel(moby, 1)
    reader.open()
    assert reader.previous_page().ordinal == 0
    assert reader.next_page().ordinal == PAGE
    last = moby.book(1).segment_count - 1
    reader.go_to(moby.text.segments(1, last - 2, 1)[0].locator)
    assert reader.next_page().ordinal == last


def test_highlights_and_search_hits_become_marks(moby: Quire) -> None:
    reader = ReaderViewModel(moby, 1)
    reader.open()
    hits = reader.finder.run("Queequeg")
    assert hits
    record = reader.open_hit(hits[0], "Queequeg")
    assert Mark(record.ordinal, hits[0].locator.offset, hits[0].locator.offset + 8, "search") in reader.notes.marks()
    start = record.locator.at(0)
    end = record.locator.at(10)
    green = reader.notes.highlight(start, end, "green", "first mention")
    assert Mark(record.ordinal, 0, 10, "green", green.id) in reader.notes.marks()
    following = reader.visible[reader.visible.index(record) + 1]
    pink = reader.notes.highlight(record.locator.at(5), following.locator.at(7), "pink")
    assert Mark(record.ordinal, 5, len(record.text), "pink", pink.id) in reader.notes.marks()
    assert Mark(following.ordinal, 0, 7, "pink", pink.id) in reader.notes.marks()
    bookmark = reader.notes.add_bookmark()
    assert bookmark.locator == record.locator and reader.notes.bookmarks() == [bookmark]


def test_jumps_keep_what_was_read_and_offer_the_way_back(moby: Quire) -> None:
    clock = Clock()
    reader = ReaderViewModel(moby, 1, clock)
    reader.open()
    reader.go_to("30.0")
    for _ in range(3):
        clock.now += 120  # each page shown long enough to be read
        reader.next_page()  # reading on after a jump: the furthest place follows from the second page
    read_place, read = reader.current.locator, reader.place.percent
    assert read > 0 and reader.return_to is None  # read on from the jump's place: the way back has gone
    reader.go_to("1.0")
    assert reader.return_to == read_place  # a new jump offers it again
    clock.now += 120
    reader.next_page()
    assert reader.return_to == read_place  # one page is not yet reading on
    reader.go_back()
    reader.go_to(read_place, jump=False)  # reading again where they were
    early = moby.find(1, "Loomings")[0]
    reader.open_hit(early, "Loomings")  # a search hit far back: a jump
    assert reader.place.percent == read and reader.place.current_percent < read  # "% read" does not drop
    assert moby.position(1).furthest == read_place and reader.return_to == read_place
    chapter = next(r for r in reader.toc() if r.title.startswith("Chapter 3."))
    reader.go_to(chapter.locator)  # a second jump: back still leads to where the reader was reading
    assert reader.return_to == read_place and reader.current.locator == chapter.locator
    assert reader.go_back().locator == read_place and reader.return_to is None
    assert reader.go_back() is None  # nothing more to go back to
    cited = moby.text.segments(1, 5, 1)[0].locator
    reader.open_citation(cited, cited)  # a citation chip, from the chat
    assert reader.place.percent == read and moby.position(1).locator == cited
    reader.place.read_up_to_here()  # "I haven't read past here"
    assert reader.place.percent == reader.place.current_percent < read and moby.position(1).furthest == cited


def test_in_book_search_lists_every_match_in_book_order_and_marks_each_whole(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    quire.import_paths([book_path("zh/hongloumeng_120.md"), book_path("en/epubjs-alice.epub")])
    reader = ReaderViewModel(quire, 1)
    reader.open()
    hits = reader.finder.run("黛玉")
    assert reader.finder.matches == 1375 and len(hits) == 459  # every one, not "the first 200"
    assert hits[0].section_title.startswith("第二回")  # the first mention comes first
    assert [h.ordinal for h in hits] == sorted(h.ordinal for h in hits)
    assert reader.finder.shown == 100
    reader.finder.show_more()
    assert reader.finder.shown == 200
    record = reader.open_hit(hits[0], "黛玉")
    marks = [m for m in reader.notes.marks() if m.color == "search"]
    assert marks and all(record.text[m.start : m.end] == "黛玉" for m in marks)
    assert len(marks) == len(hits[0].spans)
    alice = ReaderViewModel(quire, 2)
    alice.open()
    found = alice.finder.run("White Rabbit")
    record = alice.open_hit(found[0], "White Rabbit")
    marked = {record.text[m.start : m.end].lower() for m in alice.notes.marks() if m.color == "search"}
    assert {"white", "rabbit"} <= marked  # the whole match, not its first word
    quire.close()


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)])
@pytest.mark.parametrize("font_size", [18, 26])
def test_turning_pages_through_a_chapter_shows_every_character_once(
    moby: Quire, size: tuple[int, int], font_size: int
) -> None:
    from app.screens.reader.view import page_box
    from app.settings import Settings

    settings = Settings(font_size=font_size, layout="paginated")
    box = page_box(settings, size[0], size[1], None, back_row=False)
    reader = ReaderViewModel(moby, 1)
    reader.open()
    reader.set_box(box)
    chapter = next(r for r in reader.toc() if r.title.startswith("Chapter 3."))  # long paragraphs
    reader.go_to(chapter.locator)
    section = chapter.locator.section
    shown: dict[int, list[tuple[int, int]]] = {}
    starts = []
    while reader.current.locator.section == section:
        starts.append(reader.page_start)
        page = reader.page()
        used = sum(len(p.text) for p in page)
        assert page and used > 0
        for piece in page:
            shown.setdefault(piece.segment.ordinal, []).append((piece.start, piece.end))
        reader.next_page()
    segments = moby.text.section(1, section)
    for segment in segments:  # every segment of the chapter, each character on exactly one page
        pieces = sorted(shown[segment.ordinal])
        assert pieces[0][0] == 0 and pieces[-1][1] == len(segment.text), segment.locator
        assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces)), (segment.locator, pieces)
    assert set(shown) == {s.ordinal for s in segments}  # nothing of the next chapter on its pages
    assert len(starts) > 3 and any(start[1] > 0 for start in starts)  # pages end inside paragraphs, at lines
    back = []
    reader.previous_page()  # from the next chapter's first page back through this one
    while reader.current.locator.section == section:
        back.append(reader.page_start)
        if reader.page_start == starts[0]:
            break
        reader.previous_page()
    assert back == starts[::-1]  # turning back shows the same pages


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)])
@pytest.mark.parametrize(("font_size", "line_height"), [(18, 1.6), (22, 1.2), (26, 2.0)])
def test_turning_back_from_a_place_inside_a_chapter_shows_the_pages_turned_from(
    moby: Quire, size: tuple[int, int], font_size: int, line_height: float
) -> None:
    """Next, Next, Prev, Prev on a phone re-cut the pages, repeating 8-10 lines of the page just shown, when the
    reader had come to the chapter's middle (a saved place, a jump); then Prev, Prev, Next, Next the other way."""
    from app.screens.reader.view import page_box
    from app.settings import Settings

    settings = Settings(font_size=font_size, line_height=line_height, layout="paginated")
    reader = ReaderViewModel(moby, 1)
    reader.open()
    reader.set_box(page_box(settings, size[0], size[1], None, back_row=False))
    chapter = next(r for r in reader.toc() if r.title.startswith("Chapter 3."))
    middle = moby.text.section(1, chapter.locator.section)[25]
    reader.go_to(middle.locator.at(40))  # a place inside a paragraph, as a saved place or a citation is

    def shown() -> list[tuple[int, int, int]]:
        return [(p.segment.ordinal, p.start, p.end) for p in reader.page()]

    def turns(moves: str) -> list[list[tuple[int, int, int]]]:
        pages = [shown()]
        for move in moves:
            (reader.next_page if move == "N" else reader.previous_page)()
            pages.append(shown())
        return pages

    there = turns("NN")
    back = turns("PP")
    assert back == there[::-1]  # the same pages, in the other order
    before = turns("PP")
    ahead = turns("NN")
    assert ahead == before[::-1]
    assert ahead[-1] == there[0]  # back where it began, at the place it was jumped to
    for pages in (there, before):  # and every character between once, no line shown twice
        pieces = sorted(piece for page in pages for piece in page)
        for a, b in itertools.pairwise(pieces):
            assert a[0] < b[0] or a[2] == b[1], (a, b)


def test_a_page_fills_its_box_without_overflowing_it(moby: Quire) -> None:
    from app.screens.reader.pagination import _geometry
    from app.screens.reader.text_metrics import wrap
    from app.screens.reader.view import page_box
    from app.settings import Settings

    box = page_box(Settings(layout="paginated"), 1440, 900, None, back_row=False)
    reader = ReaderViewModel(moby, 1)
    reader.open()
    reader.set_box(box)
    reader.go_to(next(r for r in reader.toc() if r.title.startswith("Chapter 1.")).locator)
    for _ in range(6):
        page = reader.page()
        height = -box.spacing
        for piece in page:
            font, line, width = _geometry(piece.segment, box)
            height += box.spacing + len(wrap(piece.text, font, width)) * line
        assert box.height * 0.7 < height <= box.height  # full, and never past the bottom
        reader.next_page()


def test_a_page_with_a_picture_counts_the_picture_at_its_own_size(tmp_path: Path) -> None:
    """Alice's first chapter opens with a 160 px drawing: the rest of the page is text, not a blank band."""
    from app.screens.reader.pagination import IMAGE_SHARE, _geometry, image_height
    from app.screens.reader.text_metrics import wrap
    from app.screens.reader.view import page_box
    from app.settings import Settings

    quire = Quire(tmp_path / "lib")
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    box = page_box(Settings(layout="paginated"), 1440, 900, None, back_row=False)
    reader = ReaderViewModel(quire, 1)
    reader.open()
    reader.set_box(box)
    reader.go_to(next(r for r in reader.toc() if r.title == "Down The Rabbit-Hole").locator)
    page = reader.page()
    picture = next(p.segment for p in page if p.segment.kind == "image")
    width, height = reader.images.size(picture)
    assert 0 < width < box.width and image_height(picture, (width, height), box) < box.height * IMAGE_SHARE
    used = -box.spacing
    for piece in page:
        if piece.segment.kind == "image":
            used += box.spacing + image_height(piece.segment, reader.images.size(piece.segment), box)
            continue
        font, line, text_width = _geometry(piece.segment, box)
        used += box.spacing + len(wrap(piece.text, font, text_width)) * line
    assert box.height * 0.8 < used <= box.height  # the page is filled to its foot
    assert image_height(picture, None, box) == box.height * IMAGE_SHARE  # an SVG or a broken file: a guess
    assert image_height(picture, (3000, 4000), box) == box.height  # a large one: a page of its own


def test_an_image_size_is_read_from_its_header_and_unknown_when_it_cannot_be(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    picture = next(s for s in quire.text.section(1, 3) if s.kind == "image")
    files = {
        b"<svg xmlns='http://www.w3.org/2000/svg' width='120' height='80'/>": (120, 80),
        b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 10 10'/>": None,  # drawn at the box's size
        b"\x89PNG\r\n\x1a\n truncated": None,
    }
    for data, size in files.items():
        reader = ReaderViewModel(quire, 1)
        reader.images.of = lambda segment, data=data: data
        assert reader.images.size(picture) == size


def test_scroll_mode_saves_the_paragraph_at_the_top_of_the_screen_by_measured_heights(moby: Quire) -> None:
    """The place was the fraction of an estimated length times the window's size: after the window grew it
    saved a paragraph far below the screen ("At 45%" over text at 20%)."""
    from app.screens.reader.model import SCROLL_PADDING
    from app.screens.reader.pagination import segment_height
    from app.screens.reader.view import page_box
    from app.settings import Settings

    reader = ReaderViewModel(moby, 1)
    reader.open()
    reader.go_to("10.0")
    reader.scroll_box = page_box(Settings(layout="scroll"), 1440, 900, None, back_row=False)
    box, shown = reader.scroll_box, reader.visible
    tops, top = [], SCROLL_PADDING
    for segment in shown[:6]:
        tops.append(top)
        top += segment_height(segment, box, reader.images.size) + box.spacing
    for index in range(5):
        reader.scrolled(0.99, tops[index] + 1)  # the fraction says "near the end": the pixels say where
        assert reader.current.ordinal == shown[index].ordinal
    reader.scrolled(0.5, tops[3] - box.spacing - box.font_size - 2)  # the one above still shows its last line
    assert reader.current.ordinal == shown[2].ordinal
    reader.scrolled(0.5, tops[3] - box.spacing - box.font_size + 2)  # less than a line of it: the next one
    assert reader.current.ordinal == shown[3].ordinal
