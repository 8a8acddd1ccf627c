"""A long PDF opened from its first pages while the rest is read: the first part is the whole book's beginning,
the finished book is what a full import makes, places and notes made meanwhile stay on their words, and a
process killed while the rest is read leaves the first part as it was, to be finished next time. The apsw round
(the phones' SQLite) runs the three that store the first part and its whole (marked ``storage``); the others test
what is decided, the same on either backend."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import book_path

from core.books.formats import parse_book
from core.inside import inside
from core.services import FIRST_PAGES, Quire
from core.sync import store as sync_store

ROOT = Path(__file__).resolve().parents[1]
NAHAN = "formats/luxun-nahan.pdf"  # 202 pages, no outline: its chapters are found in its text


def _rows(quire: Quire, book_id: int) -> dict[str, list[tuple]]:
    conn = inside(quire).library.conn
    return {
        "segments": [tuple(r) for r in conn.execute(
            "SELECT section_idx, idx, ordinal, kind, level, text, spans, src, anchors FROM segments WHERE book_id = ?"
            " ORDER BY ordinal", (book_id,))],
        "sections": [tuple(r)[1:] for r in conn.execute(
            "SELECT * FROM sections WHERE book_id = ? ORDER BY idx", (book_id,))],
        "toc": [tuple(r)[1:] for r in conn.execute("SELECT * FROM toc WHERE book_id = ? ORDER BY idx", (book_id,))],
        "book": [tuple(r) for r in conn.execute(
            "SELECT segment_count, char_count, warnings, title, language FROM books WHERE id = ?", (book_id,))],
    }  # fmt: skip


@pytest.mark.parametrize(("name", "differing"), [(NAHAN, []), ("formats/idpf-moby-dick.pdf", ["0.2"])])
def test_the_first_pages_of_each_long_shared_pdf_read_as_the_whole_books_beginning(
    name: str, differing: list[str]
) -> None:
    data = book_path(name).read_bytes()
    whole, part = parse_book(data, name), parse_book(data, name, first_pages=FIRST_PAGES)
    assert part.pages_read is not None and part.pages_read[0] == FIRST_PAGES and whole.pages_read is None
    finished = {loc: segment.text for _, loc, _, segment in whole.segments_with_locators()}
    first = list(part.segments_with_locators())
    assert len(first) > 200  # pages of text, not a title page
    # Every locator of the first part reads the same words in the whole book, but where a line is judged by the
    # whole book: Moby-Dick's "Copyright Page" ends its contents page and is printed once more much later, so
    # the whole book drops it as a running foot (its contents paragraph is then moved, by the test below's way).
    assert [str(loc) for _, loc, _, seg in first if finished.get(loc) != seg.text] == differing


@pytest.mark.storage
def test_a_long_pdf_opens_from_its_first_pages_and_is_then_what_a_full_import_makes(tmp_path: Path) -> None:
    data = book_path(NAHAN).read_bytes()
    quire, elsewhere = Quire(tmp_path / "here"), Quire(tmp_path / "elsewhere")
    book = quire.import_bytes(data, "nahan.pdf", passages=False).book
    assert book is not None and quire.text.read_in_part(book.id) == (FIRST_PAGES, 202)
    first_part = _rows(quire, book.id)["segments"]
    assert "鸭的喜剧" in " ".join(row[5] for row in first_part[:20])  # the first pages are there to read
    place = first_part[-5]  # the reader reads on, bookmarks and highlights in the first part
    quire.save_position(book.id, f"{place[0]}.{place[1]}:3")
    quire.notes.add_bookmark(book.id, f"{place[0]}.{place[1]}")
    marked = quire.notes.add_highlight(book.id, f"{place[0]}.{place[1]}:2", f"{place[0]}.{place[1]}:9", "blue")
    assert quire.find(book.id, "寂寞")  # search covers what is read so far
    passages_before = quire.text.passage_texts(book.id)  # and the passages the chat reads are cut from it

    assert quire.text.prepare(book.id) is True  # the rest is read behind the open book
    assert quire.text.read_in_part(book.id) is None and quire.text.complete(book.id) is False
    whole = elsewhere.import_bytes(data, "nahan.pdf").book  # the same file imported whole, on another device
    assert whole is not None and _rows(quire, book.id) == _rows(elsewhere, whole.id)
    assert len(quire.text.passage_texts(book.id)) > len(passages_before)  # the passages were cut again, whole
    position = quire.position(book.id)
    assert position is not None and str(position.locator) == f"{place[0]}.{place[1]}:3"
    assert position.percent == pytest.approx(100 * (place[2] + 1) / whole.segment_count, abs=0.01)
    assert [str(b.locator) for b in quire.notes.bookmarks(book.id)] == [f"{place[0]}.{place[1]}"]
    [highlight] = quire.notes.highlights(book.id)
    assert (highlight.id, highlight.text, highlight.color) == (marked.id, place[5][2:9], "blue")
    quire.close()
    elsewhere.close()


@pytest.mark.storage
def test_notes_made_on_a_first_part_that_differs_from_the_whole_move_to_the_same_words(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    book = quire.import_bytes(book_path(NAHAN).read_bytes(), "nahan.pdf", passages=False).book
    assert book is not None
    with inside(
        quire
    ).library.transaction() as conn:  # a first part with one paragraph more at its start than the whole
        conn.execute("UPDATE segments SET ordinal = -ordinal - 1, idx = CASE WHEN section_idx = 0 THEN -idx - 1 "
                     "ELSE idx END WHERE book_id = ?", (book.id,))  # fmt: skip
        conn.execute("UPDATE segments SET ordinal = -ordinal, idx = CASE WHEN section_idx = 0 THEN -idx ELSE idx "
                     "END WHERE book_id = ?", (book.id,))  # fmt: skip
        conn.execute("INSERT INTO segments (book_id, section_idx, idx, ordinal, kind, text) "
                     "VALUES (?, 0, 0, 0, 'paragraph', 'A line the whole book does not have.')", (book.id,))  # fmt: skip
        conn.execute("UPDATE sections SET segment_count = segment_count + 1 WHERE book_id = ? AND idx = 0", (book.id,))
        conn.execute("UPDATE sections SET first_ordinal = first_ordinal + 1 WHERE book_id = ? AND idx > 0", (book.id,))
        conn.execute("UPDATE books SET segment_count = segment_count + 1 WHERE id = ?", (book.id,))
    text = quire.text.show(book.id, "1.4")[0].text
    quire.save_position(book.id, "1.4:2")
    quire.notes.add_bookmark(book.id, "0.3")
    marked = quire.notes.add_highlight(book.id, "1.4:1", "1.4:6", "pink", "a note")
    moved_from = quire.text.show(book.id, "0.3")[0].text

    seen: list[tuple[int, int, tuple[int, int] | None]] = []  # the reader's line shows how far the rest is
    assert quire.text.complete(book.id, lambda n, total: seen.append((n, total, quire.text.reading_progress(1))))
    assert seen[-1] == (202, 202, (202, 202)) and all(got == (n, total) for n, total, got in seen)
    assert len(seen) == 202 and quire.text.reading_progress(book.id) is None
    position = quire.position(book.id)
    assert position is not None and quire.text.show(book.id, position.locator.segment_locator)[0].text == text
    assert position.locator.offset == 2
    [bookmark] = quire.notes.bookmarks(book.id)
    assert str(bookmark.locator) == "0.2" and quire.text.show(book.id, "0.2")[0].text == moved_from
    [highlight] = quire.notes.highlights(book.id)
    assert (str(highlight.start), str(highlight.end), highlight.note) == ("1.4:1", "1.4:6", "a note")
    assert highlight.text == marked.text == text[1:6]
    digest = quire.book(book.id).content_hash  # sync is told where they went
    sent = sync_store.pending(inside(quire).library.conn, f"highlight/{digest}/{highlight.uid}")
    assert sent is not None and (sent["start"], sent["end"], sent["note"]) == ("1.4:1", "1.4:6", "a note")
    sent = sync_store.pending(inside(quire).library.conn, f"bookmark/{digest}/{bookmark.uid}")
    assert sent is not None and sent["locator"] == "0.2"
    assert sync_store.pending(inside(quire).library.conn, f"place/{digest}") == {"locator": "1.4:2"}
    quire.close()


KILLED = """
import os, sys
from core.services import Quire
quire = Quire(sys.argv[1])
def progress(done, total):
    if done == 120:
        os._exit(9)  # killed while the rest is read: no commit, no cleanup
quire.text.complete(1, progress)
"""


@pytest.mark.storage
def test_a_process_killed_while_the_rest_is_read_leaves_the_first_part_to_finish_next_time(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    quire = Quire(folder)
    book = quire.import_bytes(book_path(NAHAN).read_bytes(), "nahan.pdf", passages=False).book
    assert book is not None and book.id == 1
    quire.save_position(1, "0.10")
    first_part = _rows(quire, 1)
    quire.close()
    done = subprocess.run([sys.executable, "-c", KILLED, str(folder)], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == 9, done.stderr.decode()[-2000:]

    quire = Quire(folder)
    assert quire.text.read_in_part(1) == (FIRST_PAGES, 202) and _rows(quire, 1) == first_part  # nothing lost
    assert str(quire.position(1).locator) == "0.10"
    assert quire.text.prepare(1) is True and quire.text.read_in_part(1) is None  # opened again: it finishes
    assert _rows(quire, 1)["book"][0][0] > first_part["book"][0][0]
    # and its paragraphs' keyword index, left for later by the import, covers the whole book, once
    conn = inside(quire).library.conn
    assert conn.execute("SELECT count(*) FROM paragraphs_to_index").fetchone()[0] == 0
    hits = quire.find(1, "鲁迅", None, in_book_order=True)
    assert hits and hits[-1].ordinal >= len(first_part["segments"])  # found past the first part too
    assert len({hit.ordinal for hit in hits}) == len(hits)
    quire.close()


def test_a_pdf_whose_rest_cannot_be_read_keeps_its_first_part_and_says_why(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    book = quire.import_bytes(book_path(NAHAN).read_bytes(), "nahan.pdf", passages=False).book
    assert book is not None
    [stored] = (tmp_path / "lib" / "books").glob("*.pdf")
    stored.write_bytes(stored.read_bytes()[: stored.stat().st_size // 3])  # the file damaged after its import
    first_part = _rows(quire, book.id)["segments"]
    assert quire.text.prepare(book.id) is True and quire.text.read_in_part(book.id) is None  # not tried for ever
    assert _rows(quire, book.id)["segments"] == first_part
    assert any(
        w.startswith(f"only the first {FIRST_PAGES} of 202 pages could be read") for w in quire.book(book.id).warnings
    )
    quire.close()


def test_what_sync_brought_for_pages_past_the_first_part_is_placed_when_the_book_is_whole(tmp_path: Path) -> None:
    data = book_path(NAHAN).read_bytes()
    quire = Quire(tmp_path / "lib")
    book = quire.import_bytes(data, "nahan.pdf", passages=False).book
    assert book is not None
    whole = parse_book(data, "nahan.pdf")
    far = list(whole.segments_with_locators())[-40]  # a paragraph near the end, which the first part lacks
    start, end = f"{far[1].section}.{far[1].segment}:0", f"{far[1].section}.{far[1].segment}:4"
    value = {"present": True, "start": start, "end": end, "color": "green", "note": "from the phone"}
    key = f"highlight/{book.content_hash}/0123456789abcdef0123"
    with inside(quire).library.transaction() as conn:  # merged by a sync that could not place it yet
        conn.execute("INSERT INTO sync_state VALUES (?, ?)", (key, json.dumps({"stamp": "0", "value": value})))
    assert quire.notes.highlights(book.id) == []
    assert quire.text.complete(book.id) is True
    [highlight] = quire.notes.highlights(book.id)
    assert (str(highlight.start), highlight.text, highlight.note) == (start, far[3].text[:4], "from the phone")
    quire.close()


def test_sync_holds_a_first_parts_places_back_and_sends_them_as_the_whole_book_has_them(tmp_path: Path) -> None:
    data, shared = book_path(NAHAN).read_bytes(), tmp_path / "shared"
    shared.mkdir()
    phone, desk = Quire(tmp_path / "phone"), Quire(tmp_path / "desk")
    book = phone.import_bytes(data, "nahan.pdf", passages=False).book  # opened from its first part
    whole = desk.import_bytes(data, "nahan.pdf").book  # the same file, imported whole
    assert book is not None and whole is not None
    far = list(parse_book(data, "nahan.pdf").segments_with_locators())[-40][1]  # past the phone's first part
    desk.notes.add_highlight(whole.id, f"{far.section}.{far.segment}:0", f"{far.section}.{far.segment}:4", "green")
    phone.notes.add_bookmark(book.id, "1.2")
    for quire in (phone, desk):
        quire.sync.setup(str(shared))
    phone.sync.run()
    desk.sync.run()
    assert desk.notes.bookmarks(whole.id) == []  # the phone's place in its first part is not sent yet
    phone.sync.run()
    assert phone.notes.highlights(book.id) == [] and phone.sync.status().unsent_edits > 0  # nor is the desk's placed

    assert phone.text.complete(book.id) is True  # whole now: what came is placed, what waited is sent
    assert [str(h.start) for h in phone.notes.highlights(book.id)] == [f"{far.section}.{far.segment}:0"]
    phone.sync.run()
    desk.sync.run()
    assert [str(b.locator) for b in desk.notes.bookmarks(whole.id)] == ["1.2"]
    phone.close()
    desk.close()


def test_a_long_pdf_imported_again_gets_its_notes_back_when_whole(tmp_path: Path) -> None:
    data = book_path(NAHAN).read_bytes()
    quire = Quire(tmp_path / "lib")
    book = quire.import_bytes(data, "nahan.pdf").book  # read whole, noted, removed
    assert book is not None
    far = quire.text.segments(book.id, book.segment_count - 40, 1)[0].locator
    quire.notes.add_highlight(book.id, f"{far.section}.{far.segment}:0", f"{far.section}.{far.segment}:4", "pink")
    quire.remove(book.id)
    again = quire.import_bytes(data, "nahan.pdf", passages=False).book  # its first part, at once
    assert again is not None and quire.notes.highlights(again.id) == []  # not placed on the first part
    assert quire.text.complete(again.id) is True
    assert [str(h.start) for h in quire.notes.highlights(again.id)] == [f"{far.section}.{far.segment}:0"]
    quire.close()
