"""PDF content streams read for pypdf with regular expressions: the same operations, in about a third of the time.

pypdf reads a page's content stream a byte at a time (``ContentStream._parse_content_stream``): for a book of
text PDFs that was more than half of reading its pages, on phones and computers alike. ``install`` puts a reader
in its place that takes whole tokens at once (numbers, names, strings, arrays, operators) and makes each operand
with pypdf's own constructors, so the operations are the same objects pypdf makes; what it does not read itself
(a dictionary holding more than names and plain values, a comment, an inline image, a string with parentheses
inside, anything malformed or that pypdf would warn about) sends the whole stream back to pypdf's own reader, which
then reads it, warns or refuses exactly as before. The same work bound holds: a
stream with more tokens than pypdf's budget goes back to pypdf, which refuses it. ``tests/test_pdf_content.py``
compares both readers on every page of the shared PDFs and on broken and hostile streams.

Hand-written because no library reads content streams faster in pure Python (phones need pure Python), and a
reader of our own would have to match pypdf's objects anyway for its text extraction to stay the same.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# Whitespace as pypdf skips it between operands (its WHITESPACES) and inside arrays (those, and \v).
_SPACE = rb"[\x00\t\n\x0c\r ]*"
_ARRAY_SPACE = rb"[\x00\t\n\x0b\x0c\r ]*"
_REGULAR = rb"[^\s()<>\[\]{}/%]"  # what continues a name or an operator (pypdf's NameObject.delimiter_pattern)
# One operand or operator; group names say which. A number is what pypdf reads as one: a digit, sign or dot, then
# any of ``+,-.`` and digits (its NumberPattern's class), shorter than the 20 bytes it looks ahead.
_TOKEN = re.compile(
    rb"(?P<number>[0-9+\-.][+,\-.0-9]{0,18}(?![+,\-.0-9]))"
    rb"|(?P<name>/" + _REGULAR + rb"{0,200}(?!" + _REGULAR + rb"))"
    rb"|(?P<string>\((?P<plain>[^()\\]*)\))"
    # a string with escapes pypdf knows (so it reads it without a warning), no parentheses inside: pypdf reads it
    rb"|(?P<escaped>\((?:[^()\\]|\\[nrtbf()\\/ %<>\[\]#_&$0-7]|\\\r\n?|\\\n)*\))"
    rb"|(?P<dictionary><<)"  # marked content's properties (/ActualText): pypdf's own reading
    rb"|(?P<hex><(?P<digits>[0-9A-Fa-f\x00\t\n\x0c\r ]*)>)"
    rb"|(?P<open>\[)"
    rb"|(?P<operator>[A-Za-z'\"]" + _REGULAR + rb"{0,127}(?!" + _REGULAR + rb"))"
)
_TOP = re.compile(_SPACE + rb"(?:" + _TOKEN.pattern + rb")")  # between operands: whitespace, then a token
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")  # one pypdf makes without a warning
_SKIP = re.compile(_SPACE)
_ARRAY_SKIP = re.compile(_ARRAY_SPACE)
_HEX_SPACE = re.compile(rb"[\x00\t\n\x0c\r ]")


_OWN_READER = ContextVar("pypdfs_own_reader", default=False)


@contextmanager
def pypdfs_own_reader() -> Iterator[None]:
    """Inside, pypdf reads content streams with its own reader (what this one is compared with)."""
    token = _OWN_READER.set(True)
    try:
        yield
    finally:
        _OWN_READER.reset(token)


class _Unread(Exception):
    """Something this reader leaves to pypdf's: the whole stream goes back to it."""


class _Reader:
    """One content stream's operations, read token by token."""

    def __init__(self, data: bytes, forced_encoding: Any, budget: int, elements: int, entries: int) -> None:
        from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, NumberObject
        from pypdf.generic._utils import create_string_object, read_string_from_stream

        self.data = data
        self.encoding = forced_encoding
        self.budget = budget  # pypdf's tokens per stream (each operand, operator and array element)
        self.elements = elements  # pypdf's elements per array
        self.entries = entries  # and entries per dictionary
        self.array, self.float, self.name, self.number = ArrayObject, FloatObject, NameObject, NumberObject
        self.string = create_string_object
        self.dictionary, self.escaped = DictionaryObject, read_string_from_stream
        self._stream: io.BytesIO | None = None

    def escaped_string(self, position: int) -> tuple[Any, int]:
        """pypdf's own reading of a string with escapes (octal codes, line continuations), at ``position``."""
        if self._stream is None:
            self._stream = io.BytesIO(self.data)
        self._stream.seek(position)
        found = self.escaped(self._stream, self.encoding)
        return found, self._stream.tell()

    def spend(self) -> None:
        self.budget -= 1
        if self.budget < 0:  # pypdf refuses such a stream: let it, at the same token
            raise _Unread

    def operand(self, match: re.Match[bytes]) -> tuple[Any, int]:
        kind = match.lastgroup
        if kind == "number":
            text = match.group(kind)
            if _NUMBER.fullmatch(text) is None:
                raise _Unread  # "1.2.3", "--5": pypdf warns and reads 0
            return (self.float(text) if b"." in text else self.number(text)), match.end()
        if kind == "name":
            raw = match.group(kind)
            if b"#" in raw:
                raise _Unread  # escaped characters: pypdf's own unescaping
            try:
                return self.name(raw.decode("utf-8")), match.end()
            except UnicodeDecodeError:
                raise _Unread from None  # its other character sets, its warnings
        if kind == "string":
            return self.string(match.group("plain"), self.encoding), match.end()
        if kind == "hex":
            digits = _HEX_SPACE.sub(b"", match.group("digits"))
            return self.string(bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode()), self.encoding), match.end()
        if kind == "open":
            return self.read_array(match.end())
        if kind == "dictionary":
            return self.read_dictionary(match.end())
        if kind == "escaped":
            return self.escaped_string(match.start(kind))
        raise _Unread

    def read_array(self, position: int) -> tuple[Any, int]:
        items = self.array()
        left = self.elements
        data = self.data
        while True:
            skipped = _ARRAY_SKIP.match(data, position)
            position = skipped.end() if skipped else position
            if position >= len(data):
                raise _Unread  # an array left open: pypdf's reading of it
            if data[position] == 0x5D:  # "]"
                return items, position + 1
            left -= 1
            self.spend()
            if left < 0:
                raise _Unread
            match = _TOKEN.match(data, position)
            if match is None or match.lastgroup == "operator":
                raise _Unread  # null, true, a dictionary, a comment: pypdf's
            item, position = self.operand(match)
            items.append(item)

    def read_dictionary(self, position: int) -> tuple[Any, int]:
        """A dictionary of names and plain values, as pypdf reads one (two tokens an entry)."""
        data, entries, left = self.data, self.dictionary(), self.entries
        budget = self.budget
        while True:
            position = _SKIP.match(data, position).end()  # type: ignore[union-attr]  # it matches the empty string
            if data[position : position + 2] == b">>":
                break
            left, budget = left - 1, budget - 2
            if left < 0 or budget < 0:
                raise _Unread
            key = _TOKEN.match(data, position)
            if key is None or key.lastgroup != "name":
                raise _Unread
            name, position = self.operand(key)
            position = _SKIP.match(data, position).end()  # type: ignore[union-attr]
            value = _TOKEN.match(data, position)
            if (
                value is None
                or value.lastgroup not in ("number", "name", "string", "escaped", "hex")
                or name in entries
            ):
                raise _Unread  # arrays and dictionaries inside, a key twice: pypdf's reading and warnings
            entries[name], position = self.operand(value)
        after = _SKIP.match(data, position + 2).end()  # type: ignore[union-attr]
        if data[after : after + 6] == b"stream":
            raise _Unread
        self.budget = budget
        return entries, position + 2

    def operations(self) -> list[tuple[Any, bytes]]:
        operations: list[tuple[Any, bytes]] = []
        operands: list[Any] = []
        data, position, budget = self.data, 0, self.budget
        number, floating, integer, top = _NUMBER.fullmatch, self.float, self.number, _TOP.match
        while True:
            match = top(data, position)  # the whitespace before a token, and the token
            if match is None:
                if _SKIP.match(data, position).end() == len(data):  # type: ignore[union-attr]  # matches ""
                    self.budget = budget
                    return operations
                raise _Unread
            budget -= 1
            if budget < 0:  # pypdf refuses such a stream: let it, at the same token
                raise _Unread
            kind = match.lastgroup
            if kind == "operator":
                operator = match.group(kind)
                if operator in (b"BI", b"R"):  # an inline image; "1 0 R", which pypdf reads as a reference
                    raise _Unread
                operations.append((operands, operator))
                operands = []
                position = match.end()
            elif kind == "number":  # most operands: inline, as operand() reads them
                text = match.group(kind)
                if number(text) is None:
                    raise _Unread  # "1.2.3", "--5": pypdf warns and reads 0
                operands.append(floating(text) if b"." in text else integer(text))
                position = match.end()
            else:
                self.budget = budget
                operand, position = self.operand(match)
                budget = self.budget
                operands.append(operand)


def install() -> bool:
    """Read pypdf's content streams with this reader from now on (once per process); False where this pypdf's
    reader is not the one this was written against (then pypdf reads them as it does)."""
    try:
        from pypdf import get_configuration
        from pypdf.generic import ContentStream
    except ImportError:  # a pypdf before 6: its own reader stays
        return False
    own = ContentStream.__dict__.get("_parse_content_stream")
    limits = get_configuration()
    if (
        own is None
        or not hasattr(ContentStream, "_check_limits")
        or not all(
            hasattr(limits, name)
            for name in (
                "stream_parsing_work_maximum_count",
                "array_maximum_element_count",
                "dictionary_maximum_element_count",
            )
        )
    ):
        return False
    if getattr(own, "quire", False):
        return True

    def parse(self: Any, stream: Any) -> None:
        if _OWN_READER.get():
            own(self, stream)
            return
        stream.seek(0, 0)
        data = stream.read()
        limits = get_configuration()  # read at each stream, as pypdf reads them
        try:
            reader = _Reader(data, self.forced_encoding, limits.stream_parsing_work_maximum_count,
                             limits.array_maximum_element_count, limits.dictionary_maximum_element_count)  # fmt: skip
            self._operations = reader.operations()
        except _Unread:
            self._operations = []
            own(self, stream)

    parse.quire = True  # type: ignore[attr-defined]
    setattr(ContentStream, "_parse_content_stream", parse)  # noqa: B010  # a method of pypdf's class, replaced
    return True
