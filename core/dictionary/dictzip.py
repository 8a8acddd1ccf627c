"""Reading any stretch of a dictzip file (``.dict.dz``, StarDict's and dictd's compressed articles) without
unpacking the whole.

dictzip is gzip whose header holds a table of chunk sizes (the ``RA`` extra field): each chunk is deflated on its own,
so an article is read by inflating only the chunks it spans. Hand-written because no maintained package on PyPI
reads it (the format is described in dictzip(1)); a plain gzip file without the table is inflated whole, once.

Dictionary files come from anywhere: everything inflated is bounded (a gzip bomb is refused as it unpacks, not
after), a chunk that unpacks to more than the table says or does not unpack is a BookFormatError, and an offset
or size past any real file reads nothing.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from core.errors import BookFormatError

_FEXTRA, _FNAME, _FCOMMENT, _FHCRC = 4, 8, 16, 2
MAX_WHOLE_BYTES = 128 * 1024 * 1024  # a gzip without a chunk table is kept inflated: no dictionary's is near this
MAX_ARTICLE_BYTES = 1024 * 1024  # one article; the largest in WordNet's is under 20 kB
MAX_OFFSET = 1 << 40  # a terabyte: an offset past it is no real file's
_STEP = 1024 * 1024


def gunzip_chunks(file: BinaryIO, limit: int, name: str) -> Iterator[bytes]:
    """The inflated bytes of a gzip stream (one member or more), piece by piece; BookFormatError once more than
    ``limit`` bytes come out, or when the stream is cut short or corrupt."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    total = 0
    started = False  # the current member has been given some bytes
    pending = b""  # bytes read past the end of the last member: the start of the next one
    while True:
        data = inflater.unconsumed_tail or pending or file.read(_STEP)
        pending = b""
        if not data:
            if started and not inflater.eof:
                raise BookFormatError(f"{name} is cut short: its compressed data ends early")
            return
        started = True
        try:
            piece = inflater.decompress(data, _STEP)
        except zlib.error as error:
            raise BookFormatError(f"{name} is damaged: it does not unpack ({error})") from None
        total += len(piece)
        if total > limit:
            raise BookFormatError(
                f"{name} unpacks to more than {limit // (1024 * 1024)} MB: not a dictionary Quire reads"
            )
        yield piece
        if inflater.eof:  # another member may follow (gzip allows several)
            pending, started = inflater.unused_data, False
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)


def gunzip(path: Path, limit: int) -> bytes:
    """The whole inflated content of a gzip file, refused (BookFormatError) past ``limit`` bytes."""
    with path.open("rb") as file:
        return b"".join(gunzip_chunks(file, limit, path.name))


class DictzipReader:
    """Random access to an article file: plain, dictzip, or (read whole once) gzip."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._whole: bytes | None = None
        self._chunks: list[tuple[int, int]] = []  # (offset in the file, compressed size) of each chunk
        self._chunk_length = 0
        if path.suffix != ".dz":
            return
        with path.open("rb") as file:
            header = file.read(10)
            if len(header) < 10 or header[:2] != b"\x1f\x8b":
                raise BookFormatError(f"{path.name} is not a gzip or dictzip file")
            flags = header[3]
            extra = b""
            if flags & _FEXTRA:
                length = file.read(2)
                if len(length) < 2:
                    raise BookFormatError(f"{path.name} is cut short inside its header")
                (size,) = struct.unpack("<H", length)
                extra = file.read(size)
            if flags & _FNAME:
                _skip_zero_terminated(file)
            if flags & _FCOMMENT:
                _skip_zero_terminated(file)
            if flags & _FHCRC:
                file.read(2)
            start = file.tell()
        table = _random_access_table(extra)
        if table is None:
            self._whole = gunzip(path, MAX_WHOLE_BYTES)  # no chunk table: a plain gzip, inflated once (bounded)
            return
        self._chunk_length, sizes = table
        for size in sizes:
            self._chunks.append((start, size))
            start += size

    @property
    def random_access(self) -> bool:
        """Whether articles are read from their chunks (dictzip), not from a whole inflated copy."""
        return bool(self._chunks)

    def read(self, offset: int, size: int) -> bytes:
        """``size`` bytes of the uncompressed text from ``offset`` (at most MAX_ARTICLE_BYTES; nothing for an
        offset past any real file). BookFormatError when a chunk it needs is damaged."""
        if offset < 0 or size <= 0 or offset > MAX_OFFSET:
            return b""
        size = min(size, MAX_ARTICLE_BYTES)
        if self._whole is not None:
            return self._whole[offset : offset + size]
        if not self._chunks:
            with self.path.open("rb") as file:
                file.seek(offset)
                return file.read(size)
        first, last = offset // self._chunk_length, (offset + size - 1) // self._chunk_length
        if first >= len(self._chunks):
            return b""
        pieces = []
        with self.path.open("rb") as file:
            for index in range(first, min(last, len(self._chunks) - 1) + 1):
                where, length = self._chunks[index]
                file.seek(where)
                inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                try:  # a chunk unpacks to chunk_length bytes at most: one that would give more is not a dictzip's
                    piece = inflater.decompress(file.read(length), self._chunk_length)
                except zlib.error as error:
                    raise BookFormatError(f"{self.path.name} is damaged at chunk {index} ({error})") from None
                if inflater.unconsumed_tail:
                    raise BookFormatError(f"{self.path.name}'s chunk {index} unpacks to more than its table says")
                pieces.append(piece)
        text = b"".join(pieces)
        begin = offset - first * self._chunk_length
        return text[begin : begin + size]


def _skip_zero_terminated(file: object) -> None:
    read = file.read  # type: ignore[attr-defined]
    while read(1) not in (b"\x00", b""):
        pass


def _random_access_table(extra: bytes) -> tuple[int, list[int]] | None:
    """The ``RA`` subfield: (uncompressed chunk length, compressed size of each chunk), or None."""
    at = 0
    while at + 4 <= len(extra):
        name, length = extra[at : at + 2], struct.unpack("<H", extra[at + 2 : at + 4])[0]
        body = extra[at + 4 : at + 4 + length]
        if name == b"RA" and len(body) >= 6:
            version, chunk_length, count = struct.unpack("<HHH", body[:6])
            sizes = list(struct.unpack(f"<{count}H", body[6 : 6 + 2 * count]))
            if version == 1 and chunk_length and len(sizes) == count:
                return chunk_length, sizes
        at += 4 + length
    return None
