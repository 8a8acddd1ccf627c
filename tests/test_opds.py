"""OPDS catalogs (issue 30): a real calibre content server (Debian's calibre) serving a library built with calibredb
from the shared books, behind a Digest login; and local servers for what calibre never sends (a hostile feed,
paging, a download cut short, a file that is not a book)."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import book_path, debian_file
from httpkit import LocalServer, Reply, Request
from waiting import until

from app.cli import main as cli
from core import BookFormatError, CatalogError, CatalogRefused, LocalOnlyError, Quire
from platform_adapters.memory import MemorySecrets, memory_platform

# calibredb refuses to run while a calibre-server runs (one per user): every test using calibre is in one group,
# which pytest-xdist (--dist loadgroup) runs on a single worker.
pytestmark = [pytest.mark.storage, pytest.mark.xdist_group("calibre")]

USER, PASSWORD = "reader", "s3cret-pass"
LIBRARIES: dict[str, Path] = {}  # the calibre library folder each calibre-server fixture serves, by its feed URL
BOOKS = ["en/epubjs-alice.epub", "en/idpf-moby-dick.epub", "zh/luxun_nahan.txt", "formats/epubjs-alice.pdf"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def calibre(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """calibre-server on a free port, its library made by calibredb from the shared books, users in a userdb."""
    server = debian_file("/usr/bin/calibre-server", "calibre")
    calibredb = debian_file("/usr/bin/calibredb", "calibre")
    root = tmp_path_factory.mktemp("calibre")
    env = {"HOME": str(root), "PATH": "/usr/bin:/bin", "CALIBRE_CONFIG_DIRECTORY": str(root / "config")}
    subprocess.run([str(calibredb), "add", "--library-path", str(root / "library"),
                    *(str(book_path(b)) for b in BOOKS)], check=True, capture_output=True, env=env, timeout=300)  # fmt: skip
    users = root / "users.sqlite"
    subprocess.run([str(server), "--userdb", str(users), "--manage-users", "--", "add", USER, PASSWORD],
                   check=True, capture_output=True, env=env, timeout=120)  # fmt: skip
    LIBRARIES[f"http://127.0.0.1:{(port := _free_port())}/opds"] = root / "library"
    process = subprocess.Popen(
        [str(server), "--port", str(port), "--listen-on", "127.0.0.1", "--enable-auth", "--userdb", str(users),
         str(root / "library")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        until(lambda: _listening(port), 30, "calibre's content server")
        yield f"http://127.0.0.1:{port}/opds"
    finally:
        process.terminate()
        process.wait(20)


def test_a_calibre_library_is_browsed_searched_and_downloaded_from_with_its_login(calibre: str, quire: Quire) -> None:
    with pytest.raises(CatalogRefused, match="asks for a user name"):
        quire.catalogs.browse(calibre)
    with pytest.raises(CatalogRefused, match="refused the user name or password"):
        quire.catalogs.add(calibre, user=USER, password="wrong", secrets=MemorySecrets())
    secrets = MemorySecrets()
    added = quire.catalogs.add(calibre, user=USER, password=PASSWORD, secrets=secrets)
    assert added.title == "calibre Library" and added.username == USER
    assert secrets.get(f"opds:{calibre}") == PASSWORD  # the password in the secret store, not the library
    assert PASSWORD.encode() not in (quire.folder / "library.db").read_bytes()
    root = quire.catalogs.browse(added.id, secrets)
    by_title = next(e for e in root.entries if e.title == "By Title")
    assert by_title.feed is not None and not by_title.acquisitions  # a way into another feed
    titles = quire.catalogs.browse(by_title.feed, secrets)  # the catalog's login is used on its own pages
    books = {e.title: e for e in titles.entries}
    assert {"Alice's Adventures in Wonderland", "Moby-Dick"} <= set(books)
    assert books["Moby-Dick"].formats == ["epub"] and books["Moby-Dick"].cover is not None
    found = quire.catalogs.search(added.id, "wonderland", secrets)
    assert [e.title for e in found.entries] == ["Alice's Adventures in Wonderland"]
    assert found.entries[0].authors == ("Lewis Carroll",)
    seen: list[tuple[int, int | None]] = []
    result = quire.catalogs.get(added.id, found.entries[0], secrets, progress=lambda n, total: seen.append((n, total)))
    assert result.created and result.book.title == "Alice's Adventures in Wonderland"
    assert seen and seen[-1][0] == seen[-1][1]  # progress to the last byte of a known length
    again = quire.catalogs.get(found.url, found.entries[0].id, secrets)  # by its id, from the search's feed
    assert not again.created and again.book.id == result.book.id and len(quire.books()) == 1  # no duplicate
    assert not list(quire.folder.glob("download-*"))  # nothing left behind
    assert quire.catalogs.search(added.id, "呐喊 nothing like it", secrets).entries == []  # found nothing: said so
    text = quire.catalogs.search(added.id, "luxun", secrets)  # calibre named the text file's book after its file
    assert [e.formats for e in text.entries] == [["txt"]]


def test_quire_opds_add_browse_search_and_get(calibre: str, tmp_path: Path, capsys, monkeypatch) -> None:
    library = ["--library", str(tmp_path / "lib")]
    platform = memory_platform(tmp_path)
    monkeypatch.setenv("QUIRE_OPDS_PASSWORD", PASSWORD)
    assert cli([*library, "opds", "search", calibre, "moby", "--user", USER, "--json"], platform) == 0
    [entry] = json.loads(capsys.readouterr().out)["entries"]
    assert entry["title"] == "Moby-Dick" and entry["formats"] == ["epub"] and entry["id"] and entry["authors"]
    assert cli([*library, "opds", "get", f"{calibre}/search/moby", entry["id"], "--user", USER], platform) == 0
    assert "Moby-Dick" in capsys.readouterr().out
    assert cli([*library, "opds", "browse", calibre, "--user", USER], platform) == 0
    assert "By Title" in capsys.readouterr().out
    monkeypatch.setenv("QUIRE_OPDS_PASSWORD", "wrong")
    assert cli([*library, "opds", "browse", calibre, "--user", USER], platform) == 1
    assert "refused the user name or password" in capsys.readouterr().err


def test_quire_opds_get_takes_an_id_its_search_showed_and_opds_alone_lists(
    calibre: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    """Issue 39: 'quire opds' alone was an argparse error; 'quire opds get 1 ID' right after 'quire opds search 1 …'
    failed (the id was looked for in the catalog's own feed only), and search's text never said how to get one."""
    library = ["--library", str(tmp_path / "lib")]
    platform = memory_platform(tmp_path)
    monkeypatch.setenv("QUIRE_OPDS_PASSWORD", PASSWORD)
    assert cli([*library, "opds", "add", calibre, "--user", USER, "--title", "Home"], platform) == 0
    capsys.readouterr()
    assert cli([*library, "opds"], platform) == 0
    assert "1. Home" in capsys.readouterr().out
    assert cli([*library, "opds", "search", "1", "moby", "--user", USER], platform) == 0  # password: from $QUIRE_…
    shown = capsys.readouterr().out
    assert "Moby-Dick" in shown and "quire opds get CATALOG ID" in shown
    entry_id = next(line.split("id: ", 1)[1].strip() for line in shown.splitlines() if "id: " in line)
    assert cli([*library, "opds", "get", "1", entry_id, "--user", USER], platform) == 0
    assert "imported: Moby-Dick" in capsys.readouterr().out


def test_a_calibre_book_downloaded_then_its_library_folder_imported_is_one_book_either_way(
    calibre: str, tmp_path: Path
) -> None:
    """Issue 39: a book downloaded from calibre-server over OPDS, then that calibre library's folder imported, gave
    two entries (calibre writes its metadata into the file it serves: other bytes). calibre's uuid says it is one."""
    first = Quire(tmp_path / "downloaded-first")
    [entry] = first.catalogs.search(calibre, "moby", user=USER, password=PASSWORD).entries
    assert entry.id.startswith("urn:uuid:")
    assert first.catalogs.get(calibre, entry, user=USER, password=PASSWORD).created
    found = first.folders.import_folder(LIBRARIES[calibre])
    assert sorted(b.title for b in first.books()).count("Moby-Dick") == 1
    assert not next(r for r in found.results if r.book and r.book.title == "Moby-Dick").created
    first.close()
    second = Quire(tmp_path / "folder-first")  # the other way round: the folder, then the download
    second.folders.import_folder(LIBRARIES[calibre])
    again = second.catalogs.get(calibre, entry, user=USER, password=PASSWORD)
    assert not again.created and again.book is not None and again.book.title == "Moby-Dick"
    assert [b.title for b in second.books()].count("Moby-Dick") == 1
    second.close()


def _feed(entries: str, links: str = "") -> bytes:
    return (f'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Test</title><id>t</id>'
            f"{links}{entries}</feed>").encode()  # fmt: skip


def _book(number: int, href: str, kind: str = "application/epub+zip") -> str:
    return (f"<entry><title>Book {number}</title><id>urn:book:{number}</id><author><name>A. Writer</name></author>"
            f'<link rel="http://opds-spec.org/acquisition" type="{kind}" href="{href}"/></entry>')  # fmt: skip


def test_a_hostile_feed_is_refused_or_defused(quire: Quire, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    xxe = (f'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x SYSTEM "file://{secret}">]>'
           f'<feed xmlns="http://www.w3.org/2005/Atom"><title>&x;</title><entry><title>&x;</title><id>1</id></entry>'
           "</feed>").encode()  # fmt: skip
    deep = (
        b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">' + b"<a>" * 5000 + b"</a>" * 5000 + b"</feed>"
    )
    huge = _feed(_book(1, "/b.epub") * 200_000)  # about 30 MB
    elsewhere = _feed(_book(1, "http://elsewhere.example/b.epub") + _book(2, "/ok.epub"),
                      '<link rel="next" href="http://elsewhere.example/page2"/>')  # fmt: skip
    pages = {
        "/xxe": xxe,
        "/deep": deep,
        "/huge": huge,
        "/elsewhere": elsewhere,
        "/html": b"<html><body>hi</body></html>",
    }
    with LocalServer(
        lambda r: Reply(200, pages[r.path.split("?")[0]], {"Content-Type": "application/atom+xml"})
    ) as server:
        url = server.url
        feed = quire.catalogs.browse(f"{url}/xxe")
        assert "TOP SECRET" not in json.dumps(feed.to_dict())  # the external entity was not read
        with pytest.raises(CatalogError):
            quire.catalogs.browse(f"{url}/deep")  # nesting past libxml2's limit
        with pytest.raises(CatalogError, match="more than 8 MB"):
            quire.catalogs.browse(f"{url}/huge")
        mixed = quire.catalogs.browse(f"{url}/elsewhere")
        assert [e.title for e in mixed.entries if e.acquisitions] == ["Book 2"] and mixed.next is None
        assert mixed.elsewhere == 2  # a book and a page on another host: dropped, counted
        with pytest.raises(CatalogError, match=r"not readable XML|not give an OPDS catalog"):
            quire.catalogs.browse(f"{url}/html")


def test_paging_a_cut_download_a_file_that_is_not_a_book_and_local_only(quire: Quire) -> None:
    book = book_path("en/epubjs-alice.epub").read_bytes()

    def answer(request: Request) -> Reply:
        path = request.path.split("?")[0]
        if path == "/opds":
            return Reply(200, _feed(_book(1, "/cut.epub") + _book(2, "/junk.epub"), '<link rel="next" href="/p2"/>'))
        if path == "/p2":
            return Reply(200, _feed(_book(3, "/alice.epub") + _book(4, "/alice.pdf", "application/pdf")))
        if path == "/cut.epub":  # the server stops half-way through
            return Reply(200, book, {"Content-Length": str(len(book))}, cut_after=len(book) // 2)
        if path == "/junk.epub":
            return Reply(200, b"this is not a book at all", {"Content-Type": "application/epub+zip"})
        return Reply(200, book, {"Content-Disposition": 'attachment; filename="Alice.epub"'})

    with LocalServer(answer) as server:
        url = server.url
        with pytest.raises(CatalogError, match="stopped"):
            quire.catalogs.get(f"{url}/opds", "urn:book:1")
        assert quire.books() == [] and not list(quire.folder.glob("download-*"))  # no half book anywhere
        junk = quire.catalogs.get(f"{url}/opds", "urn:book:2")
        assert junk.book is None and isinstance(junk.error, BookFormatError)
        third = quire.catalogs.get(f"{url}/opds", "urn:book:3")  # found on the feed's second page
        assert third.created and third.book.title == "Alice's Adventures in Wonderland"
        quire.local_only = True
        assert quire.catalogs.browse(f"{url}/opds").entries  # a catalog on this computer is allowed
    with pytest.raises(LocalOnlyError):
        quire.catalogs.browse("https://books.example.org/opds")


def test_a_redirect_to_another_port_of_the_same_host_is_not_followed(quire: Quire) -> None:
    """Issue 37: the same host on another port is another server (another origin): no request goes there."""
    with LocalServer(lambda request: Reply(200, _feed(_book(1, "/b.epub")))) as elsewhere:
        port = elsewhere.url.rsplit(":", 1)[1]

        def answer(request: Request) -> Reply:
            return Reply(302, b"", {"Location": f"http://127.0.0.1:{port}/opds"})

        with LocalServer(answer) as server, pytest.raises(CatalogError, match="does not follow"):
            quire.catalogs.browse(f"{server.url}/opds")
        assert elsewhere.requests == []


@pytest.mark.parametrize("ranges", [True, False], ids=["server-with-ranges", "server-without-ranges"])
def test_a_text_download_cut_short_without_a_length_is_not_imported(quire: Quire, ranges: bool) -> None:
    """Issue 37: a .txt sent with no Content-Length and cut short was imported as if whole, its end missing. The
    whole one is imported, from a server that answers Range requests and from one that ignores them."""
    text = book_path("zh/luxun_nahan.txt").read_bytes()

    def answer(request: Request) -> Reply:
        path = request.path.split("?")[0]
        if path == "/opds":
            return Reply(200, _feed(_book(1, "/cut.txt", "text/plain") + _book(2, "/whole.txt", "text/plain")))
        wanted = request.headers.get("range", "")
        if ranges and wanted.startswith("bytes="):
            start = int(wanted[6:].rstrip("-"))
            if start >= len(text):
                return Reply(416, b"")
            return Reply(206, text[start:], {"Content-Range": f"bytes {start}-{len(text) - 1}/{len(text)}"})
        cut = len(text) // 3 if path == "/cut.txt" and not wanted else None
        return Reply(200, text, {"Content-Type": "text/plain"}, cut_after=cut, send_length=False)

    with LocalServer(answer) as server:
        with pytest.raises(CatalogError, match="before the book's end"):
            quire.catalogs.get(f"{server.url}/opds", "urn:book:1")
        assert quire.books() == []
        whole = quire.catalogs.get(f"{server.url}/opds", "urn:book:2")
        assert whole.created and quire.book(whole.book.id).file_size == len(text)


@pytest.mark.parametrize("width", [1440, 390])
def test_the_app_adds_browses_searches_and_downloads_from_calibre(calibre: str, quire: Quire, width: int) -> None:
    """Settings › Catalogs adds the calibre server with its login; Browse opens it; a navigation entry, the covers
    loaded after the list, a download into the library, search and Back, on a desktop and a phone."""
    import asyncio

    import flet as ft
    from fletkit import clickable, find, fire, new_session, texts, type_into

    from app.shell import QuireApp

    async def scenario() -> None:
        session = await new_session(width)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.render()
        await fire(session, find(app.page.controls, tooltip="Settings"))
        labelled = [c for c in _walk(app) if getattr(c, "label", None)]
        at = next(i for i, c in enumerate(labelled) if c.label == "Catalog address (OPDS)")
        url, user, password = labelled[at : at + 3]
        assert user.label.startswith("User name") and password.label.startswith("Password")
        for field, text in ((url, calibre), (user, USER), (password, PASSWORD)):
            await type_into(session, field, text)
        await fire(session, clickable(app.page.controls, "Add catalog"))
        assert app.message == "Added “calibre Library”." and "calibre Library" in texts(app.page.controls)
        await fire(session, clickable(app.page.controls, "Browse"))
        await app.workers.until(lambda: app.preferences.catalogs.feed is not None)
        assert app.screen == "catalog" and "By Title" in texts(app.page.controls)
        await fire(session, clickable(app.page.controls, "By Title"))
        await app.workers.until(lambda: len(app.preferences.catalogs.feeds) == 2)
        shown = texts(app.page.controls)
        assert "Moby-Dick" in shown and "Alice's Adventures in Wonderland" in shown
        listed = [e.id for e in app.preferences.catalogs.feed.entries if e.thumbnail or e.cover]
        await app.workers.until(lambda: all(i in app.preferences.catalogs.pictures for i in listed))
        [listing] = [c._i for c in _walk(app) if isinstance(c, ft.ListView)]
        frames = [c for c in _walk(app) if isinstance(c, ft.Container) and c.data == "cover"]
        assert len(frames) == len(listed)  # each row's frame drawn with its picture (the screen drawn again in place)
        assert all(f.content.src[:2] == b"\xff\xd8" for f in frames)  # JPEG thumbnails, with the login
        await fire(session, find(app.page.controls, tooltip="Download “Moby-Dick”"))
        moby = next(e.id for e in app.preferences.catalogs.feed.entries if e.title == "Moby-Dick")
        await app.workers.until(lambda: app.preferences.catalogs.downloads.get(moby) == "done")
        assert [b.title for b in quire.books()] == ["Moby-Dick"] and app.message == "“Moby-Dick” is in your library."
        # its progress and its end drew the screen again in place: the same list, so where it was scrolled (issue 36)
        assert [c._i for c in _walk(app) if isinstance(c, ft.ListView)] == [listing]
        query = next(c for c in _walk(app) if getattr(c, "label", None) == "Search this catalog")
        await type_into(session, query, "wonderland", "submit")
        await app.workers.until(lambda: len(app.preferences.catalogs.feeds) == 3)
        assert [e.title for e in app.preferences.catalogs.feed.entries] == ["Alice's Adventures in Wonderland"]
        for _ in range(3):
            await fire(session, find(app.page.controls, tooltip="Back"))
        assert app.screen == "settings"

    asyncio.run(scenario())


def _walk(app) -> list:
    from fletkit import walk

    return list(walk(app.page.controls))


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
        return True
    return False
