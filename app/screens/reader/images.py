"""The open book's pictures as the reader draws them: image segments, their sizes, and a PDF's printed pages."""

from __future__ import annotations

import io
from collections.abc import Callable

import imagesize

from core import Quire, SegmentRecord

IMAGES_KEPT = 48  # pictures kept in memory for redrawing the pages in view


class BookImages:
    """``reader.images``: pictures loaded on first use and kept for the pages in view (the cache starts over when
    full), and each image's size read from its file's header."""

    def __init__(self, quire: Quire, book_id: int) -> None:
        self.quire = quire
        self.book_id = book_id
        self._kept: dict[str, bytes | None] = {}  # image src (or a printed page's key) -> its bytes
        self._sizes: dict[str | None, tuple[int, int] | None] = {}  # image src -> its pixel size

    def of(self, segment: SegmentRecord) -> bytes | None:
        """The picture of an image segment (None: show its caption instead)."""
        src = segment.src
        if not src:
            return None
        return self._keep(src, lambda: self.quire.text.image(self.book_id, src))

    def printed_page(self, page: int) -> bytes | None:
        """A text PDF's page (from 0) drawn as printed, for page view."""
        return self._keep(f"printed page {page}", lambda: self.quire.text.page_image(self.book_id, page))

    def size(self, segment: SegmentRecord) -> tuple[int, int] | None:
        """An image segment's size in pixels, read from its file's header (None: unknown, as for an SVG)."""
        if segment.src not in self._sizes:
            data = self.of(segment)
            try:
                width, height = imagesize.get(io.BytesIO(data)) if data else (-1, -1)
            except ValueError:  # a header that lies
                width, height = -1, -1
            self._sizes[segment.src] = (int(width), int(height)) if width > 0 and height > 0 else None
        return self._sizes[segment.src]

    def _keep(self, key: str, load: Callable[[], bytes | None]) -> bytes | None:
        if key not in self._kept:
            if len(self._kept) >= IMAGES_KEPT:
                self._kept.clear()
            self._kept[key] = load()
        return self._kept[key]
