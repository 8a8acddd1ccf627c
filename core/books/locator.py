"""Locators: compact, stable addresses of a segment (and a character inside it) in a book.

Text form: ``"S.G"`` or ``"S.G:C"`` — section index, segment index within the section, and an
optional character offset into the segment's text, all zero-based. ``"12.34:56"`` is section 12,
segment 34, character 56. Locators sort in reading order. Nothing else builds these strings.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from core.errors import LocatorError

_PATTERN = re.compile(r"^(\d{1,6})\.(\d{1,7})(?::(\d{1,9}))?$")


@functools.total_ordering
@dataclass(frozen=True, slots=True)
class Locator:
    """A position in a book: section, segment within it, optional character offset."""

    section: int
    segment: int
    offset: int | None = None

    def __post_init__(self) -> None:
        if self.section < 0 or self.segment < 0 or (self.offset is not None and self.offset < 0):
            raise LocatorError(f"locator parts must be non-negative: {self.section}, {self.segment}, {self.offset}")

    def sort_key(self) -> tuple[int, int, int]:
        """Reading order; a whole segment sorts before any offset inside it."""
        return (self.section, self.segment, -1 if self.offset is None else self.offset)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Locator):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        return format_locator(self)

    def at(self, offset: int | None) -> Locator:
        """The same segment, at another character offset (None for the whole segment)."""
        return Locator(self.section, self.segment, offset)

    @property
    def segment_locator(self) -> Locator:
        """This locator without its character offset."""
        return Locator(self.section, self.segment)


def format_locator(locator: Locator) -> str:
    """The text form of a locator, e.g. ``"12.34"`` or ``"12.34:56"``."""
    base = f"{locator.section}.{locator.segment}"
    return base if locator.offset is None else f"{base}:{locator.offset}"


def is_locator(text: str) -> bool:
    """Whether the text is a locator as :func:`parse_locator` reads it (checked without building one)."""
    return _PATTERN.match(text.strip()) is not None


def parse_locator(text: str) -> Locator:
    """Parse ``"S.G"`` or ``"S.G:C"``; raise LocatorError with an example when malformed."""
    match = _PATTERN.match(text.strip())
    if not match:
        raise LocatorError(
            f"'{text}' is not a locator: write section.segment, optionally :character, e.g. 3.12 or 3.12:40"
        )
    section, segment, offset = match.groups()
    return Locator(int(section), int(segment), int(offset) if offset is not None else None)
