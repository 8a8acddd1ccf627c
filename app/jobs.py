"""Background work the app shows progress for: indexing books and downloading embedding models."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import NamedTuple

from app.i18n import Translator
from app.workers import Spawn
from core import IndexCancelled, IndexStatus, Quire, QuireError

REDRAW_INTERVAL = 0.5  # seconds between progress redraws


class IndexLine(NamedTuple):
    """A book's index as panels show it."""

    text: str
    running: bool
    done: bool


class Jobs:
    """Index jobs (one per book) and model downloads, each in a worker thread, with a line to show."""

    def __init__(
        self,
        quire: Quire,
        t: Callable[[], Translator],
        changed: Callable[[], object],
        spawn: Spawn,
    ) -> None:
        self.quire = quire
        self.spawn = spawn  # the app's workers.thread: counted, so a test can wait for the job
        self.t = t  # the current translator (the language may change while a job runs)
        self.changed = changed  # called from worker threads: the UI schedules a redraw
        self.indexing: dict[int, threading.Event] = {}
        self.lines: dict[int, str] = {}  # book id → progress or the last failure
        self.downloads: dict[str, str] = {}  # model name → progress line
        self._last_redraw = 0.0

    def _tick(self) -> None:
        if time.monotonic() - self._last_redraw >= REDRAW_INTERVAL:
            self._last_redraw = time.monotonic()
            self.changed()

    # -- indexing -----------------------------------------------------------------------------
    def start_index(self, book_id: int, embedder: Callable[[], str | None] = lambda: None) -> None:
        """Index a book; ``embedder`` names the model to use (None: the on-device model for its language)."""
        if book_id in self.indexing:
            return
        cancel = threading.Event()
        self.indexing[book_id] = cancel
        self.lines[book_id] = self.t()("chat.index.running", done=0, total="…")

        def progress(status: IndexStatus) -> None:
            self.lines[book_id] = self.t()("chat.index.running", done=status.done, total=status.total)
            self._tick()

        def work() -> None:
            try:
                self.quire.index(book_id, embedder(), progress=progress, cancel=cancel)
                self.lines.pop(book_id, None)
            except IndexCancelled:
                self.lines[book_id] = self.t()("chat.index.failed", reason=self.t()("chat.index.cancelled"))
            except QuireError as error:
                self.lines[book_id] = self.t()("chat.index.failed", reason=self.t().error(error))
            finally:
                self.indexing.pop(book_id, None)
                self.changed()
                if not self.indexing:  # the last index job: a phone should not keep the model's memory
                    self.quire.models.release()

        self.spawn(work, f"quire-index-{book_id}")
        self.changed()

    def cancel_index(self, book_id: int) -> None:
        if book_id in self.indexing:
            self.indexing[book_id].set()

    def index_line(self, book_id: int) -> IndexLine:
        """What to show about a book's index, whether a job is running for it, and whether it is complete."""
        running = book_id in self.indexing
        status = None if running else self.quire.index_status(book_id)
        done = status is not None and status.status == "done"
        if book_id in self.lines:
            text = self.lines[book_id]
        elif done:
            text = self.t()("chat.index.done")
        elif status is not None and status.error:
            text = self.t()("chat.index.failed", reason=status.error)
        elif status is not None and status.done:
            text = self.t()("chat.index.partial", done=status.done, total=status.total)
        else:
            text = self.t()("chat.index.none")
        return IndexLine(text, running, done)

    # -- downloads ----------------------------------------------------------------------------
    def download(self, name: str) -> None:
        if name in self.downloads and self.downloads[name].startswith("…"):
            return
        self.downloads[name] = "…"

        def progress(done: int, total: int | None) -> None:
            self.downloads[name] = "… " + self.t()("settings.model.downloading", done=f"{done / 1e6:.1f}")
            self._tick()

        def work() -> None:
            try:
                self.quire.models.fetch(name, progress=progress)
                self.downloads[name] = self.t()("settings.model.downloaded")
            except QuireError as error:
                self.downloads[name] = self.t().error(error)
            finally:
                self.changed()

        self.spawn(work, f"quire-download-{name}")
        self.changed()
