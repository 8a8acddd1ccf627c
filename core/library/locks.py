"""Locks shared by every Quire process on one library: an OS file lock, released even when a process is killed.

Used where two processes doing the same work would collide, such as indexing one book twice at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.errors import LibraryError

try:  # POSIX: macOS, Linux, Android, iOS
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]  # Windows only
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined,unused-ignore]  # Windows only


@contextmanager
def exclusive(path: Path, busy_message: str) -> Iterator[None]:
    """Hold the lock named by ``path`` for the block; LibraryError(busy_message) when another holder has it.

    Two opens of one file conflict even inside one process, so two threads are kept apart as well.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise LibraryError(f"cannot create the lock file {path}: {error.strerror or error}") from error
    try:
        if not _try_lock(fd):
            raise LibraryError(busy_message)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
