"""Waiting on what no event announces: another process starting to listen, a child process's progress in its
database. The one place tests poll: a condition checked every 20 ms until it holds (or the time is up), never a
fixed sleep before an assert. Work inside the app is waited on through its workers (``app.workers.idle()``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

POLL = 0.02  # s between checks


def until(condition: Callable[[], object], seconds: float = 30.0, what: str = "the condition") -> None:
    """Return once ``condition()`` is true; AssertionError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL)


class Threads:
    """What a view-model tested without the app is handed as its ``spawn`` (the app hands it ``workers.thread``):
    each thread started and kept, so the test can wait for them all to end."""

    def __init__(self) -> None:
        self.started: list[threading.Thread] = []

    def __call__(self, target: Callable[[], object], name: str) -> threading.Thread:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self.started.append(thread)
        return thread

    def join(self, seconds: float = 60.0) -> None:
        """Wait for every thread started so far; AssertionError if one is still running after ``seconds``."""
        for thread in self.started:
            thread.join(seconds)
            assert not thread.is_alive(), f"{thread.name} still running after {seconds} s"
