"""Issue 58: one library shared safely by threads. The app's threads and every browser tab share one ``Quire``;
a read from another thread during an import's transaction ran inside it and could see rows later rolled back or
half written. Each thread now reads through its own connection and sees only what was committed."""

import threading
from pathlib import Path

import pytest
from conftest import book_path
from dbkit import inside

from core.services import Quire

pytestmark = pytest.mark.storage

BOOKS = [book_path("en/epubjs-alice.epub"), book_path("en/idpf-moby-dick.epub"), book_path("zh/luxun_nahan.txt")]


def test_readers_in_other_threads_see_only_committed_states_while_books_come_and_go(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    library = inside(quire).library
    stop = threading.Event()
    seen: list[str] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                for book_id, count, stored in library.conn.execute(
                    "SELECT b.id, b.segment_count, (SELECT COUNT(*) FROM segments s WHERE s.book_id = b.id) FROM books b"
                ):
                    if count != stored:  # a book whose paragraphs are half written or half removed
                        seen.append(f"book {book_id}: {stored} of {count} paragraphs")
                orphans = library.conn.execute(
                    "SELECT COUNT(*) FROM segments WHERE book_id NOT IN (SELECT id FROM books)"
                ).fetchone()[0]
                if orphans:
                    seen.append(f"{orphans} paragraphs without their book")
        except BaseException as error:
            errors.append(error)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for _ in range(3):
            ids = [result.book.id for result in quire.import_paths(BOOKS)]
            for book_id in ids:
                quire.remove(book_id)
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    assert not errors, errors
    assert not seen, seen[:5]
    assert library.conn.execute("SELECT COUNT(*) FROM books").fetchone()[0] == 0
    quire.close()
    quire.close()  # twice: nothing left to close, no error
