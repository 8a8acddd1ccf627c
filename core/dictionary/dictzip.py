"""Reading any stretch of a dictzip file (``.dict.dz``, StarDict's and dictd's compressed articles) without
unpacking the whole.

dictzip is gzip whose header holds a table of chunk sizes (the ``RA`` extra field): each chunk is deflated on its own,
so an article is read by inflating only the chunks it spans. Hand-written because no maintained package on PyPI
reads it (the format is described in dictzip(1)); a plain gzip file without the table is inflated whole, once.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

from core.errors import BookFormatError

_FEXTRA, _FNAME, _FCOMMENT, _FHCRC = 4, 8, 16, 2


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
                (size,) = struct.unpack("<H", file.read(2))
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
            self._whole = gzip.decompress(path.read_bytes())  # no chunk table: a plain gzip, inflated once
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
        """``size`` bytes of the uncompressed text from ``offset``."""
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
                pieces.append(zlib.decompressobj(-zlib.MAX_WBITS).decompress(file.read(length)))
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
