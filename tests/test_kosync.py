"""KOReader progress sync (issue 30) against a server following koreader-sync-server's API (tests/kosynckit.py):
registering and logging in, the document's id as KOReader computes it, an EPUB's place as an xpointer to its
paragraph both ways, a PDF's as its page, the furthest place winning, a wrong password and a server that is down."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import book_path
from httpkit import closed_port
from kosynckit import KosyncServer
from lxml import etree

from app.cli import main as cli
from core import CatalogError, CatalogRefused, LibraryError, Quire
from core.koreader.document import partial_md5
from platform_adapters.memory import MemorySecrets, memory_platform

pytestmark = pytest.mark.storage

ALICE = book_path("en/epubjs-alice.epub")


def koreader_md5(path: Path) -> str:
    """KOReader's util.partialMD5, written out as its Lua is: samples at lshift(1024, 2*i) for i = -1..10, where
    LuaJIT's bit.lshift(1024, -2) shifts by 30 and overflows 32 bits to 0."""
    data = path.read_bytes()
    digest = hashlib.md5()
    for i in range(-1, 11):
        offset = ((1024 << ((2 * i) % 32)) & 0xFFFFFFFF) if i >= 0 else ((1024 << 30) & 0xFFFFFFFF)
        sample = data[offset : offset + 1024]
        if not sample:
            break
        digest.update(sample)
    return digest.hexdigest()


def test_the_document_id_is_koreaders_partial_md5() -> None:
    for name in ("en/epubjs-alice.epub", "en/idpf-moby-dick.epub", "formats/epubjs-alice.pdf"):
        assert partial_md5(book_path(name)) == koreader_md5(book_path(name))
    small = book_path("minimal/epubcheck-minimal.epub")  # smaller than 4 KB: fewer samples
    assert partial_md5(small) == koreader_md5(small)


def _resolve(xpointer: str) -> str:
    """An xpointer of Alice resolved independently (lxml's XPath over the chapter's XHTML): its element's text."""
    import zipfile

    spine = ["cover", "toc", "titlepage", *(f"chapter_{n:03d}" for n in range(1, 13))]
    number, path = xpointer.split("]", 1)
    chapter = spine[int(number.rsplit("[", 1)[1]) - 1]
    root = etree.fromstring(zipfile.ZipFile(ALICE).read(f"OPS/{chapter}.xhtml"))
    steps = [s for s in path.split("/text()")[0].split("/") if s]
    query = "/*[local-name()='html']/" + "/".join(
        f"*[local-name()='{s.split('[')[0]}']" + (f"[{s.split('[')[1]}" if "[" in s else "") for s in steps
    )
    [element] = root.xpath(query)
    return " ".join("".join(element.itertext()).split())


def test_register_log_in_and_the_furthest_place_wins_both_ways(quire: Quire) -> None:
    book = quire.import_paths([ALICE])[0].book.id
    secrets = MemorySecrets()
    with KosyncServer() as server:
        assert quire.kosync.settings() is None  # off until set up
        quire.kosync.setup(server.url, "alice", "pa55", secrets, register=True)
        assert server.users == {"alice": hashlib.md5(b"pa55").hexdigest()}  # KOReader's userkey, not the password
        assert secrets.get(f"kosync:{server.url}") == server.users["alice"]
        with pytest.raises(CatalogError, match="already registered"):
            quire.kosync.setup(server.url, "alice", "pa55", secrets, register=True)
        with pytest.raises(CatalogRefused):
            quire.kosync.setup(server.url, "alice", "wrong", secrets)
        document = partial_md5(ALICE)
        # Read in Quire to chapter 3's third paragraph: sent as an xpointer to that paragraph.
        quire.save_position(book, "3.0")
        quire.save_position(book, "5.3")
        [sent] = quire.kosync.sync(book, secrets)
        assert sent.direction == "sent" and sent.document == document
        stored = server.documents[("alice", document)]
        paragraph = quire.text.show(book, "5.3")[0].text
        assert stored["progress"].startswith("/body/DocFragment[6]/body/section/p[")
        assert _resolve(stored["progress"]) == " ".join(paragraph.split())  # the same paragraph, read by XPath
        assert 0 < stored["percentage"] < 1 and stored["device"] == "Quire"
        # KOReader on a Kobo reads on to chapter 7 and sends its own xpointer: Quire goes there, as reading.
        kobo = "/body/DocFragment[10]/body/section/p[12]/text().0"
        server.documents[("alice", document)] = {"progress": kobo, "percentage": 0.61, "device": "Kobo Libra 2",
                                                 "device_id": "ab12", "timestamp": 1}  # fmt: skip
        [got] = quire.kosync.sync(book, secrets)
        position = quire.position(book)
        assert got.direction == "received" and got.device == "Kobo Libra 2"
        assert " ".join(quire.text.show(book, position.locator)[0].text.split()) == _resolve(kobo)
        assert position.furthest == position.locator and position.locator.section == 9  # the furthest place rose
        # Behind Quire now (the Kobo's old place): Quire's further place is sent, not taken.
        server.documents[("alice", document)] = {"progress": "/body/DocFragment[4]/body/section/p[2]/text().0",
                                                 "percentage": 0.1, "device": "Kobo", "device_id": "ab12", "timestamp": 2}  # fmt: skip
        [back] = quire.kosync.sync(book, secrets)
        assert back.direction == "sent" and quire.position(book).locator.section == 9
        assert server.documents[("alice", document)]["device"] == "Quire"
        [same] = quire.kosync.sync(book, secrets)
        assert same.direction == "same"


def test_a_pdf_goes_by_its_page_and_a_percentage_alone_is_placed_too(quire: Quire) -> None:
    pdf = quire.import_paths([book_path("formats/epubjs-alice.pdf")])[0].book.id
    text = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book.id
    with KosyncServer() as server:
        quire.kosync.setup(server.url, "reader", "pw", None, register=True)
        server.documents[("reader", quire.kosync.document(pdf))] = {"progress": "12", "percentage": 0.2,
                                                                    "device": "Kindle", "device_id": "k"}  # fmt: skip
        [got] = quire.kosync.sync(pdf, password="pw")
        assert got.direction == "received"
        assert quire.text.page_of(pdf, quire.position(pdf).ordinal) == 11  # page 12, counted from 1 by KOReader
        server.documents[("reader", quire.kosync.document(text))] = {"progress": "", "percentage": 0.5,
                                                                     "device": "Kobo", "device_id": "k"}  # fmt: skip
        [half] = quire.kosync.sync(text, password="pw")
        book = quire.book(text)
        assert half.direction == "received" and abs(quire.position(text).ordinal - (book.segment_count - 1) / 2) <= 1


def test_a_server_down_or_off_is_said_and_changes_nothing(quire: Quire) -> None:
    book = quire.import_paths([ALICE])[0].book.id
    with pytest.raises(CatalogError, match="KOReader sync is off"):
        quire.kosync.sync(book, password="x")
    with pytest.raises(CatalogError, match="cannot be reached"):
        quire.kosync.setup(f"http://127.0.0.1:{closed_port()}", "a", "b", None)
    assert quire.kosync.settings() is None
    with KosyncServer(registration=False) as server:
        with pytest.raises(CatalogError, match="HTTP 403"):
            quire.kosync.setup(server.url, "a", "b", None, register=True)
        server.users["a"] = hashlib.md5(b"b").hexdigest()
        quire.kosync.setup(server.url, "a", "b", None)
        url = server.url
    quire.save_position(book, "5.3")
    with pytest.raises(CatalogError, match="cannot be reached"):
        quire.kosync.sync(book, password="b")  # the server went away: the place here stays
    assert str(quire.position(book).locator) == "5.3" and quire.kosync.settings()["url"] == url
    quire.kosync.turn_off()
    assert quire.kosync.settings() is None


def test_quire_kosync_setup_and_sync(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    library = ["--library", str(tmp_path / "lib")]
    platform = memory_platform(tmp_path)
    assert cli([*library, "import", str(ALICE)], platform) == 0
    assert cli([*library, "position", "1", "5.3"], platform) == 0
    with KosyncServer() as server:
        monkeypatch.setenv("QUIRE_KOSYNC_PASSWORD", "pw")
        assert cli([*library, "kosync", "setup", server.url, "--user", "reader", "--register"], platform) == 0
        capsys.readouterr()
        assert cli([*library, "kosync", "--json"], platform) == 0
        [result] = json.loads(capsys.readouterr().out)
        assert result["direction"] == "sent" and result["locator"] == "5.3"
        monkeypatch.setenv("QUIRE_KOSYNC_PASSWORD", "wrong")
        assert cli([*library, "kosync", "1"], platform) == 1
        assert "refused the user name or password" in capsys.readouterr().err


@pytest.mark.parametrize("width", [1440, 390])
def test_settings_turns_koreader_sync_on_and_opening_a_book_takes_the_kobos_further_place(
    quire: Quire, width: int
) -> None:
    """Settings › Sync › KOReader sync server (off by default): turned on with a new user; opening a book takes
    the Kobo's further place (saying so), closing it sends this device's; turned off again."""
    import asyncio

    from fletkit import clickable, find, fire, new_session, set_value, texts, type_into, walk

    from app.shell import QuireApp

    book = quire.import_paths([ALICE])[0].book.id
    quire.save_position(book, "3.0")
    quire.save_position(book, "3.5")

    async def scenario(server: KosyncServer) -> None:
        session = await new_session(width)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.render()
        await fire(session, find(app.page.controls, tooltip="Settings"))
        assert "Turn on KOReader sync" in texts(app.page.controls)
        labelled = [c for c in walk(app.page.controls) if getattr(c, "label", None)]
        at = next(i for i, c in enumerate(labelled) if c.label == "KOReader sync server address")
        url, user, password, register = labelled[at : at + 4]
        for field, text in ((url, server.url), (user, "reader"), (password, "pw")):
            await type_into(session, field, text)
        await set_value(session, register, True, "change")
        await fire(session, clickable(app.page.controls, "Turn on KOReader sync"))
        assert app.message == f"KOReader sync is on: {server.url} as reader." and "reader" in server.users
        document = quire.kosync.document(book)
        server.documents[("reader", document)] = {"progress": "/body/DocFragment[10]/body/section/p[12]/text().0",
                                                  "percentage": 0.61, "device": "Kobo Libra 2", "device_id": "k"}  # fmt: skip
        app.open_book(book)
        await app.workers.idle()  # the exchange on opening runs in a worker
        assert app.message == "Opened where you read on Kobo Libra 2." and app.reader.current.locator.section == 9
        assert quire.position(book).furthest.section == 9
        quire.save_position(book, "9.20")  # read on here (as page turns at a reading pace save it)
        app.close_book()
        await app.workers.idle()  # and on closing
        assert server.documents[("reader", document)]["device"] == "Quire"  # this device's further place sent
        from app.screens import Screen

        app.go(Screen.SETTINGS)
        await fire(session, clickable(app.page.controls, "Turn off"))
        assert quire.kosync.settings() is None and "Turn on KOReader sync" in texts(app.page.controls)

    with KosyncServer() as server:
        asyncio.run(scenario(server))


def test_a_book_whose_file_went_missing_does_not_stop_the_others(quire: Quire) -> None:
    from core.inside import inside

    alice = quire.import_paths([ALICE])[0].book.id
    moby = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    for book in (alice, moby):
        quire.save_position(book, "3.0")
        quire.save_position(book, "3.2")
    inside(quire).library.file_path(alice).unlink()  # the stored copy lost (a disk cleaned by hand)
    with KosyncServer() as server:
        quire.kosync.setup(server.url, "r", "pw", None, register=True)
        results = quire.kosync.sync(password="pw")
        assert [(r.book_id, r.direction) for r in results] == [(moby, "sent")]
        with pytest.raises(LibraryError, match="missing"):
            quire.kosync.sync(alice, password="pw")  # asked for by name: said


def test_quire_kosync_with_the_password_in_the_environment_needs_no_keyring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """Found running it by hand on a machine without a keyring: setup stored the key even when the password came
    from $QUIRE_KOSYNC_PASSWORD, and failed after registering the user. From the environment it is never stored."""
    from dataclasses import replace

    from core import SecretStoreError

    class NoKeyring(MemorySecrets):
        def get(self, name: str) -> str | None:
            raise SecretStoreError("no keyring here")

        def set(self, name: str, value: str) -> None:
            raise SecretStoreError("no keyring here")

    library = ["--library", str(tmp_path / "lib")]
    platform = replace(memory_platform(tmp_path), secrets=NoKeyring())
    assert cli([*library, "import", str(ALICE)], platform) == 0
    assert cli([*library, "position", "1", "5.3"], platform) == 0
    with KosyncServer() as server:
        monkeypatch.setenv("QUIRE_KOSYNC_PASSWORD", "pw")
        assert cli([*library, "kosync", "setup", server.url, "--user", "me", "--register"], platform) == 0
        assert cli([*library, "kosync", "1"], platform) == 0
        assert "Alice's Adventures in Wonderland: sent" in capsys.readouterr().out


# -- hostile servers (issue 37): bounded replies and time, odd progress, the key never printed ------------------
class _RawServer:
    """A socket server on 127.0.0.1 that answers every connection with ``body`` in pieces of ``step`` bytes,
    ``pause`` seconds apart (Content-Length ``declared``), and stops when the client goes."""

    def __init__(self, body: bytes, step: int, pause: float, declared: int | None = None) -> None:
        import socket
        import threading

        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.body, self.step, self.pause, self.declared = body, step, pause, declared
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.recv(65536)
                    length = self.declared if self.declared is not None else len(self.body)
                    conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n".encode())
                    for at in range(0, len(self.body), self.step):
                        conn.sendall(self.body[at : at + self.step])
                        if self.closed.wait(self.pause):  # the server's pace (what is tested), not a wait for an event
                            return
                except OSError:
                    pass

    def close(self) -> None:
        self.closed.set()
        self.sock.close()


def test_a_huge_or_dripping_reply_is_cut_off_with_one_line(quire: Quire, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 400 MB reply was read whole (1.4 GB peak); a byte every 5 s held a sync for 197 s."""
    import time

    from core.koreader import client
    from core.koreader.client import KosyncClient

    huge = _RawServer(b"x" * (400 << 20), 1 << 20, 0.0)
    try:
        with pytest.raises(CatalogError, match="over 64 kB"):
            KosyncClient(huge.url, "a", "k").progress("doc")
    finally:
        huge.close()
    monkeypatch.setattr(client, "TOTAL_SECONDS", 2.0)  # 20 s in the app: the same code path, a shorter wait
    drip = _RawServer(b'{"percentage": 0.5, "progress": "x"}', 1, 0.5)
    started = time.monotonic()
    try:
        with pytest.raises(CatalogError, match="took over 2 s"):
            KosyncClient(drip.url, "a", "k").progress("doc")
    finally:
        drip.close()
    assert time.monotonic() - started < 5


def test_odd_progress_from_a_server_is_placed_by_what_can_be_read(quire: Quire) -> None:
    """A percentage of NaN, an xpointer with a 5,000-digit index and a PDF page of "²" gave tracebacks."""
    book = quire.import_paths([ALICE])[0].book.id
    pdf = quire.import_paths([book_path("formats/epubjs-alice.pdf")])[0].book.id
    with KosyncServer() as server:
        quire.kosync.setup(server.url, "reader", "pw", None, register=True)
        document = quire.kosync.document(book)
        server.documents[("reader", document)] = {"progress": "/body/DocFragment[" + "9" * 5000 + "]/body/p[3]",
                                                  "percentage": 0.5, "device": "Kobo", "device_id": "k"}  # fmt: skip
        [got] = quire.kosync.sync(book, password="pw")
        assert got.direction == "received"  # by its share: half-way
        server.documents[("reader", document)]["percentage"] = float("nan")
        server.documents[("reader", document)]["progress"] = ""
        [nan] = quire.kosync.sync(book, password="pw")
        assert nan.direction in ("sent", "same")  # nothing placed from NaN; this device's place goes out
        server.documents[("reader", quire.kosync.document(pdf))] = {"progress": "²", "percentage": 0.25,
                                                                    "device": "Kindle", "device_id": "k"}  # fmt: skip
        [page] = quire.kosync.sync(pdf, password="pw")
        assert page.direction == "received"


def test_a_servers_error_message_never_shows_the_key(
    quire: Quire, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from httpkit import LocalServer, Reply

    key = hashlib.md5(b"pw").hexdigest()
    echo = LocalServer(lambda request: Reply(500, {"message": f"internal error for x-auth-key: {key}"}))
    with echo:
        library = ["--library", str(tmp_path / "lib")]
        platform = memory_platform(tmp_path)
        monkeypatch.setenv("QUIRE_KOSYNC_PASSWORD", "pw")
        assert cli([*library, "kosync", "setup", echo.url, "--user", "me"], platform) == 1
        err = capsys.readouterr().err
        assert "HTTP 500" in err and key not in err and key[:12] not in err
