"""Files in folders Quire does not own (an e-reader's storage, an Obsidian vault): read only as regular files and
only so much, written as a new file beside the target and renamed over it, never through a link.

Such a folder may hold anything: a FIFO named like a sidecar (reading it waits for ever), a link to ``/dev/zero``
(reading it never ends) or to a file elsewhere (writing through it overwrites that file), a ``.sdr`` folder that
is a link out of the folder. Reads open the file without following a link and without blocking, check that it is
a regular file, and stop at a bound; writes refuse a target whose folder leads out of the root, create their
temporary file exclusively (``mkstemp``: ``O_EXCL``, a fresh name, so two writers never share one), and rename it
over the target, which replaces a link rather than following it. The standard library has each piece; this module
puts them together so every export does the same.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from core.errors import QuireError


class UnsafeFile(QuireError):
    """A file in a reader's folder that Quire will not read or write: a link, a special file, too big, outside."""


def read_regular(path: Path, limit: int, head: bool = False) -> bytes:
    """The bytes of a regular file, not followed through a link; UnsafeFile when it is anything else or (unless
    ``head``: then only its first ``limit`` bytes are read) larger than ``limit``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeFile(f"'{path.name}' is a link: not read") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"'{path.name}' is not a regular file: not read")
        if info.st_size > limit and not head:
            raise UnsafeFile(f"'{path.name}' is over {_size(limit)}: not read")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if not head:
            raise UnsafeFile(f"'{path.name}' grew past {_size(limit)} while read: not read")
        data = data[:limit]
    return data


def _size(limit: int) -> str:
    return f"{limit / (1 << 20):g} MB" if limit >= 1 << 20 else f"{limit:,} bytes"


def within(root: Path, path: Path) -> bool:
    """Whether ``path`` lies under ``root`` with no link among the folders between them (the file itself may be a
    link: it is replaced, not followed)."""
    try:
        relative = path.parent.relative_to(root)
    except ValueError:
        return False
    folder = root
    for part in relative.parts:
        folder = folder / part
        if part == ".." or folder.is_symlink():
            return False
    return True


def write_beside(path: Path, data: bytes, root: Path, backup: Path | None = None) -> None:
    """Write ``data`` as ``path`` whole or not at all: a new temporary file beside it, renamed over it. With
    ``backup``, the file it replaces is kept there first (a regular file only; a link is not copied). UnsafeFile
    when the path leads out of ``root`` through a link."""
    if not within(root, path):
        raise UnsafeFile(f"'{path}' is outside '{root}' or reached through a link: not written")
    _make_folders(root, path.parent)
    if backup is not None and path.is_file() and not path.is_symlink():
        write_beside(backup, read_regular(path, 1 << 30), root)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:60]}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def _make_folders(root: Path, folder: Path) -> None:
    """Create the folders from ``root`` down to ``folder``, refusing any that is a link."""
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            raise UnsafeFile(f"'{current}' is a link: not written through")
        current.mkdir(exist_ok=True)
