"""A Kindle book's indexes: its contents (NCX) and a KF8 book's skeleton and fragment tables.

The NCX gives each entry's title, level, parent and position; the two tables say how each XHTML file of a KF8
book is put together (a skeleton, then its fragments, each inserted at its place).

Hand-written after the index layout KindleUnpack documents (INDX records with a TAGX table, their labels in CNCX
records): no maintained library reads KF8 indexes without also bringing a whole converter, and this needs only
the contents. Any damage gives no entries, and the reader falls back to the chapters' own headings.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

NO_INDEX = 0xFFFFFFFF
MAX_ENTRIES = 20_000
_POS, _LABEL, _LEVEL, _POS_FID, _PARENT = 1, 3, 4, 6, 21  # NCX tags: position, label, depth, (fragment, offset), parent


@dataclass(frozen=True, slots=True)
class NcxEntry:
    title: str
    position: int  # a byte offset in the book's text
    level: int  # 0 for the top
    parent: int  # the index of the entry it is under, -1 for none


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """A forward variable-width value (7 bits a byte, the last byte's high bit set): (bytes used, value)."""
    value, used = 0, 0
    while True:
        byte = data[offset + used]
        used += 1
        value = (value << 7) | (byte & 0x7F)
        if byte & 0x80 or used > 5:
            return used, value


def _indx(data: bytes) -> dict[str, int]:
    if data[:4] != b"INDX":
        raise ValueError("not an INDX record")
    names = ("len", "nul1", "type", "gen", "start", "count", "code", "lng", "total", "ordt", "ligt", "nligt", "nctoc")
    return dict(zip(names, struct.unpack(f">{len(names)}L", data[4 : 4 * (len(names) + 1)]), strict=True))


def _tag_table(data: bytes, start: int) -> tuple[int, list[tuple[int, int, int, int]]]:
    if data[start : start + 4] != b"TAGX":
        raise ValueError("no TAGX table")
    end, control_bytes = struct.unpack(">LL", data[start + 4 : start + 12])
    return control_bytes, [tuple(data[start + i : start + i + 4]) for i in range(12, end, 4)]  # type: ignore[misc]


def _tags(control_bytes: int, table: list[tuple[int, int, int, int]], data: bytes, start: int) -> dict[int, list[int]]:
    found: list[tuple[int, int | None, int | None, int]] = []
    control, cursor = 0, start + control_bytes
    for tag, per_entry, mask, end_flag in table:
        if end_flag == 1:
            control += 1
            continue
        value = data[start + control] & mask
        if not value:
            continue
        if value == mask and bin(mask).count("1") > 1:
            used, size = _varint(data, cursor)
            cursor += used
            found.append((tag, None, size, per_entry))
        else:
            while not mask & 1:
                mask >>= 1
                value >>= 1
            found.append((tag, value, None, per_entry))
    values: dict[int, list[int]] = {}
    for tag, count, length, per_entry in found:
        read: list[int] = []
        if count is not None:
            for _ in range(count * per_entry):
                used, number = _varint(data, cursor)
                cursor += used
                read.append(number)
        else:
            consumed = 0
            while consumed < (length or 0):
                used, number = _varint(data, cursor)
                cursor += used
                consumed += used
                read.append(number)
        values[tag] = read
    return values


def _labels(data: bytes) -> dict[int, bytes]:
    labels, offset = {}, 0
    while offset < len(data) and data[offset]:
        start = offset
        used, length = _varint(data, offset)
        offset += used
        labels[start] = data[offset : offset + length]
        offset += length
    return labels


IndexEntry = tuple[bytes, dict[int, list[int]]]  # an entry's name and its tags' values


def index_entries(record: Callable[[int], bytes], index: int) -> tuple[list[IndexEntry], dict[int, bytes]]:
    """Every entry of the index whose first record is ``index`` (``record(n)`` reads record n), and the index's
    CNCX strings by offset. Raises ValueError, IndexError, KeyError or struct.error on a damaged index."""
    head = record(index)
    header = _indx(head)
    labels: dict[int, bytes] = {}
    for n in range(header["nctoc"]):
        labels.update({k + n * 0x10000: v for k, v in _labels(record(index + header["count"] + 1 + n)).items()})
    control_bytes, table = _tag_table(head, header["len"])
    entries: list[IndexEntry] = []
    for number in range(index + 1, index + 1 + header["count"]):
        data = record(number)
        part = _indx(data)
        positions = [struct.unpack(">H", data[part["start"] + 4 + 2 * j : part["start"] + 6 + 2 * j])[0]
                     for j in range(part["count"])] + [part["start"]]  # fmt: skip
        for j in range(part["count"]):
            at = positions[j]
            entries.append((data[at + 1 : at + 1 + data[at]], _tags(control_bytes, table, data, at + 1 + data[at])))
            if len(entries) > MAX_ENTRIES:
                raise ValueError("too many index entries")
    return entries, labels


@dataclass(frozen=True, slots=True)
class Fragment:
    insert: int  # where it goes in its file as put together (in the text's offsets)
    length: int


@dataclass(frozen=True, slots=True)
class Skeleton:
    start: int  # where the file starts in the text
    length: int  # the skeleton's own length; its fragments follow it
    fragments: int  # how many fragments go into it, in order


def skeletons(record: Callable[[int], bytes], index: int) -> list[Skeleton]:
    """A KF8 book's skeleton table (one per XHTML file); [] when it has none or it cannot be read."""
    if index == NO_INDEX:
        return []
    try:
        return [Skeleton(tags[6][0], tags[6][1], tags[1][0]) for _, tags in index_entries(record, index)[0]]
    except (ValueError, IndexError, struct.error, KeyError):
        return []


def fragments(record: Callable[[int], bytes], index: int) -> list[Fragment]:
    """A KF8 book's fragment table, in the order the fragments are stored; [] when it cannot be read."""
    if index == NO_INDEX:
        return []
    try:
        return [Fragment(int(name), tags[6][1]) for name, tags in index_entries(record, index)[0]]
    except (ValueError, IndexError, struct.error, KeyError):
        return []


def ncx_entries(
    record: Callable[[int], bytes], index: int, encoding: str, placed: Sequence[Fragment] = ()
) -> list[NcxEntry]:
    """The NCX entries of the index whose first record is ``index``; [] when the book has none or it cannot be
    read. With the book's fragment table, a KF8 entry's position is its fragment's place plus its offset there
    (``kindle:pos:fid:…:off:…``), in the files as put together."""
    if index == NO_INDEX:
        return []
    try:
        found, labels = index_entries(record, index)
    except (ValueError, IndexError, struct.error, KeyError):
        return []
    entries: list[NcxEntry] = []
    for _, tags in found:
        if _LABEL not in tags or _POS not in tags:
            continue
        title = " ".join(labels.get(tags[_LABEL][0], b"").decode(encoding, errors="replace").split())
        position = tags[_POS][0]
        fid = tags.get(_POS_FID, [])
        if len(fid) >= 2 and 0 <= fid[0] < len(placed):
            position = placed[fid[0]].insert + fid[1]
        entries.append(NcxEntry(title, position, tags.get(_LEVEL, [0])[0], tags.get(_PARENT, [-1])[0]))
    return entries
