"""The library as sync records (keyed by the book's content hash, the same on every device), and back.

Records, for a book with content hash ``h``:
- ``book/h``: {"present": bool} (false: removed from the library)
- ``meta/h``: {"title", "authors"} (as the reader edited them)
- ``place/h``: {"locator"} (where the reader is)
- ``furthest/h``: {"locator", "ordinal"} (the furthest place read; see ``merge``)
- ``time/h/device``: {"seconds"} (each device's own reading time; the book's is their sum)
- ``bookmark/h/uid``: {"present", "locator", "label"}
- ``highlight/h/uid``: {"present", "start", "end", "color", "note"}
- ``tag/h/tag``: {"present"}
- ``word/h/word``: {"present", "locator", "sentence", "definition"} (the book's vocabulary list)
- ``xray/h/name``: {"present", "name", "hide", "into", "rename", "kind", "add"} (the reader's correction of X-Ray
  on a name; ``core.companion.corrections``)
A highlight's or bookmark's ``uid`` is its own identity, made where it was created: never its span.
Not synced: device settings, API keys, embeddings (each device indexes), chat threads.

The reader's edits reach sync through the journal (``core.sync.store``), recorded as they are made;
``snapshot`` here is only for comparing (tests, and the one-time catch-up of a library from before the journal).
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from core.books.locator import parse_locator
from core.companion.corrections import correction_key, corrections_of, store_correction
from core.dictionary.store import store_synced_word, synced_words
from core.errors import QuireError
from core.library.annotations import Annotations
from core.library.db import unedited_hashes
from core.library.in_part import partial_hashes as read_in_part_hashes
from core.library.records import Bookmark, BookRecord, Highlight
from core.library.stats import DayCount, every_day, store_synced_day
from core.library.store import Library
from core.sync import store as sync_store
from core.sync.merge import value_of

# From this many new highlights of one book in a sync, they are added together (the book's text read once, one
# transaction); fewer are added one by one, which reads only the segments each covers.
MANY_HIGHLIGHTS = 32

Records = dict[str, dict[str, Any]]


def book_of(key: str) -> str:
    """The content hash a record belongs to."""
    return key.split("/")[1]


def snapshot(library: Library, annotations: Annotations) -> tuple[Records, dict[str, float], set[str]]:
    """The local library as records; each local book's total reading time (to split into device shares); and
    the records that only repeat what the book's file says (a title never edited), which no edit yields to."""
    records: Records = {}
    seconds: dict[str, float] = {}
    unedited = unedited_hashes(library.conn)
    defaults = {f"meta/{h}" for h in unedited}
    for book in library.books():
        h = book.content_hash
        records[f"book/{h}"] = {"present": True}
        records[f"meta/{h}"] = {"title": book.title, "authors": list(book.authors)}
        position = annotations.position(book.id)
        if position is not None:
            records[f"place/{h}"] = {"locator": str(position.locator)}
            if position.furthest is not None:
                records[f"furthest/{h}"] = {"locator": str(position.furthest), "ordinal": position.furthest_ordinal}
            seconds[h] = position.reading_seconds
        for bookmark in annotations.bookmarks(book.id):
            records[f"bookmark/{h}/{bookmark.uid}"] = {
                "present": True, "locator": str(bookmark.locator), "label": bookmark.label,
            }  # fmt: skip
        for highlight in annotations.highlights(book.id):
            records[f"highlight/{h}/{highlight.uid}"] = {
                "present": True, "start": str(highlight.start), "end": str(highlight.end), "color": highlight.color,
                "note": highlight.note,
            }  # fmt: skip
        for tag in book.tags:
            records[f"tag/{h}/{urllib.parse.quote(tag, safe='')}"] = {"present": True}
        for word, locator, sentence, definition in synced_words(library.conn, book.id):
            records[f"word/{h}/{urllib.parse.quote(word, safe='')}"] = {
                "present": True, "locator": locator, "sentence": sentence, "definition": definition,
            }  # fmt: skip
        for correction in corrections_of(library.conn, h):
            records[correction_key(h, correction.name)] = correction.record()
    hashes = {book.id: book.content_hash for book in library.books()}
    for book_id, device, day, spent, chars, sessions in every_day(library.conn):
        if book_id in hashes:  # every device's reading by day (this device sends only its own rows)
            records[f"day/{hashes[book_id]}/{device}/{day}"] = DayCount(day, spent, chars, sessions).record()
    return records, seconds, defaults


def materialize(
    library: Library,
    annotations: Annotations,
    merged: Records,
    local: Records,
    waiting: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Make the local library show the merged records; returns what could not be applied, in words.

    Only books present here are touched (a book only another device has waits for its file). Records in
    ``waiting`` (edited here since the sync began, not sent yet) are left as the reader has them. Nothing here
    is recorded as the reader's act: it is what other devices did.
    """
    problems: list[str] = []
    books = {book.content_hash: book for book in library.books()}
    for h, book in books.items():
        if merged.get(f"book/{h}", {}).get("present") is False and f"book/{h}" not in waiting:
            library.remove(book.id, journal=False)
    still = {x.content_hash for x in library.books()}  # once: it was read again for every book
    held = read_in_part_hashes(library.conn)  # a long PDF whose rest is being read waits, placed when whole
    books = {h: b for h, b in books.items() if h in still and h not in held}
    by_book: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for key, value in sorted(merged.items()):
        kind, h = key.split("/")[0], book_of(key)
        if h in books and kind not in ("book", "time", "furthest") and local.get(key) != value and key not in waiting:
            by_book.setdefault(h, []).append((key, value))
    for h, records in by_book.items():
        problems += apply_records(library, annotations, books[h], records)
    for h, book in books.items():
        _apply_reading(annotations, book, merged, h)
    return problems


def apply_records(
    library: Library, annotations: Annotations, book: BookRecord, records: list[tuple[str, dict[str, Any]]]
) -> list[str]:
    """Make one book show these records (its highlights and bookmarks looked up once, by identity)."""
    problems: list[str] = []
    highlights = {h.uid: h for h in annotations.highlights(book.id)}
    bookmarks = {b.uid: b for b in annotations.bookmarks(book.id)}
    fresh: list[tuple[str, dict[str, Any]]] = []
    rest: list[tuple[str, dict[str, Any]]] = []
    for record in records:
        (fresh if _is_new_highlight(*record, highlights) else rest).append(record)
    if len(fresh) >= MANY_HIGHLIGHTS:  # read the book once and write them together
        records = rest
        wanted = []
        for key, value in fresh:
            try:
                start, end = parse_locator(value["start"]), parse_locator(value["end"])
                wanted.append((key.split("/", 2)[2], start, end, value.get("color", "yellow"), value.get("note", "")))
            except (QuireError, ValueError, KeyError, TypeError) as error:
                problems.append(f"{book.title}: {error}")
        problems += [f"{book.title}: {problem}" for problem in annotations.add_highlights(book.id, wanted)]
    for key, value in records:
        try:
            _apply(library, annotations, book, key, value, highlights, bookmarks)
        except (QuireError, ValueError, KeyError, TypeError) as error:  # a place this copy does not have
            problems.append(f"{book.title}: {error}")
    return problems


def _is_new_highlight(key: str, value: dict[str, Any], highlights: dict[str, Highlight]) -> bool:
    return key.startswith("highlight/") and bool(value.get("present")) and key.split("/", 2)[2] not in highlights


def restore(library: Library, annotations: Annotations, book: BookRecord) -> list[str]:
    """A book imported again: bring back the notes, bookmarks, tags, title and place it had when it was removed
    (here, or on another device), from the records sync keeps. What the reader deleted stays deleted."""
    h = book.content_hash
    records: list[tuple[str, dict[str, Any]]] = []
    for prefix in ("meta", "place", "bookmark", "highlight", "tag"):
        for key, value in sorted(sync_store.known(library.conn, f"{prefix}/{h}").items()):
            if prefix == "meta" and value == {"title": book.title, "authors": list(book.authors)}:
                continue
            if value.get("present", True):
                records.append((key, value))
    furthest = sync_store.pending(library.conn, f"furthest/{h}")
    merged = sync_store.entry(library.conn, f"furthest/{h}")
    if furthest is None and merged is not None:
        furthest = value_of(f"furthest/{h}", merged)
    try:
        if furthest is not None:  # read that far before: the place and the spoiler bound come back too
            annotations.save_position(book.id, parse_locator(furthest["locator"]), reading=True, journal=False)
    except (QuireError, ValueError, KeyError) as error:
        return [f"{book.title}: {error}"]
    return apply_records(library, annotations, book, records)


def _apply(
    library: Library,
    annotations: Annotations,
    book: BookRecord,
    key: str,
    value: dict[str, Any],
    highlights: dict[str, Highlight],
    bookmarks: dict[str, Bookmark],
) -> None:
    kind = key.split("/")[0]
    rest = key.split("/", 2)[2] if key.count("/") >= 2 else ""
    if kind == "meta":
        library.edit(book.id, title=value.get("title"), authors=list(value.get("authors", [])), journal=False)
    elif kind == "place":
        annotations.save_position(book.id, parse_locator(value["locator"]), reading=False, journal=False)
    elif kind == "bookmark":
        mark = bookmarks.get(rest)
        if value.get("present") and mark is None:
            locator = parse_locator(value["locator"])
            bookmarks[rest] = annotations.add_bookmark(
                book.id, locator, str(value.get("label", "")), uid=rest, journal=False
            )
        elif not value.get("present") and mark is not None:
            annotations.remove_bookmark(mark.id, journal=False)
            del bookmarks[rest]
    elif kind == "highlight":
        marked = highlights.get(rest)
        if not value.get("present"):
            if marked is not None:
                annotations.remove_highlight(marked.id, journal=False)
                del highlights[rest]
        elif marked is not None:
            if (marked.note, marked.color) != (value.get("note", ""), value.get("color")):
                annotations.update_highlight(
                    marked.id, note=value.get("note", ""), color=value.get("color"), journal=False
                )
        else:
            highlights[rest] = annotations.add_highlight(
                book.id, parse_locator(value["start"]), parse_locator(value["end"]), value.get("color", "yellow"),
                value.get("note", ""), uid=rest, journal=False,
            )  # fmt: skip
    elif kind == "day":
        device, day = rest.split("/", 1)
        with library.transaction() as conn:
            store_synced_day(conn, book.id, device, day, value)
    elif kind == "word":
        with library.transaction() as conn:
            store_synced_word(conn, book.id, urllib.parse.unquote(rest), value)
    elif kind == "xray":
        with library.transaction() as conn:
            store_correction(conn, book.content_hash, value)
    elif kind == "tag":
        tag = urllib.parse.unquote(rest)
        if value.get("present"):
            annotations.tag(book.id, tag, journal=False)
        else:
            annotations.untag(book.id, tag, journal=False)


def _apply_reading(annotations: Annotations, book: BookRecord, merged: Records, h: str) -> None:
    """The furthest place and the reading time (the sum of every device's share) as merged."""
    furthest = merged.get(f"furthest/{h}")
    total = sum(float(v.get("seconds", 0.0)) for k, v in merged.items() if k.startswith(f"time/{h}/"))
    position = annotations.position(book.id)
    if position is None:
        if furthest is None:
            return
        annotations.save_position(book.id, parse_locator(furthest["locator"]), reading=False, journal=False)
        position = annotations.position(book.id)
        assert position is not None
    updates: dict[str, Any] = {}
    if furthest is not None and furthest["ordinal"] != position.furthest_ordinal:
        ordinal, percent = annotations.place(book.id, parse_locator(furthest["locator"]))
        updates.update(furthest_locator=furthest["locator"], furthest_ordinal=ordinal, furthest_percent=percent)
    if abs(total - position.reading_seconds) > 0.5 and total > 0:
        updates["reading_seconds"] = total
    if updates:
        assignments = ", ".join(f"{column} = ?" for column in updates)
        annotations.library.write(f"UPDATE positions SET {assignments} WHERE book_id = ?", (*updates.values(), book.id))
