"""iOS: books put in Quire's Documents folder (the Files app, "Open in Quire") are found on start and offered once."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core import SUPPORTED, content_hash

log = logging.getLogger(__name__)


class DocumentsInbox:
    """The book files waiting in a folder the reader can fill from outside the app.

    iOS puts a file opened "in Quire" from another app into ``Documents/Inbox``; the Files app lets the reader
    drop files into ``Documents`` itself. A file is offered once: when the reader has answered (imported it or
    not), its content hash is kept in the state file, so a book removed from the library later is not offered
    again at every start. Files are hashed once per (name, size, modification time).
    """

    def __init__(self, folder: Path, state: Path) -> None:
        self.folder = folder
        self.state = state

    def _load(self) -> dict[str, Any]:
        try:
            state = json.loads(self.state.read_text(encoding="utf-8"))
            return state if isinstance(state, dict) else {}
        except (OSError, ValueError):
            return {}  # no state yet, or a damaged one: offering again is the safe side

    def _save(self, state: dict[str, Any]) -> None:
        self.state.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.state.with_suffix(".tmp")
        temporary.write_text(json.dumps(state), encoding="utf-8")
        os.replace(temporary, self.state)

    def _files(self) -> list[Path]:
        found = []
        for folder in (self.folder, self.folder / "Inbox"):
            try:
                entries = sorted(folder.iterdir())
            except OSError:
                continue  # no such folder yet: nothing was put there
            found += [
                p for p in entries if p.suffix.lower() in SUPPORTED and not p.name.startswith(".") and p.is_file()
            ]
        return found

    def _hashes(self, files: list[Path], state: dict[str, Any]) -> dict[Path, str]:
        known = state.setdefault("hashes", {})
        hashes = {}
        for path in files:
            try:
                stat = path.stat()
                key = f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}"
                hashes[path] = known.get(key) or content_hash(path.read_bytes())
            except OSError as error:
                log.warning("skipping %s in the Documents folder: %s", path.name, error)
                continue
            known[key] = hashes[path]
        return hashes

    def waiting(self, in_library: Callable[[str], bool]) -> list[Path]:
        """Book files to offer: not in the library (by content hash) and not offered and answered before."""
        state = self._load()
        hashes = self._hashes(self._files(), state)
        settled = set(state.get("settled", []))
        self._save(state)
        return [p for p, digest in hashes.items() if digest not in settled and not in_library(digest)]

    def settle(self, paths: list[Path]) -> None:
        """The reader answered the offer (import or not): these files are not offered again; they stay where they are."""
        state = self._load()
        hashes = self._hashes(paths, state)
        state["settled"] = sorted(set(state.get("settled", [])) | set(hashes.values()))
        self._save(state)
