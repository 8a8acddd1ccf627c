"""Quire still works where onnxruntime, tokenizers and sqlite-vec cannot be imported (as on some phones)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, book_path

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

SCRIPT = r"""
import importlib.abc, json, sys
BLOCKED = {"onnxruntime", "tokenizers", "sqlite_vec", "sqlean"}

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked for this test)")
        return None

sys.meta_path.insert(0, Block())
from core.errors import ModelUnavailableError
from core.services import Quire
import asyncio
from app.shell import QuireApp
from fletkit import new_session, texts
from platform_adapters.memory import MemorySecrets
from dbkit import inside

quire = Quire(sys.argv[1])
book = quire.import_paths([sys.argv[2]])[0].book
report = {
    "driver": type(inside(quire).library.conn).__module__,
    "vector_backend": quire.vector_backend,
    "chunking": inside(quire).chunks.profile(book.id).tokenizer,
    "chunks": inside(quire).chunks.count(book.id),
    "keyword_hits": len(quire.search(book.id, "Queequeg", mode="keyword", k=3)),
    "find_hits": len(quire.find(book.id, "Queequeg")),
    "models": [m.name for m in quire.models.status() if m.available],
}

async def drive_the_app():  # the whole shell on a real (client-less) Flet page: library, reader, search
    session = await new_session(390, 844)
    app = QuireApp(session.page, quire, secrets=MemorySecrets())
    app.render()
    shown = texts(app.page.controls)
    app.open_book(book.id)
    app.reading.search("Queequeg")
    app.reading.open_hit(0)
    return {"library_shows": "Moby-Dick" in shown, "reader_at_hit": app.reader.current.ordinal == app.reader.finder.hits[0].ordinal}

report.update(asyncio.run(drive_the_app()))
try:
    quire.index(book.id)
except ModelUnavailableError as error:
    report["index_error"] = str(error)
print(json.dumps(report))
"""


def test_the_core_and_the_app_work_without_the_native_extras(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "lib"), str(book_path("en/idpf-moby-dick.epub"))],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    import importlib.util

    forced = os.environ.get("QUIRE_SQLITE", "")
    phone_driver = "core.library.apsw_driver" if importlib.util.find_spec("apsw") and forced != "stdlib" else "sqlite3"
    assert report["driver"].startswith(phone_driver) and report["vector_backend"] == "numpy"  # sqlean is gone
    assert report["chunking"] == "approximate" and report["chunks"] > 1000
    assert report["keyword_hits"] == 3 and report["find_hits"] > 0
    assert report["models"] == [] and report["library_shows"] and report["reader_at_hit"]
    assert "keyword search still works" in report["index_error"]
