"""One sync: send this device's changes, apply every other device's, and leave both sides able to go on.

The target holds ``log/DEVICE-SEQ.jsonl`` files: each device appends by writing new numbered files of its own,
never touching another's, so devices syncing at the same moment cannot corrupt each other. A sync:

1. moves the reader's acts recorded since the last sync (``core.sync.store``: stamped when made) into an
   outbox, in one transaction with the merged state. Nothing else becomes a change: a record the library lacks
   is never read as a deletion (a deletion is only a reader's remove, recorded when it happened);
2. lists ``log/`` (one request when nothing is new), rewrites any of its own files found damaged or missing,
   reads the files not applied yet and merges them, each in one transaction with the note that it was applied.
   A file that does not read whole (cut short, altered in place, larger than Quire writes) is kept aside and
   read again every sync until it does, and the reader leaves a ``log/WRITER-SEQ.rewrite-READER`` request
   beside it: sizes cannot show a byte altered in place, a checksum can, and only a reader checks one. The
   writer sees the request in its next listing, writes the file again from what it sent, and deletes the
   request. A record of the wrong shape is skipped with a warning;
3. makes the library show the merged state (leaving records the reader edited meanwhile as they are);
4. writes the outbox to the target (temporary name, then moved into place) and keeps each sent file until a
   snapshot holds it, to rewrite it if it is found damaged;
5. with book files on: sends the books the target lacks (or holds damaged), and imports the ones only other
   devices had, each checked against its content hash first.

Cut anywhere (a dropped connection, the app killed), the next sync completes it: the outbox is sent again
under the same names, a file is applied once, merging the same change twice changes nothing, and what was
merged but not yet shown is shown by the next sync instead of being taken for a deletion.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from core.errors import SyncFileTooLarge
from core.library.annotations import Annotations
from core.library.db import now
from core.library.in_part import partial_hashes as read_in_part_hashes
from core.library.store import Library
from core.sync import store as sync_store, wire
from core.sync.clock import HybridClock
from core.sync.merge import Change, Entry, as_json, merge, value_of
from core.sync.records import Records, book_of, materialize, snapshot
from core.sync.target import SyncTarget

LOG_FILE = re.compile(r"^([A-Za-z0-9_]{4,64})-(\d{8})\.jsonl$")
REWRITE_REQUEST = re.compile(r"^([A-Za-z0-9_]{4,64})-(\d{8})\.rewrite-([A-Za-z0-9_]{4,64})$")  # writer, seq, reader
SNAPSHOT_FILE = re.compile(r"^([A-Za-z0-9_]{4,64})-(\d{8})\.json$")
COMPACT_AFTER = 64  # this many log files of one device: fold them into a snapshot
BOOK_FILE = re.compile(r"^([0-9a-f]{64})\.([a-z0-9]{1,8})$")
MAX_BOOK_BYTES = 200 * 1024 * 1024
UNEDITED = sync_store.UNEDITED


@dataclass
class SyncReport:
    """What one sync did, for the status line and ``quire sync --json``."""

    device: str
    target: str
    sent: int = 0  # changes written to the target
    received: int = 0  # changes from other devices that changed something here
    files_read: int = 0
    books_sent: list[str] = field(default_factory=list)
    books_received: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    finished_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SyncStatus:
    """Where a library syncs and how it stands: for Settings, ``quire sync status`` and ``--json``."""

    device: str  # this device's name in the sync folder
    target: str  # the folder or WebDAV URL, without a password
    user: str  # the WebDAV login ("" for a folder)
    unsent_files: int  # change files written here, not yet on the target
    unsent_edits: int  # the reader's edits since the last sync
    book_files: bool  # whether book files travel too
    max_book_mb: int  # larger book files stay on their device
    last: SyncReport | None  # the last sync's report (None: never synced)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "last": self.last.to_dict() if self.last else None}


class Syncer:
    """Syncs one library with one target."""

    def __init__(
        self,
        library: Library,
        annotations: Annotations,
        target: SyncTarget,
        *,
        import_bytes: Callable[[bytes, str], object] | None = None,
        book_files: bool = True,
        max_book_bytes: int = MAX_BOOK_BYTES,
        wall: Callable[[], float] = time.time,
        compact_after: int = COMPACT_AFTER,
    ) -> None:
        """``import_bytes`` imports a book another device sent (not recorded as this reader's import)."""
        self.library = library
        self.annotations = annotations
        self.target = target
        self.import_bytes = import_bytes
        self.book_files = book_files and import_bytes is not None
        self.max_book_bytes = max_book_bytes
        self.wall = wall
        self.compact_after = compact_after
        self._own_files: list[str] = []  # this device's log files on the target, as last listed
        with self.library.transaction() as conn:
            self.device = sync_store.device_id(conn)

    # -- bookkeeping --------------------------------------------------------------------------------
    def _meta(self, name: str) -> str | None:
        return sync_store.meta(self.library.conn, name)

    def _fold(self, conn: Any, entries: dict[str, Entry], changes: list[Change], clock: HybridClock) -> int:
        """Merge changes into the stored state (in the caller's transaction); how many changed something."""
        altered = 0
        written: dict[str, Entry] = {}  # each key written once, as the last change left it
        for change in changes:
            clock.observe(change.stamp)
            folded = merge(entries.get(change.key), change)
            if folded is not None:
                entries[change.key] = written[change.key] = folded
                altered += 1
        sync_store.write_entries(conn, {key: as_json(entry) for key, entry in written.items()})
        return altered

    # -- one sync -----------------------------------------------------------------------------------
    def run(self) -> SyncReport:
        with _collector_paused():
            return self._run()

    def _run(self) -> SyncReport:
        report = SyncReport(self.device, self.target.name)
        clock = HybridClock(self._meta("clock"), self.wall)
        entries: dict[str, Entry] = sync_store.entries(self.library.conn)
        self._send_acts(entries, clock)
        if self._meta("journal") != "1":
            self._catch_up(entries, clock)
        names = self.target.list("log")
        self._heal(names, report)
        self._pull(names, entries, clock, report)
        merged = {key: value_of(key, entry) for key, entry in entries.items()}  # every record as all devices left it
        self._show(report, merged)
        self._push(report)
        self._compact(entries)
        if self.book_files:
            self._books(report, merged)
        with self.library.transaction() as conn:
            sync_store.save_clock(conn, clock.value)
            report.finished_at = now()
            sync_store.set_meta(conn, "last_report", json.dumps(report.to_dict(), ensure_ascii=False))
        return report

    def _show(self, report: SyncReport, merged: Records) -> None:
        """Make the library show the merged state (made from the entries every fold of this sync kept as stored,
        so not read again), except records the reader edited since this sync began."""
        waiting = sync_store.acted_keys(self.library.conn)
        local = snapshot(self.library, self.annotations)[0]
        report.warnings += materialize(self.library, self.annotations, merged, local, waiting)

    def status(self, user: str = "") -> SyncStatus:
        """The last sync's report, what waits to be sent, this device's name and what it sends."""
        last = self._meta("last_report")
        waiting, edits = sync_store.waiting(self.library.conn)
        return SyncStatus(self.device, self.target.name, user, waiting, edits, self.book_files,
                          self.max_book_bytes // (1024 * 1024), SyncReport(**json.loads(last)) if last else None)  # fmt: skip

    def _send_acts(self, entries: dict[str, Entry], clock: HybridClock) -> None:
        """The reader's acts since the last sync, as recorded when made, go to the outbox (and the merged state)."""
        with self.library.transaction() as conn:
            rows = sync_store.acts(conn)
            held = read_in_part_hashes(conn)  # a long PDF's first part: its places wait until the book is whole
            rows = [row for row in rows if book_of(row[0]) not in held]
            if not rows:
                return
            changes = [Change(key, stamp, self.device, json.loads(value)) for key, stamp, value in rows]
            self._queue(conn, entries, changes, clock)
            sync_store.forget_acts(conn, [row[0] for row in rows] if held else None)

    def _queue(self, conn: Any, entries: dict[str, Entry], changes: list[Change], clock: HybridClock) -> None:
        seq = int(self._meta("seq") or 0)
        for body in wire.encode(changes):
            seq += 1
            sync_store.enqueue(conn, seq, body)
        sync_store.set_meta(conn, "seq", str(seq))
        self._fold(conn, entries, changes, clock)
        sync_store.save_clock(conn, clock.value)

    def _catch_up(self, entries: dict[str, Entry], clock: HybridClock) -> None:
        """Once, for a library from before the journal: what the reader added or changed since its last sync.

        Nothing missing here is read as a deletion (that is what lost notes in a cut sync): a record the
        library lacks comes back with the next sync instead.
        """
        base = {key: value_of(key, entry) for key, entry in entries.items()}
        local, seconds, defaults = snapshot(self.library, self.annotations)
        held = read_in_part_hashes(self.library.conn)  # sent from their journal when whole (``_send_acts``)
        values: dict[str, dict[str, Any]] = {}
        for key, value in local.items():
            if book_of(key) in held:
                continue
            if key.startswith("day/") and key.split("/")[2] != self.device:
                continue  # another device's reading: that device sends it
            if key.startswith("furthest/"):
                known = base.get(key)
                if known is None or value["ordinal"] > known["ordinal"]:
                    values[key] = value
            elif key in defaults:
                if key not in base:
                    values[key] = value  # stamped as old as can be, below: any edit anywhere wins over it
            elif base.get(key) != value:
                values[key] = value
        for h, total in seconds.items():  # this device's share of the reading time
            if h in held:
                continue
            others = sum(
                v["seconds"] for k, v in base.items() if k.startswith(f"time/{h}/") and not k.endswith(self.device)
            )
            mine = round(max(0.0, total - others), 1)
            if abs(mine - base.get(f"time/{h}/{self.device}", {}).get("seconds", 0.0)) > 0.5:
                values[f"time/{h}/{self.device}"] = {"seconds": mine}
        changes = [
            Change(key, UNEDITED if key in defaults else clock.tick(), self.device, value)
            for key, value in sorted(values.items())
        ]
        with self.library.transaction() as conn:
            if changes:
                self._queue(conn, entries, changes, clock)
            sync_store.set_meta(conn, "journal", "1")

    def _heal(self, names: dict[str, int], report: SyncReport) -> None:
        """Rewrite this device's sent files that are gone from the target, not the size they were written, or
        that another device found damaged (its rewrite request names them); then delete those requests."""
        self._own_files = sorted(n for n in names if LOG_FILE.match(n) and n.startswith(self.device + "-"))
        requested: dict[int, list[str]] = {}
        for name in names:
            match = REWRITE_REQUEST.match(name)
            if match is not None and match.group(1) == self.device:
                requested.setdefault(int(match.group(2)), []).append(name)
        for seq, size in sync_store.sent_sizes(
            self.library.conn
        ):  # sizes only: a body is read back only for a file that needs writing again
            name = f"{self.device}-{seq:08d}.jsonl"
            if names.get(name) != size or seq in requested:
                body = sync_store.sent_body(self.library.conn, seq)
                self.target.write(f"log/{name}", body)
                why = "another device found it damaged" if seq in requested else "it was missing or damaged"
                report.warnings.append(f"rewrote {_shown('log/' + name)}: {why} in the sync folder")
                names[name] = len(body)
        for requests in requested.values():  # answered, or about a file a snapshot holds now (deleted here)
            for request in requests:
                self.target.delete(f"log/{request}")
                names.pop(request, None)

    def _pull(self, names: dict[str, int], entries: dict[str, Entry], clock: HybridClock, report: SyncReport) -> None:
        """Read and merge the other devices' log files not applied yet.

        A device compacts its own old files into a snapshot and deletes them; a device that finds such a gap
        (it never read files that are gone) starts from that device's newest snapshot, then reads what follows.
        """
        seen = sync_store.seen(self.library.conn)
        by_device: dict[str, list[tuple[int, str]]] = {}
        strangers = []
        for name in sorted(names):
            match = LOG_FILE.match(name)
            if match is None:
                if name not in seen and REWRITE_REQUEST.match(name) is None:
                    strangers.append(name)
                    self._mark_seen(name)
                continue
            if match.group(1) != self.device:  # ours were sent from the outbox: known here already
                by_device.setdefault(match.group(1), []).append((int(match.group(2)), name))
        if strangers:  # one line however many (3,000 junk files gave 3,000 lines)
            named = ", ".join(_shown(n) for n in strangers[:3]) + (", …" if len(strangers) > 3 else "")
            report.warnings.append(f"skipped {len(strangers)} file(s) in log/ that Quire does not write ({named})")
        for other, files in by_device.items():
            floor = int(self._meta(f"floor:{other}") or 0)
            read = [seq for seq, name in files if name in seen] + [floor]
            if files[0][0] > max(read) + 1:  # files this device never read are gone: compacted
                floor = self._load_snapshot(other, entries, clock, report)
            for seq, name in files:
                if seq <= floor or name in seen:
                    continue
                self._apply_file(name, names, entries, clock, report)

    def _apply_file(
        self, name: str, names: dict[str, int], entries: dict[str, Entry], clock: HybridClock, report: SyncReport
    ) -> None:
        """Merge one log file, or keep it aside (read again next sync) and ask its device to write it again."""
        request = f"{name.removesuffix('.jsonl')}.rewrite-{self.device}"
        damaged = "larger than Quire writes" if names[name] > wire.MAX_LOG_BYTES else None
        read = wire.LogRead()
        if damaged is None:
            try:
                read = wire.decode(self.target.read(f"log/{name}", wire.MAX_LOG_BYTES))
                damaged = read.damaged
            except SyncFileTooLarge:
                damaged = "larger than Quire writes"
        if damaged:  # never taken as the truth, and never given up on: what its device sends later still comes
            report.warnings.append(
                f"kept {_shown('log/' + name)} aside: {damaged}; its device is asked to write it again"
            )
            if request not in names:
                self.target.write(f"log/{request}", b"")
                names[request] = 0
            return
        if read.skipped:
            shown = "; ".join(read.skipped[:3]) + ("…" if len(read.skipped) > 3 else "")
            report.warnings.append(f"skipped {len(read.skipped)} record(s) of {_shown('log/' + name)} ({shown})")
        with self.library.transaction() as conn:
            report.received += self._fold(conn, entries, read.changes, clock)
            sync_store.mark_seen(conn, name, now())
            sync_store.save_clock(conn, clock.value)
        report.files_read += 1
        if request in names:  # read whole now: the request is answered
            self.target.delete(f"log/{request}")

    def _load_snapshot(self, other: str, entries: dict[str, Entry], clock: HybridClock, report: SyncReport) -> int:
        """Merge ``other``'s newest snapshot; returns the last of its log files that the snapshot holds."""
        snapshots = sorted(
            (int(m.group(2)), name) for name in self.target.list("snapshot") if (m := SNAPSHOT_FILE.match(name))
            and m.group(1) == other
        )  # fmt: skip
        if not snapshots:
            report.warnings.append(f"the files of device {other} before the ones in log/ are gone, with no snapshot")
            return 0
        covered, name = snapshots[-1]
        try:
            data = self.target.read(f"snapshot/{name}", wire.MAX_SNAPSHOT_BYTES)
            held = json.loads(data)
            digest = held.get("sha256")  # snapshots from before checksums have none
            if digest is not None and _digest(held["entries"]) != digest:
                raise ValueError("it does not match its checksum")
            raw = [change for key, entry in held["entries"].items() for change in _as_changes(key, entry)]
        except (SyncFileTooLarge, ValueError, KeyError, TypeError, AttributeError, RecursionError, IndexError):
            report.warnings.append(f"kept {_shown('snapshot/' + name)} aside: not a snapshot Quire can read")
            return 0
        changes, bad = [], 0
        for change in raw:
            try:
                changes.append(wire.checked(change.key, change.stamp, change.device, change.value))
            except ValueError:
                bad += 1
        if bad:
            report.warnings.append(
                f"skipped {bad} record(s) of {_shown('snapshot/' + name)}: not of the shape Quire writes"
            )
        with self.library.transaction() as conn:
            report.received += self._fold(conn, entries, changes, clock)
            sync_store.set_meta(conn, f"floor:{other}", str(covered))
            sync_store.save_clock(conn, clock.value)
        report.files_read += 1
        return covered

    def _compact(self, entries: dict[str, Entry]) -> None:
        """Once this device has many log files, write a snapshot of the merged state and delete its own files
        that the snapshot holds (only its own: no other device's file is touched, so no lock is needed)."""
        seq = int(self._meta("seq") or 0)
        own = [int(m.group(2)) for name in self._own_files if (m := LOG_FILE.match(name))]
        if len(own) < self.compact_after or sync_store.waiting(self.library.conn)[0]:
            return
        held = {"device": self.device, "seq": seq, "entries": entries, "sha256": _digest(entries)}
        body = json.dumps(held, ensure_ascii=False)
        self.target.write(f"snapshot/{self.device}-{seq:08d}.json", body.encode("utf-8"))
        with self.library.transaction() as conn:
            sync_store.forget_sent(conn, seq)
        for old in own:
            if old <= seq:
                self.target.delete(f"log/{self.device}-{old:08d}.jsonl")
        for name in self.target.list("snapshot"):
            match = SNAPSHOT_FILE.match(name)
            if match and match.group(1) == self.device and int(match.group(2)) < seq:
                self.target.delete(f"snapshot/{name}")

    def _mark_seen(self, name: str) -> None:
        with self.library.transaction() as conn:
            sync_store.mark_seen(conn, name, now())

    def _push(self, report: SyncReport) -> None:
        """Write the outbox to the target; each file leaves it only once it is in place there, and is kept as sent
        (until a snapshot holds it) so that a copy found damaged can be written again."""
        for seq, body in sync_store.outbox(self.library.conn):
            self.target.write(f"log/{self.device}-{seq:08d}.jsonl", body)
            with self.library.transaction() as conn:
                sync_store.sent(conn, seq, body)
            report.sent += max(0, body.count(b"\n") - 1)  # the header line is not a change

    def _books(self, report: SyncReport, merged: Records) -> None:
        """Send the book files the target lacks or holds damaged; import those only other devices have, each
        checked against the content hash its name carries (a damaged one is deleted, so a holder sends it again)."""
        remote = self.target.list("files")
        held = {m.group(1): name for name in remote if (m := BOOK_FILE.match(name))}
        for book in self.library.books():
            if book.file_size > self.max_book_bytes:
                if book.content_hash not in held:
                    report.warnings.append(f"'{book.title}' stays here: its file is larger than the sync limit")
                continue
            path = self.library.file_path(book.id)
            name = held.get(book.content_hash, f"{book.content_hash}{path.suffix.lower()}")
            if remote.get(name) == path.stat().st_size:
                continue
            self.target.write(f"files/{name}", path.read_bytes())
            report.books_sent.append(book.title)
        here = {b.content_hash for b in self.library.books()}
        wanted = [
            book_of(key)
            for key, value in merged.items()
            if key.startswith("book/") and value.get("present") and book_of(key) not in here
        ]
        for h in wanted:
            if h not in held or remote[held[h]] > self.max_book_bytes:
                continue
            assert self.import_bytes is not None
            data = self.target.read(f"files/{held[h]}", self.max_book_bytes)
            title = merged.get(f"meta/{h}", {}).get("title", h[:12])
            if hashlib.sha256(data).hexdigest() != h:
                report.warnings.append(
                    f"files/{held[h]} is damaged (it does not match its content hash): deleted, so a device that"
                    f" has '{title}' sends it again"
                )
                self.target.delete(f"files/{held[h]}")
                continue
            self.import_bytes(data, f"{title}.{held[h].rsplit('.', 1)[1]}")
            report.books_received.append(str(title))
        if report.books_received:  # their notes and places arrived before them: show them now
            self._show(report, merged)


def _digest(entries: Any) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _as_changes(key: str, entry: Entry) -> list[Change]:
    """A snapshot's stored state of one record, as the changes that rebuild it (merged like any others)."""
    if not key.startswith("furthest/"):
        return [Change(key, entry["stamp"], entry["device"], entry["value"])]
    points = [(entry["reset"], True)] if entry["reset"] else []
    points += [(point, False) for point in entry["frontier"]]
    return [
        Change(key, point[0], point[1], {"locator": point[2], "ordinal": int(point[3]), "reset": reset})
        for point, reset in points
    ]


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off for one sync: receiving 10,000 highlights makes some 100,000
    short-lived objects (changes, records, rows), which reference counting frees as they go, but which set off the
    collector's full passes over every object the process holds (about a sixth of the sync's time measured with
    ``bench.sync_receive``). What cycles a sync leaves are collected once it ends, as usual."""
    if not gc.isenabled():  # paused by someone else: theirs to restart
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _shown(name: str) -> str:
    """A file name from the sync folder as one printable line: quoted, a line break or control character escaped
    (a name holding a newline printed raw split the report)."""
    return repr(name)
