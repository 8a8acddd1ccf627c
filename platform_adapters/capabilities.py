"""Detect what this Python runtime can do, without importing heavy modules eagerly."""

from __future__ import annotations

import importlib.util
import sqlite3

from platform_adapters.base import Capabilities


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _sqlite_extensions() -> bool:
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return True
    return _importable("sqlean")


def detect_capabilities() -> Capabilities:
    """Capabilities of the running interpreter (modules are located, not imported)."""
    return Capabilities(
        sqlite_extensions=_sqlite_extensions(),
        onnxruntime=_importable("onnxruntime"),
        tokenizers=_importable("tokenizers"),
    )
