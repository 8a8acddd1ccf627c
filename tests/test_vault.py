"""Highlights in an Obsidian vault (issue 41): a note per book, Quire's part updated, the reader's writing kept."""

import re
from pathlib import Path

import pytest
from conftest import book_path

from app.cli import main
from core.services import Quire
from core.vault import END, START

pytestmark = pytest.mark.storage


@pytest.fixture
def marked(quire: Quire) -> int:
    """Alice with two highlights in two chapters, one with a note, one cut from inside a line of dialogue."""
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    dialogue = next(s for s in quire.text.segments(book, 0, 400) if s.text.startswith('"') and s.locator.section > 2)
    cut = dialogue.text.index('"', 1) + 1
    quire.notes.add_highlight(book, "2.3", note="Where it begins.")
    quire.notes.add_highlight(book, str(dialogue.locator.at(1)), str(dialogue.locator.at(cut)), color="blue")
    quire.save_position(book, "4.0")
    return book


def _front(text: str) -> dict[str, str]:
    head = text.split("\n---\n", 1)[0]
    return dict(line.split(": ", 1) for line in head.splitlines()[1:] if ": " in line)


def test_a_note_per_book_with_its_chapters_quotes_notes_and_block_ids(
    quire: Quire, marked: int, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    written = quire.notes.export_vault(vault, marked, create=True)
    assert written == [vault / "Alice's Adventures in Wonderland.md"]
    text = written[0].read_text(encoding="utf-8")
    front = _front(text)
    assert front["title"] == '"Alice\'s Adventures in Wonderland"' and front["authors"] == '["Lewis Carroll"]'
    assert front["tags"] == '["quire"]' and front["format"] == '"EPUB"' and front["progress"].isdigit()
    assert front["quire"] == f'"{quire.book(marked).content_hash}"'
    highlights = quire.notes.highlights(marked)
    ids = re.findall(r"^\^(quire-[A-Za-z0-9-]+)$", text, re.MULTILINE)
    assert len(ids) == len(set(ids)) == 2 and all(h.uid[:8] in " ".join(ids) for h in highlights)
    assert "## Down The Rabbit-Hole" in text and "Where it begins." in text
    cut = next(h for h in highlights if h.color == "blue").text
    assert f'> "{cut}' in text  # the dialogue's opening mark put back
    assert text.index(START) < text.index("## ") < text.index(END)


def test_exporting_again_updates_quires_part_and_keeps_what_the_reader_wrote(
    quire: Quire, marked: int, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    [note] = quire.notes.export_vault(vault, marked, create=True)
    assert quire.notes.export_vault(vault, marked) == []  # nothing changed: nothing rewritten (no sync churn)
    text = note.read_text(encoding="utf-8")
    first_ids = re.findall(r"^\^(quire-\S+)$", text, re.MULTILINE)
    head, body = text.split("\n---\n", 1)
    mine = head + "\nrating: 5\nshelf:\n  - favourites\n---\nMy thoughts before.\n" + body + "\nAnd after.\n"
    renamed = vault / "Alice (read in 2026).md"  # the reader renamed it in Obsidian
    note.rename(renamed)
    renamed.write_text(mine.replace("progress: ", "progress: 99 # "), encoding="utf-8")
    quire.notes.add_highlight(marked, "3.1", note="A third.")
    assert quire.notes.export_vault(vault, marked) == [renamed] and sorted(vault.iterdir()) == [renamed]
    again = renamed.read_text(encoding="utf-8")
    assert "rating: 5\nshelf:\n  - favourites\n" in again and _front(again)["progress"].isdigit()
    assert "My thoughts before." in again and again.rstrip().endswith("And after.")
    assert "A third." in again and again.count(START) == again.count(END) == 1
    assert set(first_ids) < set(re.findall(r"^\^(quire-\S+)$", again, re.MULTILINE))  # old links still land


def test_quire_export_vault_writes_every_book_with_highlights(
    quire: Quire, marked: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quire.import_paths([book_path("zh/hongloumeng_120.md")])  # no highlights: no note
    quire.close()
    library, vault = str(tmp_path / "quire"), tmp_path / "vault"  # the fixture's library folder
    typo = tmp_path / "Vualt" / "notes"
    assert main(["--library", library, "export", "--vault", str(typo)]) == 1  # issue 60: made the whole path before
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "Vualt").exists()
    assert main(["--library", library, "export", "--vault", str(typo), "--create"]) == 1  # its parent is missing too
    assert main(["--library", library, "export", "--vault", str(vault)]) == 1
    assert "give --create" in capsys.readouterr().err and not vault.exists()
    assert main(["--library", library, "export", "--vault", str(vault), "--create"]) == 0
    assert [p.name for p in vault.iterdir()] == ["Alice's Adventures in Wonderland.md"]
    assert main(["--library", library, "export"]) == 1  # neither a book nor a vault
    assert "give --vault DIR" in capsys.readouterr().err


def test_the_apps_words_never_name_a_command_line_flag_and_koreader_sync_is_named(tmp_path: Path) -> None:
    """Issue 60 item 7: Settings › Sync told the reader to "set up with --create" (a command-line flag, in the app),
    and KOReader sync's errors began "The catalog or server could not be used"."""
    from app.i18n import Translator
    from core import KosyncError, SyncFolderMissing
    from core.sync.target import FolderTarget

    with pytest.raises(SyncFolderMissing) as missing:
        FolderTarget(tmp_path / "nowhere").prepare()
    for language in ("en", "zh"):
        shown = Translator(language).error(missing.value)
        assert "--" not in shown and "quire " not in shown
    said = Translator("en").error(KosyncError("the KOReader sync server at example.org failed (HTTP 500)"))
    assert said.startswith("The KOReader sync server could not be used")
