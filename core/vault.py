"""Highlights as notes in an Obsidian vault: one Markdown note per book, Quire's part rewritten on each export and
everything the reader wrote around it kept.

A note is found again by its ``quire`` key (the book's content hash), so the reader may rename or move it inside
the vault's top folder. Quire owns the front matter keys it writes (``MANAGED``) and the part between its two
markers; other keys, and text before or after the markers, are the reader's and are never changed. Each highlight
carries a block id (``^quire-…``, from its sync identity) so that links to it (``[[Book#^quire-…]]``) survive
every export. The front matter is written by hand, each value as JSON (which YAML reads), because the reader's own
keys are kept line for line rather than parsed and dumped again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from core.books.textutil import safe_file_name
from core.errors import QuireError, VaultFolderMissing
from core.folder_files import UnsafeFile, read_regular, write_beside
from core.library.records import BookRecord, Highlight
from core.quotes import balanced

START = "<!-- quire:highlights (rewritten by Quire on each export; write outside these two lines) -->"
END = "<!-- /quire:highlights -->"
MAX_NOTE = 8 * 1024 * 1024  # a note far longer than any book's highlights: not one to rewrite
MANAGED = ("title", "authors", "tags", "format", "progress", "quire")
_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*:")


@dataclass(frozen=True, slots=True)
class VaultBook:
    """What a book's note is made from."""

    book: BookRecord
    highlights: list[Highlight]
    sections: dict[int, str]  # section index -> chapter title
    progress: float  # the furthest place read, percent


def export_vault(folder: Path, books: list[VaultBook], create: bool = False) -> list[Path]:
    """Write (or update) each book's note in ``folder``; the notes whose text changed, in the books' order. A note
    is read only as a regular file of at most ``MAX_NOTE`` bytes and written as a new file renamed over it, never
    through a link (``core.folder_files``). A book whose note cannot be written does not stop the others: a
    QuireError at the end names each one. A folder that is not there is made only with ``create`` (and only its
    last part: a parent missing too is a typo more likely than a wish), else VaultFolderMissing."""
    if not folder.is_dir():
        if not create or not folder.parent.is_dir() or folder.exists():
            raise VaultFolderMissing(f"the vault folder {folder} does not exist: check its name, or create it")
        folder.mkdir()
    known = _notes_by_book(folder)
    written, failed = [], []
    for item in books:
        path = known.get(item.book.content_hash) or _new_path(folder, item.book)
        try:
            before = read_regular(path, MAX_NOTE).decode("utf-8") if path.exists() or path.is_symlink() else None
            text = merge_note(before, front_matter(item), highlights_part(item))
            if text != before:
                write_beside(path, text.encode("utf-8"), folder)
                written.append(path)
        except (OSError, UnicodeDecodeError, UnsafeFile) as error:
            why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            failed.append(f"'{item.book.title[:60]}' ({why})")
    if failed:
        raise VaultError(f"{len(written)} notes written; not written: {'; '.join(failed)}", written)
    return written


class VaultError(QuireError):
    """Some books' notes could not be written; ``written`` holds those that were."""

    def __init__(self, message: str, written: list[Path]) -> None:
        super().__init__(message)
        self.written = written


def front_matter(item: VaultBook) -> dict[str, str]:
    """Quire's front matter keys and their values, each written as JSON."""
    book = item.book
    return {
        "title": json.dumps(book.title, ensure_ascii=False),
        "authors": json.dumps(book.authors, ensure_ascii=False),
        "tags": json.dumps(["quire", *book.tags], ensure_ascii=False),
        "format": json.dumps(book.edition, ensure_ascii=False),
        "progress": json.dumps(round(item.progress)),
        "quire": json.dumps(book.content_hash),
    }


def highlights_part(item: VaultBook) -> str:
    """The highlights grouped under their chapters, each a quote with its note under it and its block id."""
    lines = [START, ""]
    chapter = None
    for highlight in sorted(item.highlights, key=lambda h: (h.start.section, h.start.segment, h.start.offset or 0)):
        title = item.sections.get(highlight.start.section, f"Section {highlight.start.section + 1}")
        if title != chapter:
            lines += [f"## {title}", ""]
            chapter = title
        lines += [f"> {line}" if line.strip() else ">" for line in _inert(balanced(highlight.text)).splitlines()]
        lines += ["", f"^{block_id(highlight)}", ""]
        if highlight.note.strip():
            lines += [_inert(highlight.note.strip()), ""]
    if not item.highlights:
        lines += ["No highlights yet.", ""]
    return "\n".join([*lines, END])


def _inert(text: str) -> str:
    """A reader's text with Quire's markers made inert: a highlight or note holding ``<!-- /quire:highlights -->``
    would otherwise end Quire's part early, and the note would grow on every export. HTML's ``&lt;`` shows the
    same ``<`` in the note."""
    return text.replace(START, START.replace("<", "&lt;", 1)).replace(END, END.replace("<", "&lt;", 1))


def block_id(highlight: Highlight) -> str:
    """The highlight's block id: the same on every export and every device (its sync identity)."""
    own = re.sub(r"[^A-Za-z0-9-]", "", highlight.uid)[:24]
    return f"quire-{own or highlight.id}"


def merge_note(existing: str | None, front: dict[str, str], part: str) -> str:
    """The note with Quire's keys and part replaced, the reader's keys and text kept as they were."""
    kept_front: list[str] = []
    body = existing or ""
    if body.startswith("---\n") and "\n---\n" in body[3:]:
        end = body.index("\n---\n", 3)
        kept_front = _readers_keys(body[4:end].splitlines())
        body = body[end + 5 :]
    header = ["---", *(f"{key}: {value}" for key, value in front.items()), *kept_front, "---"]
    if START in body and END in body[body.index(START) :]:
        before, rest = body.split(START, 1)
        after = rest.split(END, 1)[1]
        body = before + part + after
    else:  # a new note, or one whose markers the reader took out: Quire's part goes at its end
        body = body.rstrip("\n") + ("\n\n" if body.strip() else "") + part + "\n"
    return "\n".join(header) + "\n" + body


def _readers_keys(lines: list[str]) -> list[str]:
    """The front matter lines that are not Quire's keys (a key of Quire's takes its indented lines with it)."""
    kept, ours = [], False
    for line in lines:
        key = _KEY.match(line)
        if key is not None:
            ours = key.group(1) in MANAGED
        elif not line.startswith((" ", "\t", "-")):
            ours = False
        if not ours:
            kept.append(line)
    return kept


def _notes_by_book(folder: Path) -> dict[str, Path]:
    """The notes in the vault's top folder that Quire wrote, by the book's content hash (their ``quire`` key)."""
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.md")):
        try:
            head = read_regular(path, 4096, head=True).decode("utf-8", "ignore")
        except (OSError, UnsafeFile):
            continue  # not a note Quire can read: not one of Quire's
        match = re.search(r'^quire:\s*"([0-9a-f]+)"\s*$', head, re.MULTILINE) if head.startswith("---\n") else None
        if match is not None:
            found.setdefault(match.group(1), path)
    return found


def _new_path(folder: Path, book: BookRecord) -> Path:
    """A file for a book's first note: its title, with the book's id added when the reader has a note so named."""
    path = folder / f"{safe_file_name(book.title)}.md"
    taken = path.exists() or path.is_symlink()  # a dangling link so named is the reader's too
    return path if not taken else folder / f"{safe_file_name(book.title)} ({book.id}).md"
