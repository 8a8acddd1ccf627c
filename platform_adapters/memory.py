"""In-memory adapters for tests: a temporary folder and a dict of secrets."""

from __future__ import annotations

from pathlib import Path

from platform_adapters.base import Capabilities, Platform
from platform_adapters.capabilities import detect_capabilities
from platform_adapters.desktop import DesktopFiles


class FolderPaths:
    """Data and cache folders under one given root."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def data_dir(self) -> Path:
        return self.root / "data"

    def cache_dir(self) -> Path:
        return self.root / "cache"


class MemorySecrets:
    """Secrets kept in a dict for the life of the object."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self._values.get(name)

    def set(self, name: str, value: str) -> None:
        self._values[name] = value

    def delete(self, name: str) -> None:
        self._values.pop(name, None)


def memory_platform(root: Path, capabilities: Capabilities | None = None) -> Platform:
    """Adapters for tests: folders under ``root``, secrets in memory."""
    return Platform("memory", FolderPaths(root), MemorySecrets(), capabilities or detect_capabilities(), DesktopFiles())
