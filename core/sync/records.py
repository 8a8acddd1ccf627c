"""The library as sync records (keyed by the book's content hash, the same on every device), and back.

Records, for a book with content hash ``h``:
- ``book/h``: {"present": bool} (false: removed from the library)
- ``meta/h``: {"title", "authors"} (as the reader edited them)
- ``place/h``: {"locator"} (where the reader is)
- ``furthest/h``: {"locator", "ordinal"} (the furthest place read; see ``merge``)
- ``time/h/device``: {"seconds"} (each device's own reading time; the book's is their sum)
- ``bookmark/h/locator``: {"present", "label"}
- ``highlight/h/start/end``: {"present", "color", "note"}
- ``tag/h/tag``: {"present"}
Not synced: device settings, API keys, embeddings (each device indexes), chat threads.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from core.books.locator import parse_locator
from core.errors import QuireError
from core.library.annotations import Annotations
from core.library.records import BookRecord
from core.library.store import Library

Records = dict[str, dict[str, Any]]


def book_of(key: str) -> str:
    """The content hash a record belongs to."""
    return key.split("/")[1]


def snapshot(library: Library, annotations: Annotations) -> tuple[Records, dict[str, float], set[str]]:
    """The local library as records; each local book's total reading time (to split into device shares); and
    the records that only repeat what the book's file says (a title never edited), which no edit yields to."""
    records: Records = {}
    seconds: dict[str, float] = {}
    unedited = {r[0] for r in library.conn.execute("SELECT content_hash FROM books WHERE edited_at IS NULL")}
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
            records[f"bookmark/{h}/{bookmark.locator}"] = {"present": True, "label": bookmark.label}
        for highlight in annotations.highlights(book.id):
            key = f"highlight/{h}/{highlight.start}/{highlight.end}"
            records[key] = {"present": True, "color": highlight.color, "note": highlight.note}
        for tag in book.tags:
            records[f"tag/{h}/{urllib.parse.quote(tag, safe='')}"] = {"present": True}
    return records, seconds, defaults


def materialize(library: Library, annotations: Annotations, merged: Records, local: Records) -> list[str]:
    """Make the local library show the merged records; returns what could not be applied, in words.

    Only books present here are touched (a book only another device has waits for its file).
    """
    problems: list[str] = []
    books = {book.content_hash: book for book in library.books()}
    for h, book in books.items():
        if merged.get(f"book/{h}", {}).get("present") is False:
            library.remove(book.id)
    books = {h: b for h, b in books.items() if merged.get(f"book/{h}", {}).get("present") is not False}
    for key, value in sorted(merged.items()):
        kind, h = key.split("/")[0], book_of(key)
        owner = books.get(h)
        if owner is None or kind in ("book", "time", "furthest") or local.get(key) == value:
            continue
        try:
            _apply(library, annotations, owner, key, value)
        except QuireError as error:  # a place this copy of the book does not have: kept in sync, not applied
            problems.append(f"{owner.title}: {error}")
    for h, book in books.items():
        _apply_reading(annotations, book, merged, h)
    return problems


def _apply(library: Library, annotations: Annotations, book: BookRecord, key: str, value: dict[str, Any]) -> None:
    kind = key.split("/")[0]
    rest = key.split("/", 2)[2] if key.count("/") >= 2 else ""
    if kind == "meta":
        library.edit(book.id, title=value.get("title"), authors=list(value.get("authors", [])))
    elif kind == "place":
        annotations.save_position(book.id, parse_locator(value["locator"]), reading=False)
    elif kind == "bookmark":
        existing = [b for b in annotations.bookmarks(book.id) if str(b.locator) == rest]
        if value.get("present") and not existing:
            annotations.add_bookmark(book.id, parse_locator(rest), str(value.get("label", "")))
        elif not value.get("present"):
            for bookmark in existing:
                annotations.remove_bookmark(bookmark.id)
    elif kind == "highlight":
        start, end = rest.split("/")
        marked = [h for h in annotations.highlights(book.id) if str(h.start) == start and str(h.end) == end]
        if not value.get("present"):
            for highlight in marked:
                annotations.remove_highlight(highlight.id)
        elif marked:
            annotations.update_highlight(marked[0].id, note=value.get("note", ""), color=value.get("color"))
        else:
            annotations.add_highlight(
                book.id, parse_locator(start), parse_locator(end), value.get("color", "yellow"), value.get("note", "")
            )
    elif kind == "tag":
        tag = urllib.parse.unquote(rest)
        if value.get("present"):
            annotations.tag(book.id, tag)
        else:
            annotations.untag(book.id, tag)


def _apply_reading(annotations: Annotations, book: BookRecord, merged: Records, h: str) -> None:
    """The furthest place and the reading time (the sum of every device's share) as merged."""
    furthest = merged.get(f"furthest/{h}")
    total = sum(float(v.get("seconds", 0.0)) for k, v in merged.items() if k.startswith(f"time/{h}/"))
    position = annotations.position(book.id)
    if position is None:
        if furthest is None:
            return
        annotations.save_position(book.id, parse_locator(furthest["locator"]), reading=False)
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
