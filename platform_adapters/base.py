"""The small interfaces for what differs between desktop, mobile, web and tests.

The core asks for these; ``platform_adapters`` picks the implementation once, at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from core import SecretStore as SecretStore  # the core asks for keys: its interface, implemented here


@runtime_checkable
class AppPaths(Protocol):
    """Where Quire keeps its data (library, settings) and its caches (models, thumbnails)."""

    def data_dir(self) -> Path:
        """A folder that persists, private to the app."""
        ...

    def cache_dir(self) -> Path:
        """A folder the system may clear; nothing irreplaceable goes here."""
        ...


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this runtime can do; features degrade (not crash) when something is missing."""

    sqlite_extensions: bool  # can the SQLite driver load extensions such as sqlite-vec?
    onnxruntime: bool  # can on-device embedding models run?
    tokenizers: bool  # is the Hugging Face tokenizers library importable?


@dataclass(frozen=True, slots=True)
class PickedFile:
    """A file the user chose: a path on desktops, bytes on web and mobile."""

    name: str
    path: Path | None = None
    data: bytes | None = None

    def read_bytes(self) -> bytes:
        """The file's contents, from whichever form the platform gave."""
        if self.data is not None:
            return self.data
        if self.path is None:
            raise ValueError(f"picked file '{self.name}' has neither a path nor data")
        return self.path.read_bytes()


@runtime_checkable
class FileAccess(Protocol):
    """Turns what a platform's file picker returns into a PickedFile."""

    def open_picked(self, name: str, path: str | None, data: bytes | None) -> PickedFile:
        """Wrap a picker result (desktop gives a path, web and mobile give bytes)."""
        ...


@dataclass(frozen=True, slots=True)
class Platform:
    """The adapters chosen for this run."""

    name: str
    paths: AppPaths
    secrets: SecretStore
    capabilities: Capabilities
    files: FileAccess
