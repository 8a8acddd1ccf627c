"""Waiting on what no event announces: another process starting to listen, a child process's progress in its
database. The one place tests poll: a condition checked every 20 ms until it holds (or the time is up), never a
fixed sleep before an assert. Work inside the app is waited on through its workers (``app.workers.idle()``)."""

from __future__ import annotations

import time
from collections.abc import Callable

POLL = 0.02  # s between checks


def until(condition: Callable[[], object], seconds: float = 30.0, what: str = "the condition") -> None:
    """Return once ``condition()`` is true; AssertionError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL)
