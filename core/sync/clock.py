"""A hybrid logical clock: timestamps that follow the wall clock but never go back and always pass what was seen.

A timestamp is a string that sorts in time order: 15 digits of milliseconds, a dash, 6 digits of counter.
A device whose clock is hours behind still stamps its edits after every change it has already received, so an
edit is never lost to a change it knew about (only to a later edit made elsewhere, as last-writer-wins means).
"""

from __future__ import annotations

import time
from collections.abc import Callable

Stamp = str


def stamp(millis: int, counter: int) -> Stamp:
    return f"{millis:015d}-{counter:06d}"


def parse(value: Stamp) -> tuple[int, int]:
    """(milliseconds, counter) of a stamp; ValueError for anything else."""
    millis, dash, counter = value.partition("-")
    if not dash or len(millis) != 15 or len(counter) != 6 or not (millis + counter).isdigit():
        raise ValueError(f"not a clock stamp: {value!r}")
    return int(millis), int(counter)


class HybridClock:
    """Issues stamps for this device's changes; ``observe`` folds in stamps received from others."""

    def __init__(self, last: Stamp | None = None, wall: Callable[[], float] = time.time) -> None:
        self.last = parse(last) if last else (0, 0)
        self.wall = wall

    @property
    def value(self) -> Stamp:
        return stamp(*self.last)

    def tick(self, physical_ms: int | None = None) -> Stamp:
        """A new stamp, later than every stamp issued or observed (``physical_ms``: when the edit was made)."""
        now = int(self.wall() * 1000) if physical_ms is None else physical_ms
        millis, counter = self.last
        self.last = (now, 0) if now > millis else (millis, counter + 1)
        return self.value

    def observe(self, other: Stamp) -> None:
        """Another device's stamp: later stamps from here will sort after it."""
        seen = parse(other)
        if seen > self.last:
            self.last = seen
