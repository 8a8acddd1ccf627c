"""KOReader's sidecar files read safely and written back: the Lua table literal its serializer writes, parsed
without running Lua, and written the way KOReader's ``dump.lua`` writes it.

A sidecar (``book.sdr/metadata.epub.lua``) is ``return { ["key"] = value, ... }`` as KOReader's ``dump.lua`` writes
it: strings in double quotes with Lua's escapes, numbers, booleans, nil and nested tables keyed by strings or
numbers. Hand-written because no packaged Lua-literal reader has the bounds a file from a USB stick needs: the
size, the nesting depth and the number of values are each capped, and anything else (a call, an operator, a
variable) is refused with one line, never evaluated.
"""

from __future__ import annotations

import re
from typing import Any

from core.errors import QuireError

MAX_BYTES = 8 * 1024 * 1024  # the biggest KOReader sidecars (thousands of highlights) are a few hundred kB
MAX_DEPTH = 32
MAX_VALUES = 500_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"',
            "'": "'", "\n": "\n"}  # fmt: skip


class SidecarError(QuireError):
    """A KOReader sidecar that is not a Lua table literal Quire can read (cut short, too big, too deep, not data)."""


def parse_sidecar(text: str) -> dict[Any, Any]:
    """The table a sidecar returns; ``SidecarError`` when it is not one within the bounds."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise SidecarError(f"the sidecar is over {MAX_BYTES // (1024 * 1024)} MB: not one KOReader writes")
    reader = _Reader(text)
    reader.skip()
    if reader.text.startswith("return", reader.at) and not _NAME.match(reader.text, reader.at + 6):
        reader.at += 6
    value = reader.value(0)
    reader.skip()
    if reader.at != len(reader.text):
        raise SidecarError(f"unexpected text after the table at character {reader.at}")
    if not isinstance(value, dict):
        raise SidecarError("the sidecar does not return a table")
    return value


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.at, self.values = text, 0, 0

    def fail(self, what: str) -> SidecarError:
        return SidecarError(f"{what} at character {self.at}: not a table KOReader writes")

    def skip(self) -> None:
        """Past blanks and comments (``-- line`` and ``--[[ block ]]``)."""
        text = self.text
        while self.at < len(text):
            if text[self.at].isspace():
                self.at += 1
            elif text.startswith("--[[", self.at):
                end = text.find("]]", self.at + 4)
                if end < 0:
                    raise self.fail("a comment that never ends")
                self.at = end + 2
            elif text.startswith("--", self.at):
                end = text.find("\n", self.at)
                self.at = len(text) if end < 0 else end + 1
            else:
                return

    def value(self, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise SidecarError(f"more than {MAX_VALUES:,} values: not a sidecar KOReader writes")
        self.skip()
        if self.at >= len(self.text):
            raise self.fail("the file ends where a value should be (cut short?)")
        char = self.text[self.at]
        if char == "{":
            if depth >= MAX_DEPTH:
                raise SidecarError(f"tables nested deeper than {MAX_DEPTH}: not a sidecar KOReader writes")
            return self.table(depth + 1)
        if char in "\"'":
            return self.string(char)
        word = _NAME.match(self.text, self.at)
        if word is not None and word.group() in ("true", "false", "nil"):
            self.at = word.end()
            return {"true": True, "false": False, "nil": None}[word.group()]
        number = _NUMBER.match(self.text, self.at)
        if number is not None:
            self.at = number.end()
            literal = number.group()
            if len(literal) > 40:  # Lua's numbers are 64-bit: a 5,000-digit one is no sidecar's
                raise self.fail("a number longer than any Lua holds")
            if "x" in literal.lower():
                return int(literal, 16)
            return float(literal) if any(c in literal for c in ".eE") else int(literal)
        raise self.fail(f"{char!r} where a value should be")

    def table(self, depth: int) -> dict[Any, Any] | list[Any]:
        self.at += 1  # "{"
        found: dict[Any, Any] = {}
        position = 1
        while True:
            self.skip()
            if self.at >= len(self.text):
                raise self.fail("a table that never ends (cut short?)")
            if self.text[self.at] == "}":
                self.at += 1
                break
            if self.text[self.at] == "[":
                self.at += 1
                key = self.value(depth)
                if isinstance(key, (dict, list)):
                    raise self.fail("a table used as a key: not a sidecar KOReader writes")
                self.skip()
                if not self.text.startswith("]", self.at):
                    raise self.fail("a key without its ']'")
                self.at += 1
                self._equals()
                found[key] = self.value(depth)
            else:
                word = _NAME.match(self.text, self.at)
                after = word.end() if word else self.at
                if word is not None and word.group() not in ("true", "false", "nil") and self._is_equals(after):
                    self.at = after
                    self._equals()
                    found[word.group()] = self.value(depth)
                else:
                    found[position] = self.value(depth)
                    position += 1
            self.skip()
            if self.at < len(self.text) and self.text[self.at] in ",;":
                self.at += 1
        if found and all(isinstance(k, int) for k in found) and sorted(found) == list(range(1, len(found) + 1)):
            return [found[k] for k in range(1, len(found) + 1)]  # a Lua list: 1, 2, 3 …
        return found

    def _is_equals(self, at: int) -> bool:
        rest = self.text[at : at + 64].lstrip()
        return rest.startswith("=") and not rest.startswith("==")

    def _equals(self) -> None:
        self.skip()
        if not self.text.startswith("=", self.at):
            raise self.fail("a key without its '='")
        self.at += 1

    def string(self, quote: str) -> str:
        """A quoted string; a ``\\ddd`` escape is a byte (Lua's strings are bytes: UTF-8 may come escaped)."""
        self.at += 1
        out = bytearray()
        text = self.text
        while True:
            if self.at >= len(text):
                raise self.fail("a string that never ends (cut short?)")
            char = text[self.at]
            if char == quote:
                self.at += 1
                return out.decode("utf-8", "surrogateescape")  # bytes that are no UTF-8 kept, to be written back
            if char == "\n":
                raise self.fail("a line break inside a string")
            if char != "\\":
                out += char.encode("utf-8", "surrogateescape")  # the file's own bytes, invalid ones included
                self.at += 1
                continue
            self.at += 1
            escape = text[self.at : self.at + 1]
            if escape in _ESCAPES:
                out += _ESCAPES[escape].encode()
                self.at += 1
            elif escape.isdigit():
                digits = re.match(r"[0-9]{1,3}", text[self.at : self.at + 3])
                assert digits is not None
                if int(digits.group()) > 255:
                    raise self.fail("a byte escape over 255")
                out.append(int(digits.group()))
                self.at += len(digits.group())
            elif escape == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", text[self.at + 1 : self.at + 3]):
                out.append(int(text[self.at + 1 : self.at + 3], 16))
                self.at += 3
            elif escape == "z":
                self.at += 1
                while self.at < len(text) and text[self.at].isspace():
                    self.at += 1
            else:
                raise self.fail(f"an unknown escape '\\{escape}'")


def dump_sidecar(table: dict[Any, Any]) -> str:
    """A sidecar's text as KOReader's ``LuaSettings:flush`` writes it: a comment, ``return``, the table with its keys
    in order, one ``[key] = value,`` a line, four spaces an indent. ``None`` values are left out (Lua has none)."""
    out: list[str] = ["-- we can read Lua syntax here!\nreturn "]
    _dump(table, 0, out)
    out.append("\n")
    return "".join(out)


def _dump(value: Any, indent: int, out: list[str]) -> None:
    if isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise SidecarError("a number Lua cannot read back (NaN or infinity)")
        out.append(format(value, ".14g"))  # LuaJIT's tostring
    elif isinstance(value, str):
        out.append(_quoted(value))
    elif isinstance(value, (dict, list)):
        items = value.items() if isinstance(value, dict) else enumerate(value, 1)
        present = [(k, v) for k, v in items if v is not None]
        present.sort(key=lambda kv: (isinstance(kv[0], str), kv[0] if isinstance(kv[0], (int, float, str)) else 0))
        out.append("{")
        for key, item in present:
            if not isinstance(key, (str, int, float)) or isinstance(key, bool):
                raise SidecarError(f"a key Lua cannot hold: {key!r}")
            out.append("\n" + "    " * (indent + 1) + "[")
            _dump(key, indent + 1, out)
            out.append("] = ")
            _dump(item, indent + 1, out)
            out.append(",")
        if present:
            out.append("\n" + "    " * indent)
        out.append("}")
    else:
        raise SidecarError(f"a value Lua cannot hold: {type(value).__name__}")


def _quoted(text: str) -> str:
    """Lua's ``%q``: quotes and backslashes escaped, a line break as a backslash before it, other control
    characters as decimal byte escapes (three digits, so a digit after one is not read into it)."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\\n")
        elif char == "\r":
            out.append("\\r")
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03d}")
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that was no UTF-8 in the file read: written back as that byte
            out.append(f"\\{ord(char) - 0xDC00:03d}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)
