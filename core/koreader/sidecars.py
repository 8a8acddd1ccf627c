"""KOReader's highlights both ways: the sidecars of an e-reader's folder (or one Syncthing shares) read, each
matched to a book of the library, and its highlights and notes merged in; and Quire's written into them.

A sidecar (``book.sdr/metadata.<ext>.lua``) is read by ``core.koreader.lua`` (no Lua run; size, depth and count
bounded). Its book is found by KOReader's partial MD5 (``partial_md5_checksum``, as progress sync names books),
then by its title and authors. A highlight is placed by its own text: looked for in the chapter its ``pos0``
xpointer names (EPUB), then in the whole book, so the place does not depend on crengine's paths, and a PDF's or
a converted book's highlight lands as well. Merging never doubles: a highlight already here over the same span is
kept as it is (a note added only where Quire's has none), and one the reader deleted in Quire (its tombstone in
the sync journal) is not brought back.

Export writes only into the sidecar of the very file Quire has (its partial MD5: next to the book file in the
folder, or a sidecar elsewhere that names that checksum), since xpointers are paths into that file. It adds what
KOReader lacks as KOReader's own annotations (``pos0``/``pos1`` xpointers at the text node, ``text``, ``note``,
``chapter``, ``color``, ``datetime``) and sets ``annotations_externally_modified``, the flag KOReader reads to
re-number and re-sort them on opening (as KOHighlights does). Everything else in the sidecar is written back as it
was, the former file kept beside it as ``.old`` (KOReader's own fallback). The uids sent are kept in the sidecar
(``quire_exported``), so a highlight deleted on the e-reader is not sent again.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.books.locator import Locator
from core.errors import QuireError
from core.folder_files import UnsafeFile, read_regular, write_beside
from core.koreader.document import EpubPointers, partial_md5
from core.koreader.lua import MAX_BYTES, SidecarError, dump_sidecar, parse_sidecar
from core.library import Annotations, BookRecord, Highlight, Library, text_reads
from core.sync import store as sync_store

# KOReader's highlight colours, as the nearest of Quire's (HIGHLIGHT_COLORS)
COLORS = {"yellow": "yellow", "green": "green", "blue": "blue", "red": "pink", "purple": "purple", "pink": "pink",
          "orange": "yellow", "olive": "green", "cyan": "blue", "gray": "yellow"}  # fmt: skip
EXPORT_COLORS = {"yellow": "yellow", "green": "green", "blue": "blue", "pink": "red", "purple": "purple"}
MAX_SIDECARS = 10_000
MAX_FILES = 100_000  # files looked at under an export's folder: an e-reader's whole storage is far fewer
SENT = "quire_exported"  # the sidecar's list of the highlights Quire wrote into it (their uids)


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


@dataclass(frozen=True, slots=True)
class SidecarExport:
    """What one sidecar received: the highlights added, those KOReader had, and those left out (with why)."""

    sidecar: str
    book_id: int
    title: str
    added: int = 0
    kept: int = 0
    left_out: int = 0  # deleted on the e-reader since Quire sent it, or not placeable in the file
    problem: str = ""  # one line when the sidecar could not be read or written; nothing was written then

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
        sidecars = sorted(p for p in root.rglob("metadata.*.lua") if p.parent.name.endswith(".sdr"))
        if len(sidecars) > MAX_SIDECARS:
            raise QuireError(f"more than {MAX_SIDECARS:,} sidecars under '{folder}': choose the books' own folder")
        hashes: dict[str, int] | None = None
        books = self._library.books()  # read once: every sidecar is matched against them
        results = []
        for path in sidecars:
            try:
                table = _read(path)
            except (SidecarError, UnsafeFile, OSError) as error:
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

    def export_highlights(self, folder: str | Path) -> list[SidecarExport]:
        """Write the library's EPUB highlights and notes into the sidecars of the same files under ``folder``."""
        root = Path(folder)
        if not root.is_dir():
            raise QuireError(f"'{folder}' is not a folder: give the folder KOReader's books are in")
        marked: dict[int, list[Highlight]] = {}
        for highlight in self._annotations.highlights():
            marked.setdefault(highlight.book_id, []).append(highlight)
        books = [b for b in self._library.books() if b.id in marked and b.format == "epub"]
        by_hash = {v: k for k, v in self._partial_hashes(books).items()}
        wanted = {checksum: book for book in books if (checksum := by_hash.get(book.id))}
        targets: dict[Path, tuple[BookRecord, str]] = {}
        for count, path in enumerate(root.rglob("*")):
            if count >= MAX_FILES:
                raise QuireError(f"more than {MAX_FILES:,} files under '{folder}': choose the books' own folder")
            if path.suffix.lower() == ".epub" and path.is_file():
                checksum = partial_md5(path)
                if checksum in wanted:
                    targets[path.with_suffix(".sdr") / f"metadata{path.suffix}.lua"] = (wanted[checksum], checksum)
            elif path.name.startswith("metadata.") and path.suffix == ".lua" and path.parent.name.endswith(".sdr"):
                checksum = _checksum(path)  # also KOReader's docsettings or hashdocsettings folders: it names its file
                if checksum in wanted:
                    targets[path] = (wanted[checksum], checksum)
        return [self._export(root, path, book, checksum, marked[book.id]) for path, (book, checksum) in sorted(
            targets.items(), key=lambda item: str(item[0]))]  # fmt: skip

    def _export(
        self, root: Path, path: Path, book: BookRecord, checksum: str, highlights: list[Highlight]
    ) -> SidecarExport:
        def problem(why: str) -> SidecarExport:
            return SidecarExport(str(path), book.id, book.title, problem=why)

        try:
            table = _read(path) if path.exists() or path.is_symlink() else {}
            pointers = EpubPointers(self._library.file_path(book.id).read_bytes())
        except (SidecarError, QuireError, OSError) as error:
            return problem(f"not read: {error}")
        found = table.get("annotations", [] if not ({"highlight", "bookmarks"} & set(table)) else None)
        annotations = [] if found == {} else found
        if annotations is None:
            return problem("written by a KOReader older than 2024.07: open the book there once, then export again")
        if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
            return problem("its annotations are not a list of highlights: left as they are")
        if annotations and not isinstance(annotations[0].get("page"), str):
            return problem("its highlights are a paged document's (by page and position): left as they are")
        there = {}
        for annotation in annotations:
            span = self._place(book, annotation, pointers) if "text" in annotation else None
            if span is not None:
                there[(str(span[0]), str(span[1]))] = annotation
        given = table.get(SENT)
        sent = {str(uid) for uid in (given if isinstance(given, list) else [])}
        before = set(sent)
        added = kept = left_out = 0
        noted = False
        for highlight in sorted(highlights, key=lambda h: (h.start.sort_key(), h.end.sort_key())):
            here = there.get(_words(highlight))
            if here is not None:
                kept += 1
                sent.add(highlight.uid)
                if highlight.note.strip() and not str(here.get("note") or "").strip():
                    here["note"], noted = highlight.note, True
                continue
            if highlight.uid in sent:
                left_out += 1  # sent before and gone now: deleted on the e-reader, not sent again
                continue
            annotation = self._annotation(book, highlight, pointers)
            if annotation is None:
                left_out += 1
                continue
            annotations.append(annotation)
            sent.add(highlight.uid)
            added += 1
        if added or noted or sent != before:
            table["annotations"] = annotations
            table["annotations_externally_modified"] = True
            table[SENT] = sorted(sent)
            table.setdefault("partial_md5_checksum", checksum)
            try:
                _write(root, path, table, first=given is None)
            except (SidecarError, UnsafeFile, OSError) as error:
                return problem(f"not written: {error}")
        return SidecarExport(str(path), book.id, book.title, added, kept, left_out)

    def _annotation(self, book: BookRecord, highlight: Highlight, pointers: EpubPointers) -> dict[str, Any] | None:
        """A Quire highlight as one of KOReader's annotations; None when its chapter is not one of the file's."""
        ends = []
        for place, edge in ((highlight.start, 0), (highlight.end, 1)):
            row = text_reads.segment_in_file(self._library.conn, book.id, place)
            if row is None:
                return None
            href, title, text = row
            offset = place.offset if place.offset is not None else (0 if edge == 0 else len(text))
            ends.append((pointers.point(href, text, offset), title))
        (pos0, chapter), (pos1, _) = ends
        if not pos0 or not pos1 or "/body/" not in pos0[len("/body/DocFragment") :]:
            return None  # the chapter's start alone is no place for a highlight
        stamp = datetime.fromisoformat(highlight.created_at).astimezone().strftime("%Y-%m-%d %H:%M:%S")
        return {"chapter": chapter, "color": EXPORT_COLORS.get(highlight.color, "yellow"), "datetime": stamp,
                "drawer": "lighten", "note": highlight.note or None, "page": pos0, "pos0": pos0, "pos1": pos1,
                "text": highlight.text}  # fmt: skip

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
        existing = {_words(h): h for h in self._annotations.highlights(book.id)}
        deleted = {
            (value.get("start"), value.get("end"))
            for value in sync_store.known(self._library.conn, f"highlight/{book.content_hash}/").values()
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
            note = _text(annotation.get("note")).strip()
            here = existing.get((start, end))
            if here is not None:
                if note and not here.note.strip():
                    self._annotations.update_highlight(here.id, note=note)
                kept += 1
            elif (start, end) in deleted:
                left_out += 1  # deleted in Quire: not brought back
            else:
                color = COLORS.get(str(annotation.get("color") or "yellow"), "yellow")
                existing[(start, end)] = self._annotations.add_highlight(
                    book.id, span[0], span[1], color, note, created_at=_made(annotation.get("datetime"))
                )
                added += 1
        return SidecarImport(sidecar, book.id, book.title, added, kept, left_out)

    def _place(
        self, book: BookRecord, annotation: dict[Any, Any], pointers: EpubPointers | None
    ) -> tuple[Locator, Locator] | None:
        """Where a highlight's text is in the book: in the chapter its xpointer names first, then anywhere."""
        text = " ".join(_text(annotation.get("text")).split())
        if len(text) < 2:
            return None  # a highlight without its text, or with something else in its place
        section = None
        pos0 = annotation.get("pos0")
        if pointers is not None and isinstance(pos0, str):
            place = pointers.place(pos0)
            if place is not None:
                chapter = text_reads.section_of_file(self._library.conn, book.id, place.href)
                section = chapter[0] if chapter else None
        for within in ([section] if section is not None else []) + [None]:
            found = _find(self._library, book.id, text, within)
            if found is not None:
                return found
        return None


def _text(value: Any) -> str:
    """A sidecar's string as text for the library: bytes that were no UTF-8 shown as U+FFFD (the sidecar keeps them)."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if isinstance(value, str) else ""


def _made(value: Any) -> str | None:
    """When KOReader says a highlight was made ("2024-05-01 12:34:56", the e-reader's local time) as ISO 8601 UTC;
    None when it says nothing readable (the highlight is then dated now)."""
    try:
        made = datetime.strptime(str(value), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return made.astimezone(UTC).isoformat(timespec="seconds")


def _words(highlight: Highlight) -> tuple[str, str]:
    """A highlight's span without the spaces at its edges: how a highlight placed by its words (KOReader's, found by
    ``_find``) is compared with Quire's, whose selection may have taken a space either side."""
    start, end, text = highlight.start, highlight.end, highlight.text
    lead, trail = len(text) - len(text.lstrip()), len(text) - len(text.rstrip())
    if lead and start.offset is not None:
        start = start.at(start.offset + lead)
    if trail and end.offset is not None and end.offset >= trail:
        end = end.at(end.offset - trail)
    return str(start), str(end)


def _read(path: Path) -> dict[Any, Any]:
    """A sidecar's table, read only from a regular file (not a link, a FIFO or a device) of at most ``MAX_BYTES``
    (UnsafeFile otherwise); SidecarError when it does not parse. Bytes that are no UTF-8 are kept as they were."""
    return parse_sidecar(read_regular(path, MAX_BYTES).decode("utf-8", "surrogateescape"))


def _checksum(path: Path) -> str | None:
    """The partial MD5 a sidecar names its book by; None when it cannot be read."""
    try:
        found = _read(path).get("partial_md5_checksum")
    except (SidecarError, UnsafeFile, OSError):
        return None
    return found if isinstance(found, str) else None


def _write(root: Path, path: Path, table: dict[Any, Any], first: bool) -> None:
    """The sidecar written whole or not at all, checked to read back as written, never through a link or out of
    ``root`` (``core.folder_files``); the former kept as ``.old`` (KOReader's own fallback), and on Quire's
    ``first`` write into it also as ``.before-quire``, which no later export replaces."""
    text = dump_sidecar(table)
    if dump_sidecar(parse_sidecar(text)) != text:
        raise SidecarError("the sidecar would not read back as written")
    original = path.with_name(path.name + ".before-quire")
    if first and path.is_file() and not original.exists() and not original.is_symlink():
        write_beside(original, read_regular(path, MAX_BYTES), root)
    write_beside(path, text.encode("utf-8", "surrogateescape"), root, backup=path.with_name(path.name + ".old"))


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
    rows = text_reads.worded_segments(library.conn, book_id, section)
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
