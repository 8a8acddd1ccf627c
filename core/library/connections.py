"""The library's connections, one per thread: each thread reads through its own and sees only committed states.

The app's threads and every browser tab share one ``Quire``. With one connection between them, a read from one
thread ran inside another thread's import transaction and could see rows that were half written or then rolled
back. SQLite's own answer is a connection per thread over a WAL file (readers see the last commit and never wait
for a writer); writes still go one at a time under the library's lock. A thread's connection is opened on its
first use and closed when the library closes or, once the thread has ended, when the next thread opens one.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from core.library.db import Wall, connect


class ThreadConnections:
    """Connections to one library file, one for each thread that uses it."""

    def __init__(self, path: Path, vector_extension: bool, wall: Wall = time.time) -> None:
        self._path = path
        self._vector_extension = vector_extension
        self._wall = wall
        self._local = threading.local()
        self._open: dict[int, sqlite3.Connection] = {}  # by thread
        self._guard = threading.Lock()
        self._closed = False
        self._adopt(connect(path, vector_extension=vector_extension, wall=wall))  # migrates the file, once

    def get(self) -> sqlite3.Connection:
        """This thread's connection (after ``close``: a closed one, which refuses every use as sqlite3 does)."""
        found: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if found is not None:
            return found
        with self._guard:
            if self._closed:
                return next(iter(self._open.values()))
            alive = {thread.ident for thread in threading.enumerate()}
            for ident in [i for i in self._open if i not in alive]:  # threads that have ended
                self._open.pop(ident).close()
        return self._adopt(connect(self._path, vector_extension=self._vector_extension, wall=self._wall))

    def close(self) -> None:
        """Close every thread's connection."""
        with self._guard:
            self._closed = True
            for conn in self._open.values():
                conn.close()

    def _adopt(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        with self._guard:
            former = self._open.pop(threading.get_ident(), None)
            if former is not None:  # an ended thread's, whose number this thread was given again
                former.close()
            self._open[threading.get_ident()] = conn
        self._local.conn = conn
        return conn
