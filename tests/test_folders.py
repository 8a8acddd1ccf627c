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
        for _ in range(100):
            await asyncio.sleep(0.02)
            if app.folders.offered:
                break
        return app, session

    async def scenario() -> None:
        app, session = await start()
        dialog = session.page._dialogs.controls[-1]
        assert texts(dialog.title) == ["1 new book(s) in your folders"] and "· alice.epub" in texts(dialog.content)
        await fire(session, clickable(dialog, "Import"))
        for _ in range(100):
            await asyncio.sleep(0.02)
            if quire.books():
                break
        assert [b.title for b in quire.books()] == ["Alice's Adventures in Wonderland"]
        app, session = await start()
        assert not app.folders.offered  # offered once
        shutil.copy(book_path("en/idpf-moby-dick.epub"), folder / "moby.epub")
        app, session = await start()
        await fire(session, clickable(session.page._dialogs.controls[-1], "Not now"))
        app, session = await start()
        assert not app.folders.offered and len(quire.books()) == 1

    asyncio.run(scenario())
