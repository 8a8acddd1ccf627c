"""Text for a terminal: control characters that a book, a catalog or a server put in its words never reach it."""

from __future__ import annotations

import re
from typing import Any, TextIO

# C0 and C1 controls but tab, line feed and carriage return (the progress line uses \r): an escape sequence in a
# calibre title could move the cursor, retitle the window or hide what follows.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without terminal control characters (each becomes U+FFFD, so that something shows it was there)."""
    return CONTROL.sub("\ufffd", text)


class PrintableStream:
    """A text stream that writes what it is given through ``printable``; everything else goes to the stream."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(printable(text))

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding…
        return getattr(self._stream, name)
