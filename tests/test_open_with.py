"""Android's "Open with" and "Share" to Quire (issue 30): the Python side of extensions/flet-open-with, over Flet's
own method-call protocol. A file another app handed over is imported through the picker's path (its progress
dialog and summary), its cache copy removed, and taken once; away from Android nothing is asked."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, book_path
from fletkit import new_session

from app.shell import QuireApp
from core import Quire
from platform_adapters.memory import MemorySecrets

pytestmark = pytest.mark.storage


def test_a_book_opened_with_quire_on_android_is_imported_once(
    quire: Quire, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "extensions" / "flet-open-with" / "src"))
    cache = tmp_path / "cache" / "opened"
    cache.mkdir(parents=True)
    copy = cache / "1700000000-alice.epub"
    shutil.copy(book_path("en/epubjs-alice.epub"), copy)

    async def scenario() -> None:
        session = await new_session(390, 844)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.render()
        assert await app.opened.take() == 0 and not session.connection.invoked  # not Android: nothing asked
        monkeypatch.setenv("FLET_PLATFORM", "android")
        handed = [[{"name": "alice.epub", "path": str(copy)}], []]
        session.connection.answers["OpenWith.take"] = lambda: handed.pop(0)
        assert await app.opened.take() == 1
        assert [b.title for b in quire.books()] == ["Alice's Adventures in Wonderland"]
        assert app.message == "1 imported, 0 already in your library, 0 failed"  # the picker's summary line
        assert not copy.exists()  # the cache copy is gone: the library has its own
        assert await app.opened.take() == 0 and len(quire.books()) == 1  # taken once
        assert session.connection.invoked.count(("OpenWith", "take")) == 2

    asyncio.run(scenario())
