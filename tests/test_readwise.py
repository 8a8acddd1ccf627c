"""Highlights sent to Readwise (issue 41) against a local server following its documented API (tests/readwisekit.py):
the token checked and kept in the secret store, only what is new or changed sent, a wrong token, a 429 with
Retry-After, a send cut off halfway, the server down, garbage for a reply, and local-only mode sending nothing."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import book_path
from httpkit import Reply
from readwisekit import ReadwiseServer

from app.cli import main as cli
from core import LocalOnlyError, Quire, ReadwiseError, ReadwiseRefused
from core.errors import SecretStoreError
from core.parts.readwise import BATCH
from platform_adapters.memory import MemorySecrets, memory_platform

pytestmark = pytest.mark.storage


@pytest.fixture
def marked(alice_quire: Quire) -> Quire:
    """Alice with three highlights, one with a note."""
    paragraphs = [s for s in alice_quire.text.segments(1, 0, 200) if s.kind != "image" and len(s.text) > 40][:3]
    for number, segment in enumerate(paragraphs):
        alice_quire.notes.add_highlight(1, str(segment.locator), note="Why a raven?" if number == 1 else "")
    return alice_quire


def test_highlights_go_once_with_their_book_note_and_place_and_a_changed_note_goes_again(
    marked: Quire, tmp_path: Path
) -> None:
    secrets = MemorySecrets()
    with ReadwiseServer() as server:
        marked.readwise.setup("good-token", secrets, url=server.url)
        assert secrets.get("readwise") == "good-token"
        stored = b"".join(f.read_bytes() for f in marked.folder.glob("library.db*"))  # the database and its journal
        assert stored and b"good-token" not in stored  # in the secret store only
        first = marked.readwise.send(secrets)
        assert (first.sent, first.books, first.unchanged) == (3, 1, 0)
        kept = sorted(server.highlights.values(), key=lambda h: h["location"])
        mine = sorted(marked.notes.highlights(1), key=lambda h: h.start.sort_key())
        assert [h["text"] for h in kept] == [h.text for h in mine]
        assert {(h["title"], h["author"], h["category"], h["source_type"]) for h in kept} == {
            ("Alice's Adventures in Wonderland", "Lewis Carroll", "books", "quire")
        }
        assert kept[1]["note"] == "Why a raven?" and "note" not in kept[0]
        assert kept[0]["location_type"] == "order" and kept[0]["location"] < kept[1]["location"] < kept[2]["location"]
        assert marked.readwise.send(secrets).sent == 0 and len(server.requests) == 2  # nothing new: no request
        marked.notes.update_highlight(mine[0].id, note="A note added later")
        again = marked.readwise.send(secrets)
        assert (again.sent, again.unchanged) == (1, 2)
        assert len(server.highlights) == 3 and kept[0]["note"] == "A note added later"  # merged there, not doubled


def test_a_wrong_or_revoked_token_is_refused_and_nothing_counts_as_sent(marked: Quire) -> None:
    secrets = MemorySecrets()
    with ReadwiseServer() as server:
        with pytest.raises(ReadwiseRefused, match="access token"):
            marked.readwise.setup("wrong", secrets, url=server.url)
        assert secrets.get("readwise") is None and marked.readwise.settings() is None
        marked.readwise.setup("good-token", secrets, url=server.url)
        server.token = "revoked-since"
        with pytest.raises(ReadwiseRefused) as refused:
            marked.readwise.send(secrets)
        assert "good-token" not in str(refused.value)
        assert marked.readwise.pending() == 3 and server.highlights == {}


def test_a_429_is_waited_out_and_a_send_cut_off_goes_on_where_it_stopped(alice_quire: Quire) -> None:
    paragraphs = {s.text: s for s in alice_quire.text.segments(1, 0, 2000) if s.kind != "image" and s.text.strip()}
    assert len(paragraphs) > BATCH + 20
    for segment in list(paragraphs.values())[: BATCH + 20]:
        alice_quire.notes.add_highlight(1, str(segment.locator))
    secrets, waited = MemorySecrets(), []
    with ReadwiseServer() as server:
        alice_quire.readwise.setup("good-token", secrets, url=server.url)
        server.wait = ["2"]  # the first batch is throttled once: waited out as Readwise asks
        server.full_after = BATCH  # the second, for an hour: the send stops there
        with pytest.raises(ReadwiseError, match="wait 3600 s"):
            alice_quire.readwise.send(secrets, sleep=waited.append)
        assert waited == [2.0] and len(server.highlights) == BATCH
        assert alice_quire.readwise.pending() == 20  # the first batch stays sent
        server.full_after = None
        result = alice_quire.readwise.send(secrets, sleep=waited.append)
        assert (result.sent, result.unchanged) == (20, BATCH) and len(server.highlights) == BATCH + 20


def test_the_server_down_or_answering_garbage_is_one_clear_error(marked: Quire) -> None:
    secrets = MemorySecrets()
    with ReadwiseServer() as server:
        marked.readwise.setup("good-token", secrets, url=server.url)
        server.reply = Reply(200, b"<html>maintenance</html>")
        with pytest.raises(ReadwiseError, match="not JSON"):
            marked.readwise.send(secrets)
        server.reply = Reply(500, b"internal error for token good-token")
        with pytest.raises(ReadwiseError) as failed:
            marked.readwise.send(secrets)
        assert "HTTP 500" in str(failed.value) and "good-token" not in str(failed.value)  # redacted
    with pytest.raises(ReadwiseError, match="cannot be reached"):
        marked.readwise.send(secrets)
    assert marked.readwise.pending() == 3


def test_local_only_mode_sends_nothing(marked: Quire) -> None:
    secrets = MemorySecrets()
    with ReadwiseServer() as server:
        marked.readwise.setup("good-token", secrets, url=server.url)
        marked.local_only = True
        with pytest.raises(LocalOnlyError, match="nothing is sent"):
            marked.readwise.send(secrets)
        with pytest.raises(LocalOnlyError):
            marked.readwise.setup("good-token", secrets, url=server.url)
        assert [r.path for r in server.requests] == ["/api/v2/auth/"]  # the setup before: nothing since


def test_quire_readwise_setup_send_and_off(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    library = ["--library", str(tmp_path / "lib")]
    platform = memory_platform(tmp_path)
    assert cli([*library, "import", str(book_path("en/epubjs-alice.epub"))], platform) == 0
    assert cli([*library, "highlights", "add", "1", "5.3"], platform) == 0
    with ReadwiseServer() as server:
        monkeypatch.setenv("QUIRE_READWISE_TOKEN", "good-token")
        assert cli([*library, "readwise", "setup", "--url", server.url], platform) == 0
        capsys.readouterr()
        assert cli([*library, "readwise", "--json"], platform) == 0
        assert json.loads(capsys.readouterr().out) == {"sent": 1, "books": 1, "unchanged": 0}
        assert cli([*library, "readwise"], platform) == 0
        assert "Sent 0 highlights" in capsys.readouterr().out
        assert cli([*library, "readwise", "off"], platform) == 0
        assert cli([*library, "readwise"], platform) == 1
        out = capsys.readouterr()
        assert "not set up" in out.err and "good-token" not in out.out + out.err


def test_an_echoed_token_is_hidden_before_the_error_is_cut_and_a_redirect_is_no_success(marked: Quire) -> None:
    """Issue 58 item 8: an error echoing the token was cut to 200 characters before the token was hidden, so a token
    straddling the cut printed 12 of its 22 characters; and setup took a 302 as success and stored the token."""
    secrets = MemorySecrets()
    token = "tok-abcdefghijklmnopqr"  # 22 characters
    with ReadwiseServer(token=token) as server:
        server.reply = Reply(500, ("x" * 185 + f" {token} and more").encode())
        with pytest.raises(ReadwiseError) as failed:
            marked.readwise.setup(token, secrets, url=server.url)
        assert "tok-abcdefgh" not in str(failed.value) and "HTTP 500" in str(failed.value)
        server.reply = Reply(302, b"", {"Location": "/moved"})
        with pytest.raises(ReadwiseError, match="HTTP 302"):
            marked.readwise.setup(token, secrets, url=server.url)
        assert secrets.get("readwise") is None and marked.readwise.settings() is None


class _NoKeyring(MemorySecrets):
    """A computer without a keyring: nothing can be kept or read."""

    def set(self, name: str, value: str) -> None:
        raise SecretStoreError("no keyring here")

    def get(self, name: str) -> str | None:
        raise SecretStoreError("no keyring here")


def test_without_a_keyring_the_token_in_the_environment_is_used_for_every_send(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """Issue 58 item 8: on a computer without a keyring the token could not be kept, and `quire readwise send` did
    not read $QUIRE_READWISE_TOKEN."""
    library = ["--library", str(tmp_path / "lib")]
    platform = dataclasses.replace(memory_platform(tmp_path), secrets=_NoKeyring())
    assert cli([*library, "import", str(book_path("en/epubjs-alice.epub"))], platform) == 0
    assert cli([*library, "highlights", "add", "1", "5.3"], platform) == 0
    with ReadwiseServer() as server:
        monkeypatch.setenv("QUIRE_READWISE_TOKEN", "good-token")
        assert cli([*library, "readwise", "setup", "--url", server.url], platform) == 0
        assert "read from $QUIRE_READWISE_TOKEN" in capsys.readouterr().err
        assert cli([*library, "readwise", "--json"], platform) == 0
        assert json.loads(capsys.readouterr().out)["sent"] == 1
        monkeypatch.delenv("QUIRE_READWISE_TOKEN")
        assert cli([*library, "readwise"], platform) == 1
        assert "keyring" in capsys.readouterr().err


def test_a_closed_stdin_and_bytes_that_are_no_utf8_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """Issue 58 item 9: a password prompt with stdin closed (``<&-``) gave "'NoneType' object has no attribute
    'isatty'"; non-UTF-8 bytes in ``edit --title`` or ``highlights add --note`` a traceback from SQLite."""
    library = ["--library", str(tmp_path / "lib")]
    platform = memory_platform(tmp_path)
    assert cli([*library, "import", str(book_path("en/epubjs-alice.epub"))], platform) == 0
    monkeypatch.delenv("QUIRE_READWISE_TOKEN", raising=False)
    monkeypatch.setattr("sys.stdin", None)
    capsys.readouterr()
    assert cli([*library, "readwise", "setup"], platform) == 1
    assert "QUIRE_READWISE_TOKEN" in capsys.readouterr().err
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")  # as Python gives an argument typed in Latin-1
    assert cli([*library, "edit", "1", "--title", bad], platform) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert cli([*library, "highlights", "add", "1", "5.3", "--note", bad], platform) == 2
    assert cli([*library, "list", "--json"], platform) == 0
    assert "Alice" in capsys.readouterr().out  # the title as it was
