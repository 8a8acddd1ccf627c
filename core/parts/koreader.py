"""KOReader's highlights brought into Quire: the sidecars of an e-reader's folder (or one Syncthing shares) read,
each matched to a book of the library, and its highlights and notes merged in.

A sidecar (``book.sdr/metadata.<ext>.lua``) is read by ``core.kosync.lua`` (no Lua run; size, depth and count
bounded). Its book is found by KOReader's partial MD5 (``partial_md5_checksum``, as progress sync names books),
then by its title and authors. A highlight is placed by its own text: looked for in the chapter its ``pos0``
xpointer names (EPUB), then in the whole book, so the place does not depend on crengine's paths, and a PDF's or
a converted book's highlight lands as well. Merging never doubles: a highlight already here over the same span is
kept as it is (a note added only where Quire's has none), and one the reader deleted in Quire (its tombstone in
the sync journal) is not brought back.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.books.locator import Locator
from core.errors import QuireError
from core.kosync.document import EpubPointers, partial_md5
from core.kosync.lua import MAX_BYTES, SidecarError, parse_sidecar
from core.library import Annotations, BookRecord, Library
from core.library import journal as sync_journal

# KOReader's highlight colours, as the nearest of Quire's (HIGHLIGHT_COLORS)
COLORS = {"yellow": "yellow", "green": "green", "blue": "blue", "red": "pink", "purple": "purple", "pink": "pink",
          "orange": "yellow", "olive": "green", "cyan": "blue", "gray": "yellow"}  # fmt: skip
MAX_SIDECARS = 10_000


@dataclass(frozen=True, slots=True)
class SidecarImport:
    """What one sidecar gave: its book, the highlights added, those already here, and those left out (with why)."""

    sidecar: str
    book_id: int | None
    title: str
    added: int = 0
    kept: int = 0
    left_out: int = 0
    problem: str = ""  # one line when the sidecar could not be read or its book not found

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class KoreaderSidecars:
    """``quire.koreader``: highlights and notes from KOReader's sidecar files."""

    def __init__(self, library: Library, annotations: Annotations) -> None:
        self._library = library
        self._annotations = annotations

    def import_highlights(self, folder: str | Path) -> list[SidecarImport]:
        """Read every sidecar under ``folder`` and merge its highlights into the matching books."""
        root = Path(folder)
        if not root.is_dir():
            raise QuireError(f"'{folder}' is not a folder: give the folder KOReader's books are in")
        sidecars = sorted(p for p in root.rglob("metadata.*.lua") if p.parent.name.endswith(".sdr") and p.is_file())
        if len(sidecars) > MAX_SIDECARS:
            raise QuireError(f"more than {MAX_SIDECARS:,} sidecars under '{folder}': choose the books' own folder")
        hashes: dict[str, int] | None = None
        books = self._library.books()  # read once: every sidecar is matched against them
        results = []
        for path in sidecars:
            try:
                if path.stat().st_size > MAX_BYTES:
                    raise SidecarError(f"over {MAX_BYTES // (1024 * 1024)} MB: not a sidecar KOReader writes")
                table = parse_sidecar(path.read_text(encoding="utf-8", errors="replace"))
            except (SidecarError, OSError) as error:
                results.append(SidecarImport(str(path), None, "", problem=f"not read: {error}"))
                continue
            if hashes is None:
                hashes = self._partial_hashes(books)
            book = self._match(table, hashes, books)
            found = table.get("doc_props")
            props: dict[Any, Any] = found if isinstance(found, dict) else {}
            title = str(props.get("title") or path.parent.name.removesuffix(".sdr"))
            if book is None:
                results.append(SidecarImport(str(path), None, title, problem="no book in the library matches it"))
                continue
            results.append(self._merge(str(path), book, _annotations(table)))
        return results

    def _partial_hashes(self, books: list[BookRecord]) -> dict[str, int]:
        found = {}
        for book in books:
            try:
                found[partial_md5(self._library.file_path(book.id))] = book.id
            except (QuireError, OSError):
                continue
        return found

    def _match(self, table: dict[Any, Any], hashes: dict[str, int], books: list[BookRecord]) -> BookRecord | None:
        checksum = table.get("partial_md5_checksum")
        if isinstance(checksum, str) and checksum in hashes:
            return self._library.get(hashes[checksum])
        props = table.get("doc_props")
        if not isinstance(props, dict) or not isinstance(props.get("title"), str):
            return None
        title, authors = _fold(props["title"]), _fold(str(props.get("authors") or ""))
        for book in books:
            if _fold(book.title) == title and (not authors or _fold(", ".join(book.authors)) in authors
                                               or authors in _fold(" ".join(book.authors))):  # fmt: skip
                return book
        return None

    def _merge(self, sidecar: str, book: BookRecord, annotations: list[dict[Any, Any]]) -> SidecarImport:
        pointers = _pointers(self._library, book)
        existing = {(str(h.start), str(h.end)): h for h in self._annotations.highlights(book.id)}
        deleted = {
            (value.get("start"), value.get("end"))
            for value in sync_journal.known(self._library.conn, f"highlight/{book.content_hash}/").values()
            if value.get("present") is False
        }
        added = kept = left_out = 0
        for annotation in annotations:
            if "text" not in annotation:
                continue  # a bookmark: KOReader's page marks are not highlights
            span = self._place(book, annotation, pointers)
            if span is None:
                left_out += 1
                continue
            start, end = str(span[0]), str(span[1])
            note = str(annotation.get("note") or "").strip()
            here = existing.get((start, end))
            if here is not None:
                if note and not here.note.strip():
                    self._annotations.update_highlight(here.id, note=note)
                kept += 1
            elif (start, end) in deleted:
                left_out += 1  # deleted in Quire: not brought back
            else:
                color = COLORS.get(str(annotation.get("color") or "yellow"), "yellow")
                existing[(start, end)] = self._annotations.add_highlight(book.id, span[0], span[1], color, note)
                added += 1
        return SidecarImport(sidecar, book.id, book.title, added, kept, left_out)

    def _place(
        self, book: BookRecord, annotation: dict[Any, Any], pointers: EpubPointers | None
    ) -> tuple[Locator, Locator] | None:
        """Where a highlight's text is in the book: in the chapter its xpointer names first, then anywhere."""
        given = annotation.get("text")
        text = " ".join(given.split()) if isinstance(given, str) else ""
        if len(text) < 2:
            return None  # a highlight without its text, or with something else in its place
        section = None
        pos0 = annotation.get("pos0")
        if pointers is not None and isinstance(pos0, str):
            place = pointers.place(pos0)
            if place is not None:
                row = self._library.conn.execute(
                    "SELECT idx FROM sections WHERE book_id = ? AND href = ?", (book.id, place.href)
                ).fetchone()
                section = int(row[0]) if row else None
        for within in ([section] if section is not None else []) + [None]:
            found = _find(self._library, book.id, text, within)
            if found is not None:
                return found
        return None


def _annotations(table: dict[Any, Any]) -> list[dict[Any, Any]]:
    """The highlights of a sidecar: KOReader's ``annotations`` list (2024 on), or the older ``highlight`` table by
    page with its ``bookmarks`` notes."""
    found = table.get("annotations")
    if isinstance(found, list):
        return [a for a in found if isinstance(a, dict)]
    older = table.get("highlight")
    pages = older.values() if isinstance(older, dict) else older if isinstance(older, list) else []
    out = []
    for page in pages:
        for item in page if isinstance(page, list) else []:
            if isinstance(item, dict):
                out.append({**item, "note": item.get("note") or ""})
    return out


def _find(library: Library, book_id: int, text: str, section: int | None) -> tuple[Locator, Locator] | None:
    """The span of ``text`` (spaces folded) in one section or the whole book; it may run over several paragraphs."""
    head = text[:60]
    query = "SELECT ordinal, section_idx, idx, text FROM segments WHERE book_id = ? AND kind != 'image'"
    rows = library.conn.execute(
        query + (" AND section_idx = ?" if section is not None else "") + " ORDER BY ordinal",
        (book_id, section) if section is not None else (book_id,),
    ).fetchall()
    for i, (_, section_idx, idx, body) in enumerate(rows):
        folded, places = _folded(str(body))
        at = folded.find(head)
        if at < 0 or not (text.startswith(folded[at:]) or folded.startswith(text, at)):
            continue  # not there, or only its first words are
        start = Locator(int(section_idx), int(idx), places[at])
        rest = text[len(folded) - at :].strip() if len(text) > len(folded) - at else ""
        if not rest:
            return start, Locator(int(section_idx), int(idx), places[at + len(text) - 1] + 1)
        for _, later_section, later_idx, later in rows[i + 1 : i + 50]:  # the rest in the paragraphs after
            more, more_places = _folded(str(later))
            if rest.startswith(more):
                rest = rest[len(more) :].strip()
                if not rest:
                    return start, Locator(int(later_section), int(later_idx), len(str(later)))
            elif more.startswith(rest):
                return start, Locator(int(later_section), int(later_idx), more_places[len(rest) - 1] + 1)
            else:
                break
    return None


def _folded(text: str) -> tuple[str, list[int]]:
    """The text with each run of spaces as one, and for each of its characters the offset in the original."""
    out: list[str] = []
    places: list[int] = []
    for match in re.finditer(r"\S+", text):
        if out:
            out.append(" ")
            places.append(match.start() - 1)
        out.append(match.group())
        places.extend(range(match.start(), match.end()))
    return "".join(out), places


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _pointers(library: Library, book: BookRecord) -> EpubPointers | None:
    if book.format != "epub":
        return None
    try:
        return EpubPointers(library.file_path(book.id).read_bytes())
    except (QuireError, OSError):
        return None
