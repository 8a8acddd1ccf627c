"""Sync between devices through a folder or a WebDAV server that each device writes only its own files to."""

from core.sync.engine import Syncer, SyncReport, SyncStatus
from core.sync.target import FolderTarget, SyncTarget, WebDavTarget, open_target

__all__ = ["FolderTarget", "SyncReport", "SyncStatus", "SyncTarget", "Syncer", "WebDavTarget", "open_target"]
