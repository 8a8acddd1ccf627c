"""One library file, every SQLite backend: sqlean (desktops), apsw (phones), the standard library's sqlite3.

Each step runs in its own process (the backend is chosen once, at start-up): a library written by one opens,
reads and writes under the next. And the choice itself: apsw when this device's sqlite3 has no FTS5, a clear
error when nothing can hold a library.
"""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, book_path
from phonekit import phone_prelude

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

STEP = r"""
import json, sys
from core.library.db import _BACKEND
from core.services import Quire
quire = Quire(sys.argv[1])
step = sys.argv[2]
if step == "write":
    book = quire.import_paths([sys.argv[3]])[0].book
    quire.save_position(book.id, "4.10")
    quire.notes.add_highlight(book.id, "3.2", note="the first note")
    quire.index(book.id)
book = quire.books()[0]
quire.notes.add_bookmark(book.id, "5.1", label=f"from {_BACKEND}")
print(json.dumps({
    "backend": _BACKEND,
    "position": str(quire.position(book.id).locator),
    "notes": [h.note for h in quire.notes.highlights(book.id)],
    "bookmarks": [b.label for b in quire.notes.bookmarks(book.id)],
    "hybrid": [p.chunk_id for p in quire.search(book.id, "a White Rabbit with pink eyes", k=3)],
    "find": len(quire.find(book.id, "Rabbit")),
}))
"""


def _installed(backend: str) -> bool:
    """Whether the backend is here and can hold a library (this Python's sqlite3 needs FTS5 and 3.43)."""
    from core.errors import LibraryError
    from core.library.db import choose_driver

    try:
        return choose_driver(backend)[0] == backend
    except LibraryError:
        return False


def _step(library: Path, backend: str, step: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", STEP, str(library), step, str(book_path("en/epubjs-alice.epub"))],
        cwd=ROOT, env={**os.environ, "QUIRE_SQLITE": backend}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_one_library_file_opens_under_every_backend(tmp_path: Path) -> None:
    order = [b for b in ("sqlean", "apsw", "stdlib") if _installed(b)]
    if len(order) < 2:
        pytest.skip(f"only {order} installed here: nothing to compare (CI installs apsw)")
    library = tmp_path / "lib"
    reports = [_step(library, order[0], "write")] + [_step(library, backend, "read") for backend in order[1:]]
    assert [r["backend"] for r in reports] == order
    first = reports[0]
    for report in reports:
        assert report["position"] == "4.10" and report["notes"] == ["the first note"] and report["find"] > 0
        assert report["hybrid"] == first["hybrid"]  # the same vectors and keyword index under every driver
    assert reports[-1]["bookmarks"] == [f"from {b}" for b in order]  # each one wrote, the next one read


CHOOSE = r"""
try:
    from core.library.db import _BACKEND
    print("backend", _BACKEND)
except Exception as error:
    print(type(error).__name__, error)
"""


def _choose(blocked: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", phone_prelude(set(blocked.split(","))) + CHOOSE], cwd=ROOT, env={k: v for k, v in os.environ.items() if k != "QUIRE_SQLITE"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.stdout.strip()


def test_a_sqlite_without_fts5_falls_to_apsw_or_says_what_to_install() -> None:
    if _installed("apsw"):
        assert _choose("sqlean,sqlite_vec") == "backend apsw"  # a phone: apsw, not the FTS5-less sqlite3
    message = _choose("sqlean,sqlite_vec,apsw")
    assert message.startswith("LibraryError") and "no full-text search (FTS5)" in message and "install apsw" in message


def test_a_forced_backend_that_does_not_exist_is_refused() -> None:
    from core.errors import LibraryError
    from core.library.db import choose_driver

    with pytest.raises(LibraryError, match="not a SQLite backend: use sqlean, apsw or stdlib"):
        choose_driver("postgres")
    if sqlite3.sqlite_version_info >= (3, 43):  # FTS5 deletes from an index-only table (migration 9)
        assert choose_driver("stdlib")[0] == "stdlib"
    else:  # Debian 12's Python: SQLite 3.40
        with pytest.raises(LibraryError, match=r"older than 3\.43"):
            choose_driver("stdlib")
