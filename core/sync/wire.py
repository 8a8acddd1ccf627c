"""What crosses the sync folder: log files (a checksummed header, then one change per line) and the shape every
record must have to be taken in.

Anything another program, a damaged disk or a hostile device put there is normal input: a record of the wrong
shape is skipped with a warning (pydantic checks each kind), and a file that does not read whole (cut short,
altered) is kept aside and read again next time, never taken as the truth.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.books.locator import is_locator
from core.companion.corrections import MAX_NAME
from core.library.annotations import HIGHLIGHT_COLORS, MAX_LABEL_CHARS, MAX_NOTE_CHARS
from core.sync.merge import Change
from core.sync.store import upgrade_key

FORMAT = 2  # log files with a header line; files without one were written by Quire before it (read as before)
MAX_LINE_BYTES = 1024 * 1024  # a record is far smaller (a note is capped at 100,000 characters)
MAX_LOG_BYTES = 32 * 1024 * 1024  # a log file a device writes is at most FILE_BYTES; larger ones are not read
FILE_BYTES = 4 * 1024 * 1024  # this device splits what it sends into files of about this size
MAX_SNAPSHOT_BYTES = 128 * 1024 * 1024

_HASH = r"[0-9a-f]{16,128}"
_DEVICE = r"[A-Za-z0-9_]{4,64}"
_KEYS = {
    "book": re.compile(rf"^book/{_HASH}$"),
    "meta": re.compile(rf"^meta/{_HASH}$"),
    "place": re.compile(rf"^place/{_HASH}$"),
    "furthest": re.compile(rf"^furthest/{_HASH}$"),
    "time": re.compile(rf"^time/{_HASH}/{_DEVICE}$"),
    "day": re.compile(rf"^day/{_HASH}/{_DEVICE}/\d{{4}}-\d{{2}}-\d{{2}}$"),
    "bookmark": re.compile(rf"^bookmark/{_HASH}/[0-9a-f]{{8,64}}$"),
    "highlight": re.compile(rf"^highlight/{_HASH}/[0-9a-f]{{8,64}}$"),
    "tag": re.compile(rf"^tag/{_HASH}/[A-Za-z0-9%._~-]{{1,1800}}$"),
    "word": re.compile(rf"^word/{_HASH}/[A-Za-z0-9%._~-]{{1,1800}}$"),
    "xray": re.compile(rf"^xray/{_HASH}/[A-Za-z0-9%._~-]{{1,1800}}$"),
}
_STAMP = re.compile(r"^\d{15}-\d{6}$")
_DEVICE_NAME = re.compile(rf"^{_DEVICE}$")


def _locator(text: str) -> str:
    if not is_locator(text):
        raise ValueError(f"{text[:40]!r} is not a locator")
    return text


class _Value(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class _Present(_Value):
    present: bool


class _Meta(_Value):
    title: Annotated[str, Field(min_length=1, max_length=500)]
    authors: Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=50)]


class _Place(_Value):
    locator: Annotated[str, Field(max_length=64)]
    _check = field_validator("locator")(_locator)


class _Furthest(_Place):
    ordinal: Annotated[int, Field(ge=0, le=1 << 40)]
    reset: bool = False


class _Day(_Value):
    seconds: Annotated[float, Field(ge=0, le=86_400 * 2, strict=False)]
    chars: Annotated[int, Field(ge=0, le=10**9)] = 0
    sessions: Annotated[int, Field(ge=0, le=10**5)] = 0

    @field_validator("seconds")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("not a number")
        return value


class _Time(_Value):
    seconds: Annotated[float, Field(ge=0, le=1e10, strict=False)]

    @field_validator("seconds")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("not a number of seconds")
        return value


class _Bookmark(_Present):
    locator: Annotated[str, Field(max_length=64)]
    label: Annotated[str, Field(max_length=MAX_LABEL_CHARS)] = ""
    _check = field_validator("locator")(_locator)


class _Highlight(_Present):
    start: Annotated[str, Field(max_length=64)]
    end: Annotated[str, Field(max_length=64)]
    color: Literal[HIGHLIGHT_COLORS] = "yellow"  # type: ignore[valid-type]
    note: Annotated[str, Field(max_length=MAX_NOTE_CHARS)] = ""
    _check = field_validator("start", "end")(_locator)


class _Word(_Present):
    locator: Annotated[str, Field(max_length=64)] = ""
    sentence: Annotated[str, Field(max_length=2_000)] = ""
    definition: Annotated[str, Field(max_length=4_000)] = ""


class _Correction(_Present):
    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
    hide: bool = False
    into: Annotated[str, Field(max_length=MAX_NAME)] = ""
    rename: Annotated[str, Field(max_length=MAX_NAME)] = ""
    kind: Literal["", "person", "place", "term"] = ""
    add: bool = False


_SHAPES: dict[str, type[_Value]] = {
    "book": _Present, "meta": _Meta, "place": _Place, "furthest": _Furthest, "time": _Time, "day": _Day,
    "bookmark": _Bookmark, "highlight": _Highlight, "tag": _Present, "word": _Word, "xray": _Correction,
}  # fmt: skip


def checked(key: Any, stamp: Any, device: Any, value: Any) -> Change:
    """A change whose every part has the shape Quire writes; ValueError (saying what is wrong) otherwise.

    Records keyed by a highlight's or bookmark's span (Quire before identities) are rekeyed by identity.
    """
    if not (isinstance(key, str) and isinstance(stamp, str) and isinstance(device, str) and isinstance(value, dict)):
        raise ValueError("a change is a key, a stamp, a device and a value")
    if not _STAMP.match(stamp) or not _DEVICE_NAME.match(device):
        raise ValueError("a change needs a clock stamp and a device name")
    upgraded = upgrade_key(key, value) if len(key) < 400 else None
    if upgraded is not None:
        key, value = upgraded
    kind = key.split("/", 1)[0]
    pattern = _KEYS.get(kind)
    if pattern is None or not pattern.match(key):
        raise ValueError(f"not a record Quire knows: {key[:60]!r}")
    try:
        shaped = _SHAPES[kind].model_validate(value)
    except ValidationError as error:
        raise ValueError(f"a {kind} record of the wrong shape ({error.error_count()} problem(s))") from None
    clean = dict(shaped.__dict__)  # the fields as validated (model_dump walks them again: a tenth of a record)
    if kind == "furthest" and not clean["reset"]:
        del clean["reset"]
    return Change(key, stamp, device, clean)


def parse_line(line: str | bytes) -> Change:
    """One log line as a change; ValueError for anything Quire did not write (deep nesting included)."""
    if len(line) > MAX_LINE_BYTES:
        raise ValueError("a record longer than Quire writes")
    try:
        data = json.loads(line)
    except RecursionError:
        raise ValueError("a record nested deeper than Quire writes") from None
    if not isinstance(data, dict):
        raise ValueError("not a change")
    return checked(data.get("k"), data.get("t"), data.get("d"), data.get("v"))


def encode(changes: Iterable[Change]) -> list[bytes]:
    """Changes as log files (one or more, each about FILE_BYTES at most), each with its checksummed header."""
    files: list[bytes] = []
    lines: list[bytes] = []
    size = 0
    for change in changes:
        line = (change.to_line() + "\n").encode("utf-8")
        if lines and size + len(line) > FILE_BYTES:
            files.append(_with_header(lines))
            lines, size = [], 0
        lines.append(line)
        size += len(line)
    if lines:
        files.append(_with_header(lines))
    return files


def _with_header(lines: list[bytes]) -> bytes:
    body = b"".join(lines)
    header = {"quire": FORMAT, "lines": len(lines), "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode("utf-8") + b"\n" + body


@dataclass
class LogRead:
    """A log file as read: its changes, the records skipped (and why), or why the whole file was kept aside."""

    changes: list[Change] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    damaged: str | None = None


def decode(data: bytes) -> LogRead:
    """Read a log file. A file that does not read whole is ``damaged`` (nothing of it is taken); inside a whole
    file, each record of the wrong shape is skipped and the others are kept."""
    result = LogRead()
    first, _, rest = data.partition(b"\n")
    header = _header(first)
    if header is not None:
        if hashlib.sha256(rest).hexdigest() != header.get("sha256") or rest.count(b"\n") != header.get("lines"):
            result.damaged = "it does not match its checksum (cut short or altered)"
            return result
        body = rest
    else:  # a file from Quire before headers: whole when every line is JSON and the last one ends
        if not data.endswith(b"\n"):
            result.damaged = "it is cut short"
            return result
        body = data
    for number, raw in enumerate(body.splitlines(), start=1):
        try:
            result.changes.append(parse_line(raw.decode("utf-8")))
        except UnicodeDecodeError:
            if header is None:
                result.damaged = f"line {number} is not text"
                return result
            result.skipped.append(f"line {number}: not text")
        except ValueError as error:
            if header is None and not _is_json(raw):
                result.damaged = f"line {number} is cut or garbled"
                return result
            result.skipped.append(f"line {number}: {error}")
    return result


def _header(line: bytes) -> dict[str, Any] | None:
    if not line.startswith(b'{"quire"'):
        return None
    try:
        header = json.loads(line)
    except ValueError:
        return None
    return header if isinstance(header, dict) and header.get("quire") == FORMAT else None


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return True
