"""Books from folders (issue 30): a calibre library folder made by Debian's calibredb imports with calibre's
metadata and its best format, again without duplicates; a plain folder imports recursively; watched folders
offer the books put there later, once each."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import book_path, debian_file

from app.cli import main as cli
from core import LibraryError, Quire

# calibredb refuses to run while a calibre-server runs (tests/test_opds.py): the same xdist group, one worker.
pytestmark = [pytest.mark.storage, pytest.mark.xdist_group("calibre")]


def _calibre_library(root: Path) -> Path:
    """A calibre library: Alice as EPUB and PDF (tags, a series), Moby-Dick as EPUB, 呐喊 as TXT, and a book whose
    only format (a .rtf) Quire does not read."""
    calibredb = str(debian_file("/usr/bin/calibredb", "calibre"))
    env = {"HOME": str(root), "PATH": "/usr/bin:/bin", "CALIBRE_CONFIG_DIRECTORY": str(root / "config")}
    library = root / "Calibre Library"

    def run(*args: str) -> str:
        return subprocess.run([calibredb, *args, "--library-path", str(library)], check=True, capture_output=True,
                              text=True, env=env, timeout=300).stdout  # fmt: skip

    run("add", str(book_path("en/epubjs-alice.epub")), str(book_path("en/idpf-moby-dick.epub")),
        str(book_path("zh/luxun_nahan.txt")))  # fmt: skip
    run("add_format", "1", str(book_path("formats/epubjs-alice.pdf")))
    run("set_metadata", "1", "--field", "tags:Fantasy,Classics", "--field", "series:Alice", "--field", "series_index:1")
    run("set_metadata", "3", "--field", "title:呐喊", "--field", "authors:鲁迅")
    rtf = root / "notes.rtf"
    rtf.write_text(r"{\rtf1 a note}", encoding="utf-8")
    run("add", str(rtf))
    return library


def test_a_calibre_library_folder_imports_with_its_metadata_and_again_without_duplicates(
    quire: Quire, tmp_path: Path
) -> None:
    library = _calibre_library(tmp_path)
    found = quire.folders.import_folder(library)
    assert found.calibre and [r.error for r in found.results] == [None, None, None]
    assert len(found.skipped) == 1 and "RTF" in found.skipped[0]  # said, not silently dropped
    books = {b.title: b for b in quire.books()}
    alice = books["Alice's Adventures in Wonderland"]
    assert alice.format == "epub"  # EPUB before PDF
    assert alice.authors == ["Lewis Carroll"] and set(alice.tags) == {"Fantasy", "Classics", "series: Alice #1"}
    assert alice.has_cover and quire.cover(alice.id)[1] == "image/jpeg"  # calibre's cover.jpg
    assert books["呐喊"].authors == ["鲁迅"]  # calibre's title, not the file's name
    again = quire.folders.import_folder(library)
    assert not any(r.created for r in again.results) and len(quire.books()) == 3  # no duplicates
    quire.edit_book(alice.id, title="Alice in Wonderland")
    quire.folders.import_folder(library)
    assert quire.book(alice.id).title == "Alice in Wonderland"  # the reader's edit stays


def test_quire_import_takes_a_calibre_library_and_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calibre = _calibre_library(tmp_path / "c")
    plain = tmp_path / "plain"
    (plain / "deep" / "deeper").mkdir(parents=True)
    (plain / ".hidden").mkdir()
    shutil.copy(book_path("en/epubjs-alice.epub"), plain / "deep" / "deeper" / "alice.epub")
    shutil.copy(book_path("en/idpf-moby-dick.epub"), plain / ".hidden" / "moby.epub")  # a hidden folder: left out
    (plain / "readme.doc").write_bytes(b"not a book")
    library = ["--library", str(tmp_path / "lib")]
    assert cli([*library, "import", str(calibre)]) == 0
    assert "a calibre library" in capsys.readouterr().err
    assert cli([*library, "import", str(plain), "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["source"].endswith("alice.epub") and not result["created"]  # calibre's Alice: the same file


def test_a_folder_imports_recursively_and_a_watched_one_offers_new_books_once(quire: Quire, tmp_path: Path) -> None:
    folder = tmp_path / "Books"
    (folder / "English").mkdir(parents=True)
    (folder / "中文").mkdir()
    shutil.copy(book_path("en/epubjs-alice.epub"), folder / "English" / "alice.epub")
    shutil.copy(book_path("zh/luxun_nahan.txt"), folder / "中文" / "呐喊.txt")
    (folder / "cover.jpg").write_bytes(b"\xff\xd8 not a book")
    found = quire.folders.import_folder(folder)
    assert sorted(Path(r.source).name for r in found.results) == ["alice.epub", "呐喊.txt"]
    assert all(r.created for r in found.results) and not found.calibre
    quire.folders.watch(folder)
    assert quire.folders.watched() == [folder.resolve()] and quire.folders.new_books() == []
    shutil.copy(book_path("en/idpf-moby-dick.epub"), folder / "English" / "moby.epub")
    [new] = quire.folders.new_books()
    assert new.name == "moby.epub"
    quire.folders.seen([new])  # offered (the reader said no): not offered again
    assert quire.folders.new_books() == []
    quire.folders.unwatch(folder)
    shutil.copy(book_path("en/epubjs-alice.epub"), folder / "alice-again.epub")
    assert quire.folders.new_books() == []
    with pytest.raises(LibraryError, match="not a folder"):
        quire.folders.import_folder(tmp_path / "nowhere")


def test_the_app_offers_a_watched_folders_new_books_once_on_start(quire: Quire, tmp_path: Path) -> None:
    """A watched folder's new book is offered when the app starts: Import takes it; started again, nothing is
    offered (once each); a book declined with Not now is not offered again either."""
    import asyncio

    from fletkit import clickable, fire, new_session, texts

    from app.shell import QuireApp
    from platform_adapters.memory import MemorySecrets

    folder = tmp_path / "Inbox"
    folder.mkdir()
    quire.folders.watch(folder)
    shutil.copy(book_path("en/epubjs-alice.epub"), folder / "alice.epub")

    async def start() -> tuple[QuireApp, object]:
        session = await new_session(1440)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.render()
        await app.workers.idle()  # the first look at the watched folders
        return app, session

    async def scenario() -> None:
        app, session = await start()
        dialog = session.page._dialogs.controls[-1]
        assert texts(dialog.title) == ["1 new book(s) in your folders"] and "· alice.epub" in texts(dialog.content)
        await fire(session, clickable(dialog, "Import"))  # waits for the import it starts
        assert [b.title for b in quire.books()] == ["Alice's Adventures in Wonderland"]
        app, session = await start()
        assert not app.preferences.folders.offered  # offered once
        shutil.copy(book_path("en/idpf-moby-dick.epub"), folder / "moby.epub")
        app, session = await start()
        await fire(session, clickable(session.page._dialogs.controls[-1], "Not now"))
        app, session = await start()
        assert not app.preferences.folders.offered and len(quire.books()) == 1

    asyncio.run(scenario())


# -- hostile calibre libraries and watched folders (issue 37) ------------------------------------------------
def test_a_hostile_calibre_library_brings_in_nothing_from_outside_its_folder(quire: Quire, tmp_path: Path) -> None:
    """A ``books.path`` of ``../x`` or ``/abs``, a book folder that is a link and a cover that links to a text file:
    each book is left out (or keeps no cover) with a line saying why, and nothing from outside is read."""
    import sqlite3

    library = _calibre_library(tmp_path / "c")
    outside = tmp_path / "c" / "private"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET diary entry\n" * 50, encoding="utf-8")
    db = sqlite3.connect(library / "metadata.db")
    db.create_function("title_sort", 1, lambda title: title)  # calibre's triggers call its own functions
    db.create_function("uuid4", 0, lambda: "00000000-0000-0000-0000-000000000000")
    paths = dict(db.execute("SELECT id, path FROM books"))
    db.execute("UPDATE books SET path = '../private' WHERE id = 3")  # 呐喊: up and out of the library
    db.execute("UPDATE data SET name = 'secret', format = 'TXT' WHERE book = 3")
    db.execute("UPDATE books SET path = ? WHERE id = 4", (str(outside),))  # the RTF book: an absolute path
    db.execute("INSERT INTO data (book, format, uncompressed_size, name) VALUES (4, 'TXT', 1, 'secret')")
    db.commit()
    db.close()
    moby = library / paths[2]  # Moby-Dick's folder: moved out, a link left in its place
    shutil.move(str(moby), str(outside / "moby"))
    moby.symlink_to(outside / "moby", target_is_directory=True)
    cover = library / paths[1] / "cover.jpg"
    cover.unlink()
    cover.symlink_to(outside / "secret.txt")  # Alice's cover: a link to a text file
    found = quire.folders.import_folder(library)
    assert [b.title for b in quire.books()] == ["Alice's Adventures in Wonderland"]
    picture, _ = quire.cover(quire.books()[0].id)
    assert b"SECRET" not in picture  # the EPUB's own cover stays; the linked text file is no cover
    assert sum("not inside the library folder" in line for line in found.skipped) == 3, found.skipped


def _handmade_calibre(folder: Path, books_sql: str) -> Path:
    """A metadata.db with calibre's table names and no constraints, as a hostile or hand-edited one can be."""
    import sqlite3

    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "metadata.db")
    db.executescript(
        """
        CREATE TABLE authors (id INTEGER, name TEXT); CREATE TABLE books_authors_link (id INTEGER, book, author);
        CREATE TABLE tags (id INTEGER, name TEXT); CREATE TABLE books_tags_link (id INTEGER, book, tag);
        CREATE TABLE series (id INTEGER, name TEXT); CREATE TABLE books_series_link (id INTEGER, book, series);
        CREATE TABLE data (id INTEGER, book, format, uncompressed_size, name);
        """
        + books_sql
    )
    db.commit()
    db.close()
    return folder


def test_a_calibre_database_that_never_ends_is_stopped_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``books`` view that recurses for ever ran to its 10 s bound and held 1.2 GB by then (issue 58 item 13):
    calibre's tables are tables, so a view in their place is refused before any row is read."""
    import resource

    from core.library import calibre

    monkeypatch.setattr(calibre, "READ_SECONDS", 1.0)  # the time bound stays, for a table too big to read
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    endless = _handmade_calibre(
        tmp_path / "endless",
        "CREATE VIEW books AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
        " SELECT i AS id, 'x' AS title, 'x' AS path, 0 AS has_cover, 1.0 AS series_index FROM n;",
    )
    assert cli(["--library", str(tmp_path / "lib"), "import", str(endless)]) != 0
    err = capsys.readouterr().err.strip()
    assert "books as a view" in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 100  # MB: no row was made
    assert not (tmp_path / "lib" / "books").exists() or not any((tmp_path / "lib" / "books").iterdir())


def test_odd_rows_of_a_calibre_database_are_left_out_and_the_rest_imports(quire: Quire, tmp_path: Path) -> None:
    """NULL formats, NULL paths, a title of NULL and a text series index: no traceback; what can be read is in."""
    folder = _handmade_calibre(
        tmp_path / "odd",
        """
        CREATE TABLE books (id INTEGER, title TEXT, path TEXT, has_cover INTEGER, series_index);
        INSERT INTO books VALUES (1, 'Alice', 'Carroll/Alice (1)', 0, 'abc'), (2, 'No path', NULL, 0, NULL),
                                 (3, NULL, 'Carroll/Alice (1)', 0, 2.0), ('x', 'Bad id', 'y', 0, 1.0);
        INSERT INTO data VALUES (1, 1, 'EPUB', 1, 'Alice'), (2, 2, 'EPUB', 1, 'nothing'), (3, 3, NULL, 1, 'Alice');
        INSERT INTO series VALUES (1, 'Wonderland'); INSERT INTO books_series_link VALUES (1, 1, 1);
        INSERT INTO authors VALUES (1, NULL), (2, 'Lewis Carroll');
        INSERT INTO books_authors_link VALUES (1, 1, 1), (2, 1, 2);
        """,
    )
    (folder / "Carroll" / "Alice (1)").mkdir(parents=True)
    shutil.copy(book_path("en/epubjs-alice.epub"), folder / "Carroll" / "Alice (1)" / "Alice.epub")
    found = quire.folders.import_folder(folder)
    [book] = quire.books()
    assert book.title == "Alice" and book.authors == ["Lewis Carroll"] and "series: Wonderland" in book.tags
    assert len(found.skipped) == 2  # no path; NULL format (the row with a text id is not a book)


def test_a_watched_or_imported_folder_does_not_follow_a_link_to_a_file_elsewhere(quire: Quire, tmp_path: Path) -> None:
    secret = tmp_path / "home" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("SECRET " * 100, encoding="utf-8")
    watched = tmp_path / "Watched"
    watched.mkdir()
    quire.folders.watch(watched)
    (watched / "x.txt").symlink_to(secret)
    shutil.copy(book_path("zh/luxun_nahan.txt"), watched / "呐喊.txt")
    assert [p.name for p in quire.folders.new_books()] == ["呐喊.txt"]
    found = quire.folders.import_folder(watched)
    assert [Path(r.source).name for r in found.results] == ["呐喊.txt"]
