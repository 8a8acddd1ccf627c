"""The reader's corrections to X-Ray: a name hidden, merged into another, renamed, given its kind, or added.

A correction belongs to a name, not to an entry: X-Ray's entries are found again at every place and by every new
version of the finder, and a correction made on "Darcy" finds Darcy's entry whatever else changed (by its name or
one of its other names, case and spacing aside). One record per name and book, kept by the book's content hash so
that it outlives a removal and a new import of the same book, and synced as ``xray/{hash}/{name}`` like a note.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from core.companion import store
from core.companion.xray import Mention, XrayEntry
from core.errors import XrayCorrectionError
from core.sync import store as sync_store

XRAY_KINDS = ("person", "place", "term")
"""The kinds of an X-Ray entry, as a correction gives them."""
MAX_NAME = 200  # characters of a name the reader types (a name, never a passage)


def key_of(name: str) -> str:
    """A name as corrections compare it: spacing and case aside."""
    return " ".join(name.split()).casefold()


@dataclass(frozen=True, slots=True)
class Correction:
    """What the reader said of one name: hide its entry, merge it into ``into``'s, show it as ``rename``, give it
    ``kind``, or ``add`` it (a name X-Ray missed, found in the text up to the furthest place)."""

    name: str
    hide: bool = False
    into: str = ""
    rename: str = ""
    kind: str = ""
    add: bool = False

    def record(self) -> dict[str, Any]:
        """The sync record's value."""
        return {"present": True, "name": self.name, "hide": self.hide, "into": self.into, "rename": self.rename,
                "kind": self.kind, "add": self.add}  # fmt: skip

    @classmethod
    def from_record(cls, value: dict[str, Any]) -> Correction:
        return cls(str(value.get("name", "")), bool(value.get("hide")), str(value.get("into", "")),
                   str(value.get("rename", "")), str(value.get("kind", "")), bool(value.get("add")))  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.record().items() if key != "present"}


def checked(correction: Correction) -> Correction:
    """The correction with its names tidied; XrayCorrectionError when it cannot be kept."""
    tidy = replace(
        correction,
        name=" ".join(correction.name.split()),
        into=" ".join(correction.into.split()),
        rename=" ".join(correction.rename.split()),
    )
    if not tidy.name or max(len(tidy.name), len(tidy.into), len(tidy.rename)) > MAX_NAME:
        raise XrayCorrectionError(f"a name for X-Ray is 1 to {MAX_NAME} characters")
    if tidy.kind and tidy.kind not in XRAY_KINDS:
        raise XrayCorrectionError(f"“{tidy.kind}” is not a kind of entry: person, place or term")
    if tidy.into and key_of(tidy.into) == key_of(tidy.name):
        raise XrayCorrectionError(f"“{tidy.name}” cannot be merged into itself")
    return tidy


def correction_key(content_hash: str, name: str) -> str:
    """The sync record of a name's correction: ``xray/{content hash}/{the name's key, quoted}``."""
    return f"xray/{content_hash}/{urllib.parse.quote(key_of(name), safe='')}"


def store_correction(conn: sqlite3.Connection, content_hash: str, value: dict[str, Any]) -> None:
    """Make the book's corrections show a record: the name's correction kept, or gone (``present`` false)."""
    key = key_of(str(value.get("name", "")))
    if not value.get("present") or not key:
        store.drop_correction(conn, content_hash, key)
        return
    store.put_correction(conn, content_hash, key, json.dumps(value, ensure_ascii=False))


def keep(conn: sqlite3.Connection, content_hash: str, correction: Correction) -> None:
    """Keep the reader's correction and record it for sync (inside the caller's transaction)."""
    value = checked(correction).record()
    store_correction(conn, content_hash, value)
    sync_store.record(conn, correction_key(content_hash, correction.name), value)


def forget(conn: sqlite3.Connection, content_hash: str, name: str) -> bool:
    """Drop what the reader said of a name, here and through sync; whether there was anything."""
    key = key_of(name)
    gone = store.drop_correction(conn, content_hash, key)
    if gone:
        sync_store.record(conn, correction_key(content_hash, name), {"present": False, "name": " ".join(name.split())})
    return gone


def corrections_of(conn: sqlite3.Connection, content_hash: str) -> list[Correction]:
    """The book's corrections, in the order of their names."""
    return [Correction.from_record(json.loads(value)) for value in store.correction_values(conn, content_hash)]


def corrected(
    entries: list[XrayEntry], corrections: list[Correction], find: Callable[[str], XrayEntry | None]
) -> list[XrayEntry]:
    """X-Ray's entries as the reader corrected them: added names (``find`` gives an added name's entry from the text
    up to the place, or None when it is not there yet), then merges, renames, kinds, and hidden names last; most
    mentioned first, as X-Ray lists them. A correction whose name has no entry here does nothing (yet)."""
    shown = list(entries)
    for correction in corrections:
        if correction.add and _entry_of(shown, correction.name) is None:
            found = find(correction.name)
            if found is not None:
                shown.append(found)
    for correction in corrections:
        part, whole = _entry_of(shown, correction.name), _entry_of(shown, correction.into) if correction.into else None
        if part is not None and whole is not None and part is not whole:
            shown.remove(part)
            shown[shown.index(whole)] = joined(whole, part)
    for correction in corrections:
        entry = _entry_of(shown, correction.name)
        if entry is not None and correction.rename and correction.rename != entry.name:
            variants = entry.variants if entry.name in entry.variants else (entry.name, *entry.variants)
            shown[shown.index(entry)] = replace(entry, name=correction.rename, variants=variants)
    for correction in corrections:
        entry = _entry_of(shown, correction.name)
        if entry is not None and correction.kind:
            shown[shown.index(entry)] = replace(entry, kind=correction.kind)
    hidden = [entry for c in corrections if c.hide for entry in [_entry_of(shown, c.name)] if entry is not None]
    shown = [entry for entry in shown if not any(entry is h for h in hidden)]
    shown.sort(key=lambda e: (-e.mentions, e.first.ordinal))
    return shown


def joined(whole: XrayEntry, part: XrayEntry) -> XrayEntry:
    """One entry of two: ``whole``'s name and kind, both's other names and mentions (each place once)."""
    places: dict[tuple[int, str], Mention] = {}
    for mention in sorted((*whole.places, *part.places), key=lambda m: (m.ordinal, m.locator.offset or 0)):
        places.setdefault((mention.ordinal, str(mention.locator)), mention)
    ordered = tuple(places.values())
    if not ordered:
        return whole
    earlier = whole if whole.first.ordinal <= part.first.ordinal else part
    variants = tuple(dict.fromkeys((*whole.variants, part.name, *part.variants)))
    return replace(
        whole, variants=variants, mentions=len(ordered), first=ordered[0], introduced=earlier.introduced, places=ordered
    )


def _entry_of(entries: list[XrayEntry], name: str) -> XrayEntry | None:
    """The entry going by ``name`` (its name first, else one of its other names)."""
    key = key_of(name)
    named = next((e for e in entries if key_of(e.name) == key), None)
    return named or next((e for e in entries if any(key_of(v) == key for v in e.variants)), None)
