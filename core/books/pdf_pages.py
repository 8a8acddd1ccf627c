"""PDF pages drawn as pictures ("page view") with pdfium, on computers: the pypdfium2 wheel exists there only.

A PDF of scanned pages, which has no text to reflow, opens as a book of page pictures (like a comic) where the
renderer is installed; elsewhere (phones) it is refused, saying why. Pictures are PNG, written here from the
renderer's pixels with zlib (a few lines, so that no image library ships for this alone).
"""

from __future__ import annotations

import re
import struct
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

RENDER_WIDTH = 1400  # pixels across a page picture: sharp on a large window, about 100-400 KB a page
COVER_WIDTH = 480
MAX_PIXELS = 4000 * 6000  # a page with absurd dimensions is drawn smaller rather than exhausting memory
_SRC = re.compile(r"^page-(\d{1,6})\.png$")
_LOCK = threading.Lock()  # pdfium is not thread-safe: one call into it at a time (pypdfium2's advice)


def available() -> bool:
    """Whether this device can draw PDF pages."""
    try:
        import pypdfium2  # noqa: F401
    except ImportError:
        return False
    return True


def page_src(index: int) -> str:
    """The image name a page picture is stored under in the book model (``page-1.png`` for the first)."""
    return f"page-{index + 1}.png"


def page_count(source: Path | bytes) -> int:
    """How many pages the PDF has (0: no renderer, or a file it cannot open)."""
    with _document(source) as document:
        return len(document) if document is not None else 0


def render(source: Path | bytes, src: str, width: int = RENDER_WIDTH) -> bytes | None:
    """The page named ``src`` as a PNG ``width`` pixels across, or None (no renderer, no such page, damaged)."""
    match = _SRC.match(src)
    if match is None:
        return None
    index = int(match.group(1)) - 1
    with _document(source) as document:
        if document is None or not 0 <= index < len(document):
            return None
        import pypdfium2 as pdfium

        try:
            page = document[index]
            page_width, page_height = page.get_size()
            if page_width <= 0 or page_height <= 0:
                return None
            scale = width / page_width
            if (width * page_height * scale) > MAX_PIXELS:
                scale = (MAX_PIXELS / (page_width * page_height)) ** 0.5
            return png(page.render(scale=scale, rev_byteorder=True).to_numpy())
        except pdfium.PdfiumError:
            return None


@contextmanager
def _document(source: Path | bytes) -> Iterator[Any]:
    """The open PDF (None: no renderer here, or a file pdfium cannot open), holding the lock until closed."""
    if not available():
        yield None
        return
    import pypdfium2 as pdfium

    with _LOCK:
        try:
            document = pdfium.PdfDocument(source)
        except (pdfium.PdfiumError, OSError):
            yield None
            return
        try:
            yield document
        finally:
            document.close()


def png(pixels: object) -> bytes:
    """A PNG file of an RGB (or RGBA, or grey) pixel array of shape (height, width[, channels])."""
    import numpy as np

    array = np.ascontiguousarray(pixels, dtype=np.uint8)
    if array.ndim == 2:
        array = array[:, :, None]
    height, width, channels = array.shape
    colour = {1: 0, 3: 2, 4: 6}[channels]
    rows = np.concatenate([np.zeros((height, 1), np.uint8), array.reshape(height, width * channels)], axis=1)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
            chunk(b"IEND", b""),
        ]
    )
