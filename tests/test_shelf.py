"""The library's shelf read in SQL: pages that add up to the whole library in every order, search and tag in the
query, Unicode case, edits, and a library from before the shelf's keys upgraded in place."""

from pathlib import Path

import pytest
from conftest import book_path
from dbkit import inside

from core import SHELF_SORTS, Quire
from core.library.migrations import MIGRATIONS

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

NAMES = [
    "en/epubjs-alice.epub",
    "zh/hongloumeng_120.md",
    "ja/idpf-kusamakura-japanese-vertical-writing.epub",
    "zh/luxun_nahan.txt",
    "en/idpf-childrens-literature.epub",
    "formats/epubjs-alice.fb2",
    "formats/luxun-nahan.azw3",
]


@pytest.fixture
def shelf_library(quire: Quire) -> tuple[Quire, list[int]]:
    ids = [result.book.id for result in quire.import_paths([book_path(name) for name in NAMES])]
    return quire, ids


def _whole(quire: Quire, size: int, **filters: object) -> list[int]:
    """Every book the filter passes, read ``size`` at a time until a page comes back short."""
    found: list[int] = []
    while True:
        page = quire.shelf.page(offset=len(found), limit=size, **filters)  # type: ignore[arg-type]
        found += [book.id for book in page.books]
        if len(page.books) < size:
            return found


@pytest.mark.parametrize("sort", SHELF_SORTS)
def test_pages_of_any_size_add_up_to_the_whole_shelf_in_the_same_order(
    shelf_library: tuple[Quire, list[int]], sort: str
) -> None:
    quire, ids = shelf_library
    quire.save_position(ids[1], "3.0")
    quire.save_position(ids[4], "2.0")
    everything = quire.shelf.page(sort=sort, limit=100)
    assert not everything.more and sorted(b.id for b in everything.books) == sorted(ids)
    for size in (1, 2, 3):  # no book twice, none left out, whatever the page size
        assert _whole(quire, size, sort=sort) == [b.id for b in everything.books]
    assert quire.shelf.page(sort=sort, limit=len(ids) - 1).more and not quire.shelf.page(sort=sort, limit=len(ids)).more
    past = quire.shelf.page(sort=sort, offset=50, limit=10)
    assert past.books == [] and not past.more


def test_each_order_is_what_the_reader_asked_for(shelf_library: tuple[Quire, list[int]]) -> None:
    quire, ids = shelf_library
    titles = {book.id: book.title for book in quire.shelf.page(limit=100).books}
    assert [b.id for b in quire.shelf.page(limit=100).books] == ids[::-1]  # nothing read: the newest import first
    by_title = [titles[b.id] for b in quire.shelf.page(sort="title", limit=100).books]
    assert by_title == sorted(by_title, key=str.casefold)
    by_author = [b.authors for b in quire.shelf.page(sort="author", limit=100).books]
    assert by_author == ["Charles Madison Curry, Erle Elsworth Clippinger", "Lewis Carroll", "Lewis Carroll",
                         "夏目 漱石", "鲁迅", "", ""]  # fmt: skip  # no author: last
    quire.save_position(ids[0], "8.0")  # 53% of Alice
    quire.save_position(ids[3], "1.0")
    assert [b.id for b in quire.shelf.page(limit=2).books] == [ids[3], ids[0]]  # the last read first
    by_progress = quire.shelf.page(sort="progress", limit=100).books
    assert by_progress[0].id == ids[0] and by_progress[0].percent == pytest.approx(53, abs=1)
    assert by_progress[-1].percent is None  # never opened


def test_words_and_tags_filter_in_the_query_in_any_case_and_script(shelf_library: tuple[Quire, list[int]]) -> None:
    quire, ids = shelf_library
    carroll = quire.shelf.page(words="  CARROLL ")
    assert len(carroll.books) == 2 and not carroll.more and {b.edition for b in carroll.books} == {"EPUB", "FB2"}
    assert [b.id for b in quire.shelf.page(words="漱石").books] == [ids[2]]
    assert (
        [b.id for b in quire.shelf.page(words="呐喊").books]
        == [ids[6]]
        == [b.id for b in quire.shelf.page(words="鲁迅").books]
    )
    assert {b.id for b in quire.shelf.page(words="ALICE").books} == {ids[0], ids[5]}
    assert quire.shelf.page(words="alice", limit=1).more and not quire.shelf.page(words="alice", offset=1, limit=1).more
    quire.tag(ids[3], "中文")
    quire.tag(ids[1], "中文")
    assert {b.id for b in quire.shelf.page(tag="中文").books} == {ids[1], ids[3]}
    assert [b.id for b in quire.shelf.page(tag="中文", words="Nahan").books] == [ids[3]]
    assert quire.shelf.page(words="no such words").books == []
    assert quire.shelf.page(words="%").books == quire.shelf.page(words="_").books == []  # not wildcards
    quire.edit_book(ids[4], title="ÉTUDES Über Kinder")  # Unicode case folding, which SQLite's lower() lacks
    assert [b.id for b in quire.shelf.page(words="études über").books] == [ids[4]]
    assert [b.title for b in quire.shelf.page(sort="title", limit=100).books][-3:-2] == ["ÉTUDES Über Kinder"]
    with pytest.raises(ValueError, match="recent, title, author, progress"):
        quire.shelf.page(sort="size")


def test_a_card_says_its_edition_warnings_and_cover(shelf_library: tuple[Quire, list[int]]) -> None:
    quire, ids = shelf_library
    books = {b.id: b for b in quire.shelf.page(limit=100).books}
    assert books[ids[6]].edition == "AZW3" and not books[ids[6]].has_cover
    assert books[ids[0]].has_cover and books[ids[0]].warnings == 0
    assert books[ids[2]].warnings == len(quire.book(ids[2]).warnings) == 2
    assert quire.shelf.size() == len(ids)


def test_a_library_from_before_the_shelf_keys_is_upgraded_in_place(tmp_path: Path) -> None:
    quire = Quire(tmp_path)
    quire.import_paths([book_path(name) for name in NAMES[:3]])
    library = inside(quire).library
    with library.transaction() as conn:  # what the code before migration 19 left on disk
        conn.execute("DROP INDEX books_by_title")
        conn.execute("ALTER TABLE books DROP COLUMN title_key")
        conn.execute("ALTER TABLE books DROP COLUMN authors_key")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 19")
    quire.close()
    upgraded = Quire(tmp_path)
    conn = inside(upgraded).library.conn
    assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == MIGRATIONS[-1][0]
    assert [b.title for b in upgraded.shelf.page(words="carroll").books] == ["Alice's Adventures in Wonderland"]
    assert [b.title for b in upgraded.shelf.page(sort="title", limit=100).books] == [
        "Alice's Adventures in Wonderland", "hongloumeng 120", "草枕"]  # fmt: skip
    upgraded.close()
