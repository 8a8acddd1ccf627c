"""Issue 58: exports that stay in their folder. KOReader's sidecars and the Obsidian vault are written into folders
the reader's other programs own; a link, a FIFO or a device planted there, a marker in a highlight or a long title
must not make Quire write elsewhere, hang, grow without end or stop the other books."""

import os
import shutil
import threading
from pathlib import Path

import pytest
from conftest import book_path
from test_koreader import _at, _marked, _sidecar

from core.books.textutil import safe_file_name
from core.folder_files import UnsafeFile, read_regular, write_beside
from core.koreader.document import partial_md5
from core.koreader.lua import SidecarError, dump_sidecar, parse_sidecar
from core.services import Quire
from core.vault import END

pytestmark = [pytest.mark.storage, pytest.mark.skipif(os.name == "nt", reason="links and FIFOs as POSIX has them")]


def _kobo(tmp_path: Path, annotations: list[dict[str, str]] | None = None) -> tuple[Path, Path]:
    """An e-reader's folder holding Moby-Dick and its sidecar, KOReader's own."""
    folder = tmp_path / "Kobo"
    folder.mkdir()
    book = folder / "moby.epub"
    shutil.copyfile(book_path("en/idpf-moby-dick.epub"), book)
    sidecar = _sidecar(book, {"annotations": annotations or [], "doc_props": {"title": "Moby-Dick"},
                              "partial_md5_checksum": partial_md5(book)})  # fmt: skip
    return folder, sidecar


def test_a_planted_partial_link_is_replaced_never_written_through(quire: Quire, tmp_path: Path) -> None:
    """Item 1: the new sidecar went to a fixed ``.partial`` name opened with ``open("w")``, which followed a link
    planted there and overwrote the file it pointed to."""
    _marked(quire)
    folder, sidecar = _kobo(tmp_path)
    victim = tmp_path / "precious.txt"
    victim.write_text("mine", encoding="utf-8")
    sidecar.with_name(sidecar.name + ".partial").symlink_to(victim)
    [result] = quire.koreader.export_highlights(folder)
    assert result.added == 2 and result.problem == ""
    assert victim.read_text(encoding="utf-8") == "mine"
    assert len(parse_sidecar(sidecar.read_text(encoding="utf-8"))["annotations"]) == 2


def test_a_sidecar_that_is_a_fifo_or_dev_zero_is_refused_in_one_line(quire: Quire, tmp_path: Path) -> None:
    """Item 2: export read every sidecar under the folder whole: a FIFO hung it for ever, a link to /dev/zero grew
    to 2.7 GB. Import and export now say in one line that they are not sidecars, and go on with the others."""
    _marked(quire)
    folder, _ = _kobo(tmp_path)
    (folder / "fifo.sdr").mkdir()
    os.mkfifo(folder / "fifo.sdr" / "metadata.epub.lua")
    (folder / "zero.sdr").mkdir()
    (folder / "zero.sdr" / "metadata.epub.lua").symlink_to("/dev/zero")
    outcome: dict[str, object] = {}
    worker = threading.Thread(target=lambda: outcome.update(
        exported=quire.koreader.export_highlights(folder), imported=quire.koreader.import_highlights(folder)),
        daemon=True)  # fmt: skip
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "export or import hung on a FIFO"
    [exported] = outcome["exported"]  # type: ignore[misc]
    assert exported.added == 2
    problems = {Path(r.sidecar).parent.name: r.problem for r in outcome["imported"]}  # type: ignore[attr-defined]
    assert "not a regular file" in problems["fifo.sdr"] and "is a link" in problems["zero.sdr"]
    with pytest.raises(UnsafeFile, match="not a regular file"):
        read_regular(Path("/dev/zero"), 1024)


def test_an_sdr_folder_that_links_out_is_not_written_and_koreaders_original_survives_two_exports(
    quire: Quire, tmp_path: Path
) -> None:
    """Item 7: a ``.sdr`` folder linked elsewhere led export out of the folder; ``.old`` kept one generation, so a
    second export lost KOReader's original. That original is now kept once as ``.before-quire``."""
    book = _marked(quire)
    folder, sidecar = _kobo(tmp_path)
    original = sidecar.read_bytes()
    [first] = quire.koreader.export_highlights(folder)
    quire.notes.add_highlight(book, *_at(quire, book, "Whenever I find myself"), note="third")
    [second] = quire.koreader.export_highlights(folder)
    assert (first.added, second.added) == (2, 1)
    assert sidecar.with_name(sidecar.name + ".before-quire").read_bytes() == original
    assert sidecar.with_name(sidecar.name + ".old").read_bytes() != original  # the generation before the second

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = folder / "other.epub"
    shutil.copyfile(folder / "moby.epub", other)
    os.remove(folder / "moby.epub")
    shutil.rmtree(folder / "moby.sdr")
    (folder / "other.sdr").symlink_to(elsewhere, target_is_directory=True)
    [linked] = quire.koreader.export_highlights(folder)
    assert "through a link" in linked.problem and list(elsewhere.iterdir()) == []


def test_two_exports_at_once_always_leave_the_sidecar(quire: Quire, tmp_path: Path) -> None:
    """Item 7: two exports at once left only the ``.old`` sidecar once in 8 rounds (one shared ``.partial``, the
    sidecar moved aside before the new one was in place). Now it is never missing."""
    _marked(quire)
    folder, sidecar = _kobo(tmp_path)
    for _ in range(8):
        threads = [threading.Thread(target=quire.koreader.export_highlights, args=(folder,)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(parse_sidecar(sidecar.read_text(encoding="utf-8"))["annotations"]) == 2
    assert not [p for p in sidecar.parent.iterdir() if p.name.endswith(".partial")]


@pytest.mark.parametrize(
    ("value", "why"),
    [("1" * 5000, "number longer"), ('{["a"] = 1}', "table used as a key"), ("{{1}}", "table used as a key")],
)
def test_sidecar_values_no_koreader_writes_are_one_line_not_a_traceback(value: str, why: str) -> None:
    """Item 6: a 5,000-digit integer and a table used as a key (plain or nested) crashed import and export."""
    text = f"return {{\n    [{value}] = 1,\n}}\n" if value.startswith("{") else f'return {{\n    ["n"] = {value},\n}}\n'
    with pytest.raises(SidecarError, match=why):
        parse_sidecar(text)


def test_bytes_that_are_no_utf8_and_koreaders_dates_survive_the_round_trip(quire: Quire, tmp_path: Path) -> None:
    """Item 11: import dated KOReader's highlight by the import; export rewrote invalid UTF-8 as U+FFFD."""
    book = quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id
    page = "/body/DocFragment[7]/body/section/p[1]/text().0"
    annotation = {"datetime": "2025-03-04 05:06:07", "text": "Call me Ishmael.", "color": "yellow", "page": page}
    folder, sidecar = _kobo(tmp_path, [annotation])
    raw = sidecar.read_bytes().replace(b'["doc_props"] = {', b'["odd"] = "caf\xe9 \\233",\n    ["doc_props"] = {')
    sidecar.write_bytes(raw)
    [imported] = quire.koreader.import_highlights(folder)
    assert imported.added == 1
    [highlight] = quire.notes.highlights(book)
    stamp = highlight.created_at
    assert stamp.startswith("2025-03-0"), stamp  # the e-reader's day (its local time, stored as UTC)
    quire.notes.add_highlight(book, *_at(quire, book, "Whenever I find myself"))
    [exported] = quire.koreader.export_highlights(folder)
    assert exported.added == 1
    written = sidecar.read_bytes()
    assert b"\\233" in written and "\ufffd".encode() not in written  # the byte 0xE9 written back as that byte
    assert parse_sidecar(written.decode("utf-8"))["odd"] == parse_sidecar(raw.decode("utf-8", "surrogateescape"))["odd"]
    assert dump_sidecar(parse_sidecar(written.decode("utf-8"))) == written.decode("utf-8")


def test_the_vault_never_writes_through_a_link_nor_reads_a_fifo(quire: Quire, tmp_path: Path) -> None:
    """Items 2 and 10: the vault export read every ``*.md`` whole (a FIFO hung it, /dev/zero grew without end) and
    followed a dangling link named like a new note, creating its target outside the vault."""
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    quire.notes.add_highlight(book, "2.3")
    vault = tmp_path / "vault"
    vault.mkdir()
    os.mkfifo(vault / "pipe.md")
    (vault / "zero.md").symlink_to("/dev/zero")
    outside = tmp_path / "outside.md"
    (vault / f"{safe_file_name(quire.book(book).title)}.md").symlink_to(outside)
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(quire.notes.export_vault(vault)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the vault export hung on a FIFO"
    [written] = done[0]  # type: ignore[misc]
    assert written.parent == vault and written.is_file() and not written.is_symlink()
    assert not outside.exists()


def test_a_marker_inside_a_highlight_does_not_grow_the_note(quire: Quire, tmp_path: Path) -> None:
    """Item 3: a note holding the vault's end marker made the note grow on every export (8.6 -> 10.2 -> 11.9 kB)."""
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    quire.notes.add_highlight(book, "2.3", note=f"see {END} here")
    vault = tmp_path / "vault"
    [note] = quire.notes.export_vault(vault, create=True)
    size = note.stat().st_size
    for _ in range(3):
        quire.notes.update_highlight(quire.notes.highlights(book)[0].id, note=f"see {END} here, again")
        quire.notes.export_vault(vault)
        quire.notes.update_highlight(quire.notes.highlights(book)[0].id, note=f"see {END} here")
        quire.notes.export_vault(vault)
    assert note.stat().st_size == size
    assert note.read_text(encoding="utf-8").count(END) == 1


def test_long_titles_and_device_names_make_safe_file_names(quire: Quire, tmp_path: Path) -> None:
    """Items 4 and 14: names were cut at 100 characters, not bytes (85 Chinese characters or 64 emoji failed with
    "File name too long" and stopped every book after), and Windows' device names were written as they were."""
    assert len(safe_file_name("红" * 85).encode()) <= 150 and len(safe_file_name("😀" * 64).encode()) <= 150
    assert safe_file_name("CON") == "_CON" and safe_file_name("nul.txt") == "_nul.txt"
    assert safe_file_name("Console") == "Console"
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    quire.notes.add_highlight(book, "2.3")
    for title, starts in (("红" * 85, "红"), ("😀" * 64, "😀"), ("CON", "_CON")):
        quire.edit_book(book, title=title)
        [note] = quire.notes.export_vault(tmp_path / f"vault-{len(title)}", create=True)
        assert note.name.startswith(starts) and note.is_file()


def test_write_beside_refuses_a_path_out_of_its_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "out").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(UnsafeFile):
        write_beside(root / "out" / "x.lua", b"x", root)
    with pytest.raises(UnsafeFile):
        write_beside(tmp_path / "x.lua", b"x", root)
    write_beside(root / "a" / "b.lua", b"y", root)
    assert (root / "a" / "b.lua").read_bytes() == b"y" and not (tmp_path / "x.lua").exists()
