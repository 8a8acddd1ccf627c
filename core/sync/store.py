"""Sync's tables: the reader's edits recorded for sync in the edit's own transaction, the merged state, the outbox,
what was sent and seen, and sync's bookkeeping (``sync_meta``: the device, the clock, the sequence). Where the library
syncs is ``core.sync.settings_store``'s (``sync_settings``).

A record changes only through the reader's act (a highlight made, edited or removed, a book removed, a page
read), and the act is stamped by the library's hybrid logical clock when it happens. Sync sends these and
nothing else: it never infers an edit, and above all never a deletion, from a difference between the library
and the merged state, so a sync cut before it showed what arrived cannot turn "not applied yet" into "deleted".

One row per record (``sync_pending``): a later act on the same record replaces an earlier unsent one, so the
table stays as small as the set of records touched since the last sync, synced or not.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from typing import Any

from core.sync.clock import HybridClock, Stamp, stamp

UNEDITED: Stamp = stamp(0, 0)  # what a book's file says, before any edit: older than every edit


def new_uid() -> str:
    """A random identity for a highlight or bookmark, made where it is created (never its span)."""
    return secrets.token_hex(10)


def legacy_uid(content_hash: str, *place: str) -> str:
    """The identity of a highlight or bookmark made before identities existed, derived from its book and span:
    two devices that upgrade apart give the same old note the same identity, so it is not doubled."""
    return hashlib.sha256("/".join((content_hash, *place)).encode("utf-8")).hexdigest()[:20]


def device_id(conn: sqlite3.Connection) -> str:
    """This library's device name in sync (made on first use)."""
    row = conn.execute("SELECT value FROM sync_meta WHERE name = 'device'").fetchone()
    if row:
        return str(row[0])
    device = secrets.token_hex(6)
    conn.execute("INSERT OR IGNORE INTO sync_meta VALUES ('device', ?)", (device,))
    return str(conn.execute("SELECT value FROM sync_meta WHERE name = 'device'").fetchone()[0])


def save_clock(conn: sqlite3.Connection, value: Stamp) -> None:
    """Store the clock, never moving it back (an edit and a sync may both have ticked it)."""
    conn.execute(
        "INSERT INTO sync_meta VALUES ('clock', ?) ON CONFLICT(name) DO UPDATE SET value = MAX(value, excluded.value)",
        (value,),
    )


def tick(conn: sqlite3.Connection) -> Stamp:
    """A new stamp for an act made now, later than every stamp this library issued or received."""
    row = conn.execute("SELECT value FROM sync_meta WHERE name = 'clock'").fetchone()
    now = float(conn.execute("SELECT wall_clock()").fetchone()[0])  # the library's clock (db.connect's ``wall``)
    clock = HybridClock(str(row[0]) if row else None, lambda: now)
    made = clock.tick()
    save_clock(conn, made)
    return made


def pending(conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    """The unsent value of a record, if the reader changed it since the last sync."""
    row = conn.execute("SELECT value FROM sync_pending WHERE key = ?", (key,)).fetchone()
    return json.loads(row[0]) if row else None


def current(conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    """A record's value as known here: the unsent edit, else the merged state (None: never set)."""
    waiting = pending(conn, key)
    if waiting is not None:
        return waiting
    row = conn.execute("SELECT entry FROM sync_state WHERE key = ?", (key,)).fetchone()
    entry = json.loads(row[0]) if row else {}
    return dict(entry["value"]) if "value" in entry else None


def record(conn: sqlite3.Connection, key: str, value: dict[str, Any], *, at: Stamp | None = None) -> None:
    """The reader set ``key`` to ``value`` now (``at``: a fixed stamp, as UNEDITED for a file's own title).

    Call inside the edit's own transaction, so the edit and its record are one.
    """
    text = json.dumps(value, ensure_ascii=False)
    if at is not None:  # a fixed, old stamp never replaces an act waiting to be sent
        conn.execute("INSERT OR IGNORE INTO sync_pending (key, stamp, value) VALUES (?, ?, ?)", (key, at, text))
        return
    conn.execute(
        "INSERT INTO sync_pending (key, stamp, value) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET"
        " stamp = excluded.stamp, value = excluded.value",
        (key, tick(conn), text),
    )


def known(conn: sqlite3.Connection, prefix: str) -> dict[str, dict[str, Any]]:
    """Every record under ``prefix`` as last known here: the merged state, overlaid by unsent edits.

    Used to bring a removed book's notes back when it is imported again.
    """
    span = (prefix, prefix + "\U0010ffff")  # a range on the primary key: no scan of every record
    found: dict[str, tuple[Stamp, dict[str, Any]]] = {}
    for key, entry in conn.execute("SELECT key, entry FROM sync_state WHERE key >= ? AND key < ?", span):
        data = json.loads(entry)
        if "value" in data:  # the furthest place has its own shape; it is restored by the next sync
            found[key] = (str(data["stamp"]), dict(data["value"]))
    for key, made, value in conn.execute("SELECT key, stamp, value FROM sync_pending WHERE key >= ? AND key < ?", span):
        if key not in found or made >= found[key][0]:
            found[key] = (made, json.loads(value))
    return {key: value for key, (_, value) in found.items()}


def upgrade_key(key: str, value: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A highlight or bookmark record keyed by its span (Quire before identities), keyed by identity; None for
    any other record."""
    parts = key.split("/")
    if parts[0] == "highlight" and len(parts) == 4:
        uid = legacy_uid(parts[1], parts[2], parts[3])
        return f"highlight/{parts[1]}/{uid}", {**value, "start": parts[2], "end": parts[3]}
    if parts[0] == "bookmark" and len(parts) == 3 and "." in parts[2]:
        return f"bookmark/{parts[1]}/{legacy_uid(parts[1], parts[2])}", {**value, "locator": parts[2]}
    return None


# -- what one sync keeps (core.sync.engine) -------------------------------------------------------------------------
def meta(conn: sqlite3.Connection, name: str) -> str | None:
    """A row of sync's bookkeeping: ``clock``, ``seq``, ``journal``, ``last_report``, ``floor:DEVICE``."""
    row = conn.execute("SELECT value FROM sync_meta WHERE name = ?", (name,)).fetchone()
    return str(row[0]) if row else None


def set_meta(conn: sqlite3.Connection, name: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO sync_meta VALUES (?, ?)", (name, value))


def entries(conn: sqlite3.Connection) -> dict[str, Any]:
    """The merged state: every record's entry as all devices left it."""
    return {key: json.loads(entry) for key, entry in conn.execute("SELECT key, entry FROM sync_state")}


def entry(conn: sqlite3.Connection, key: str) -> Any | None:
    """One record's merged entry (None: never merged)."""
    row = conn.execute("SELECT entry FROM sync_state WHERE key = ?", (key,)).fetchone()
    return json.loads(row[0]) if row else None


def write_entries(conn: sqlite3.Connection, written: dict[str, str]) -> None:
    """Store merged entries, given as their JSON."""
    conn.executemany("INSERT OR REPLACE INTO sync_state VALUES (?, ?)", written.items())


def acts(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(key, stamp, value as JSON) of every act waiting to be sent, oldest first."""
    return [tuple(row) for row in conn.execute("SELECT key, stamp, value FROM sync_pending ORDER BY stamp, key")]


def acted_keys(conn: sqlite3.Connection) -> set[str]:
    """The records the reader changed since the last sync took their acts."""
    return {row[0] for row in conn.execute("SELECT key FROM sync_pending")}


def forget_acts(conn: sqlite3.Connection, keys: list[str] | None = None) -> None:
    """Acts taken into the outbox leave the journal (``keys``: those only; None: every one)."""
    if keys is None:
        conn.execute("DELETE FROM sync_pending")
    else:
        conn.executemany("DELETE FROM sync_pending WHERE key = ?", [(key,) for key in keys])


def waiting(conn: sqlite3.Connection) -> tuple[int, int]:
    """(files in the outbox, acts not yet in it)."""
    files = conn.execute("SELECT COUNT(*) FROM sync_outbox").fetchone()[0]
    edits = conn.execute("SELECT COUNT(*) FROM sync_pending").fetchone()[0]
    return int(files), int(edits)


def enqueue(conn: sqlite3.Connection, seq: int, body: bytes) -> None:
    conn.execute("INSERT INTO sync_outbox VALUES (?, ?)", (seq, body))


def outbox(conn: sqlite3.Connection) -> list[tuple[int, bytes]]:
    """(number, body) of each file waiting to be written to the target, in order."""
    return [(int(seq), bytes(body)) for seq, body in conn.execute("SELECT seq, body FROM sync_outbox ORDER BY seq")]


def sent(conn: sqlite3.Connection, seq: int, body: bytes) -> None:
    """A file is in place on the target: it leaves the outbox and is kept as sent, to write again if damaged."""
    conn.execute("DELETE FROM sync_outbox WHERE seq = ?", (seq,))
    conn.execute("INSERT OR REPLACE INTO sync_sent VALUES (?, ?)", (seq, body))


def sent_sizes(conn: sqlite3.Connection) -> list[tuple[int, int]]:
    """(number, size) of each file sent and not yet held by a snapshot."""
    return [(int(seq), int(size)) for seq, size in conn.execute("SELECT seq, length(body) FROM sync_sent ORDER BY seq")]


def sent_body(conn: sqlite3.Connection, seq: int) -> bytes:
    return bytes(conn.execute("SELECT body FROM sync_sent WHERE seq = ?", (seq,)).fetchone()[0])


def forget_sent(conn: sqlite3.Connection, through: int) -> None:
    """A snapshot holds the sent files up to ``through``."""
    conn.execute("DELETE FROM sync_sent WHERE seq <= ?", (through,))


def seen(conn: sqlite3.Connection) -> set[str]:
    """The names of the target's files applied here (or skipped as not Quire's)."""
    return {row[0] for row in conn.execute("SELECT name FROM sync_seen")}


def mark_seen(conn: sqlite3.Connection, name: str, at: str) -> None:
    conn.execute("INSERT OR IGNORE INTO sync_seen VALUES (?, ?)", (name, at))
