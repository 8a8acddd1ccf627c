"""Several Quire processes on one library: short write transactions, a clear message when it is busy, one indexer
per book, and caches that notice what another process changed."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT, book_path
from dbkit import inside

from core.errors import BookNotFoundError, LibraryError
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

WRITE_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=float(sys.argv[2]), isolation_level=None)
try:
    db.execute("BEGIN IMMEDIATE")
except sqlite3.OperationalError:
    print("busy", flush=True)
    sys.exit(0)
print("held", flush=True)
if sys.argv[3] == "hold":
    sys.stdin.read()  # held until the test lets go (closes this pipe) or kills the process
db.execute("ROLLBACK")
"""


def _other_process(library: Path, hold: bool = False, wait: float = 0.5) -> subprocess.Popen:
    """Another process that takes the library's write lock (and, with ``hold``, keeps it until it is killed)."""
    return subprocess.Popen(
        [sys.executable, "-c", WRITE_LOCK, str(library / "library.db"), str(wait), "hold" if hold else "go"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip


def _other_process_writes(library: Path) -> bool:
    """Whether another process can take the write lock right now (SQLite's locks are per process)."""
    other = _other_process(library)
    answer = other.stdout.readline().strip()
    other.wait(10)
    return answer == "held"


def test_a_busy_library_is_a_clear_error_not_a_traceback(alice_quire: Quire) -> None:
    holder = _other_process(alice_quire.folder, hold=True)  # another Quire in the middle of a long write
    try:
        assert holder.stdout.readline().strip() == "held"
        inside(alice_quire).library.conn.execute("PRAGMA busy_timeout = 200")
        with pytest.raises(LibraryError, match="the library is busy: another Quire"):
            alice_quire.save_position(1, "3.2")
        with pytest.raises(LibraryError, match="busy"):
            alice_quire.notes.add_highlight(1, "3.2")
    finally:
        holder.kill()
        holder.wait()
    assert alice_quire.save_position(1, "3.2").locator.section == 3  # and it works once the other is done


def test_chunking_a_long_book_does_not_hold_the_write_lock(tmp_path: Path) -> None:
    quire = Quire(tmp_path / "lib")
    profile, count = inside(quire).default_chunking()
    tokenizing, release = threading.Event(), threading.Event()

    def slow_count(texts: list[str]) -> list[int]:  # the tokenizer, paused while the test looks at the lock
        tokenizing.set()
        release.wait(10)
        return count(texts)

    quire._chunking = (profile, slow_count)
    worker = threading.Thread(target=quire.import_paths, args=([book_path("en/epubjs-alice.epub")],))
    worker.start()
    try:
        assert tokenizing.wait(20), "chunking never started"
        assert _other_process_writes(quire.folder)  # the import committed; tokenizing holds no lock
    finally:
        release.set()
        worker.join(30)
    assert inside(quire).chunks.count(1) > 0 and quire.search(1, "White Rabbit", mode="keyword")
    quire.close()


HOLD_LOCK = """
import sys
from pathlib import Path
from core.library.locks import exclusive
with exclusive(Path(sys.argv[1]), "busy"):
    print("held", flush=True)
    sys.stdin.read()  # held until the test kills the process
"""


def test_one_indexer_per_book_across_processes(alice_quire: Quire) -> None:
    lock = alice_quire.folder / "locks" / "index-1.lock"
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )  # another `quire index 1`, mid-run
    try:
        assert other.stdout.readline().strip() == "held"
        with pytest.raises(LibraryError, match="being indexed already"):
            alice_quire.index(1)
        assert alice_quire.index_status(1) is None  # the refused run wrote nothing
    finally:
        other.kill()
        other.wait()
    assert alice_quire.index(1).status == "done"  # the lock died with its process (even killed)


def test_a_long_lived_process_sees_books_removed_by_another(tmp_path: Path) -> None:
    app = Quire(tmp_path / "lib", vector_backend="numpy")  # the app, running for hours
    app.import_paths([book_path("en/epubjs-alice.epub"), book_path("minimal/epubcheck-minimal.epub")])
    app.index(1)
    app.index(2)  # the model stays indexed in the library after book 1 goes
    assert app.search(None, "a White Rabbit with pink eyes", mode="vector", k=3)  # the vector cache is warm
    cli = Quire(tmp_path / "lib", vector_backend="numpy")  # `quire remove` in a terminal
    cli.remove(1)
    cli.close()
    found = app.search(None, "a White Rabbit with pink eyes", mode="vector", k=3)
    assert found and all(p.book_id == 2 for p in found)
    assert all(p.book_id != 1 for p in app.search(None, "White Rabbit", k=5))
    app.close()


def test_a_book_removed_while_it_is_indexed_stops_the_indexer_saying_so(tmp_path: Path) -> None:
    app = Quire(tmp_path / "lib")
    app.import_paths([book_path("en/epubjs-alice.epub")])
    inside(app).indexer.batch_size = 4
    removed: list[str] = []

    def remove_from_another_process(_status) -> None:
        if not removed:
            cli = Quire(tmp_path / "lib")  # `quire remove` in a terminal, mid-index
            removed.append(cli.remove(1).title)
            cli.close()

    with pytest.raises(BookNotFoundError, match="the book was removed while it was being indexed"):
        app.index(1, progress=remove_from_another_process)
    assert removed and app.books() == []
    app.close()


IMPORTER = """
import sys
from core.services import Quire
quire = Quire(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
[result] = quire.import_paths([sys.argv[2]])
print("error" if result.error else ("created" if result.created else "already"), result.book and result.book.id,
      flush=True)
"""


def test_two_processes_importing_the_same_new_book_get_one_book(tmp_path: Path) -> None:
    """Both parse the book at once; the one that commits second gets the first's book, not an IntegrityError."""
    Quire(tmp_path / "lib").close()
    book = book_path("en/idpf-moby-dick.epub")  # a few hundred ms to parse: both are inside the import together
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", IMPORTER, str(tmp_path / "lib"), str(book)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    outcomes = sorted(process.communicate(timeout=120)[0].strip() for process in processes)
    assert outcomes == ["already 1", "created 1"], outcomes
    quire = Quire(tmp_path / "lib")
    assert [b.title for b in quire.books()] == ["Moby-Dick"]
    quire.close()
