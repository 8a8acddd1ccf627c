"""Sync in the app: set up, sync now, and sync on its own when a book opens or closes and when the app pauses.

A sync runs in a worker thread on its own connection to the library (as a second process would), one at a
time; the status line says when it last finished, what moved, or what went wrong in the reader's words.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from app.i18n import Translator
from app.workers import Spawn
from core import Quire, QuireError, SyncFolderMissing, SyncReport, SyncStatus
from platform_adapters.base import SecretStore


class SyncController:
    """One per window. ``status`` is the line Settings shows; ``changed`` is called (from the worker) when a sync
    ends, with whether it brought anything that the screen should redraw for."""

    def __init__(
        self,
        quire: Quire,
        secrets: SecretStore,
        t: Callable[[], Translator],
        changed: Callable[[bool], None],
        spawn: Spawn,
    ) -> None:
        self.quire = quire
        self.spawn = spawn  # the app's workers.thread
        self.secrets = secrets
        self.t = t
        self.changed = changed
        self.status = ""
        self.ok = True
        self.missing = False  # the last setup found no sync folder there: Settings offers to create it
        self.on_status: Callable[[], object] | None = None  # Settings' own redraw of the status line, while shown
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def configured(self) -> SyncStatus | None:
        """Where this library syncs (target, user, book files), or None when sync is not set up."""
        try:
            return self.quire.sync.status(self.secrets)
        except QuireError:
            return None

    def setup(self, target: str, user: str, password: str | None, book_files: bool, create: bool = False) -> bool:
        """Save and check the target (it must answer; ``create``: make its folder when missing); the status line
        says how it went, and ``missing`` whether the folder was not there."""
        self.missing = False
        try:
            self.quire.sync.setup(target.strip(), user.strip(), password or None, self.secrets,
                                  book_files=book_files, create=create)  # fmt: skip
        except SyncFolderMissing as error:
            self.status, self.ok, self.missing = self.t().error(error), False, True
            return False
        except QuireError as error:
            self.status, self.ok = self.t().error(error), False
            return False
        self.status, self.ok = self.t()("sync.ready"), True
        return True

    def start(self, reason: str = "now") -> bool:
        """Sync in the background (unless one is running, or sync is not set up); False when it did not start."""
        if self._thread is not None and self._thread.is_alive():
            return False
        if reason != "now" and not self.quire.sync.is_set_up():
            return False
        self._thread = self.spawn(self._run, f"sync-{reason}")
        return True

    def _run(self) -> None:
        with self._lock:
            worker = Quire(self.quire.folder)
            worker.local_only = self.quire.local_only
            try:
                report = worker.sync.run(self.secrets)
            except QuireError as error:
                self.status, self.ok = self.t().error(error), False
                self.changed(False)
                return
            finally:
                worker.close()
        self.status, self.ok = self.line(report), True
        self.changed(bool(report.received or report.books_received))

    def line(self, report: SyncReport) -> str:
        """ "Synced at 14:02: sent 3 changes, received 5, 1 book" in the reader's language."""
        t = self.t()
        when = report.finished_at[11:16]
        parts = [t("sync.sent", n=report.sent), t("sync.received", n=report.received)]
        books = len(report.books_received) + len(report.books_sent)
        if books:
            parts.append(t("sync.books", n=books))
        line = t("sync.done", when=when, what=t("list.sep").join(parts))
        if report.warnings:
            line += " " + t("sync.warnings", n=len(report.warnings))
        return line
