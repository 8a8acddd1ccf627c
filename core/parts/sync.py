"""Sync through a folder or a WebDAV server: setting it up, running it, and what it says."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from core.library import Annotations, Library
from core.network_policy import NetworkPolicy
from core.secrets import SecretStore
from core.sync import settings_store

if TYPE_CHECKING:
    from core.sync.engine import Syncer, SyncReport, SyncStatus


class Sync:
    """``quire.sync``: where this library syncs, and a sync now."""

    def __init__(
        self,
        library: Library,
        annotations: Annotations,
        network: NetworkPolicy,
        received: Callable[[bytes, str], None],  # a book another device sent: imported
    ) -> None:
        self._library = library
        self._annotations = annotations
        self._network = network
        self._received = received

    def setup(
        self,
        target: str,
        user: str = "",
        password: str | None = None,
        secrets: SecretStore | None = None,
        *,
        book_files: bool = True,
        max_book_mb: int = 200,
        remember_password: bool = True,
        create: bool = False,
    ) -> SyncStatus:
        """Choose where to sync (a folder or a WebDAV URL), check it, create its folders (``create``: the sync
        folder itself too, when missing; SyncFolderMissing otherwise); the password goes to ``secrets``
        (``remember_password``) once the target answered, never to the library. Book files larger than
        ``max_book_mb`` stay on their device. A folder, or a server without a login, needs no secret: the secret
        store is not asked."""
        from core.sync.target import open_target

        login = "://" in target and bool(user)
        given = password
        if login and password is None and secrets is not None:
            password = secrets.get(_sync_secret(target))
        opened = open_target(target, user, password or "", local_only=self._network.local_only)
        opened.prepare(create)
        if login and given is not None and remember_password and secrets is not None:
            secrets.set(_sync_secret(target), given)
        with self._library.transaction() as conn:
            settings_store.keep(conn, {"target": target, "user": user, "book_files": "1" if book_files else "0",
                                       "max_book_mb": str(max(1, max_book_mb))})  # fmt: skip
        return self.status(secrets, password)

    def is_set_up(self) -> bool:
        """Whether this library has a sync target (one small read: asked on every book opened and closed)."""
        return settings_store.is_set_up(self._library.conn)

    def syncer(self, secrets: SecretStore | None, password: str | None = None) -> Syncer:
        """The syncer for the target set up; ``password`` (given) wins over the one in ``secrets``."""
        from core.errors import SyncError
        from core.sync.engine import Syncer
        from core.sync.target import open_target

        meta = settings_store.settings(self._library.conn)
        if "target" not in meta:
            raise SyncError("sync is not set up: choose a folder or a WebDAV server first (quire sync setup)")
        login = "://" in meta["target"] and bool(meta.get("user"))
        if login and password is None and secrets is not None:
            password = secrets.get(_sync_secret(meta["target"]))
        target = open_target(meta["target"], meta.get("user", ""), password or "", local_only=self._network.local_only)
        return Syncer(self._library, self._annotations, target, import_bytes=self._received,
                      book_files=meta.get("book_files", "1") == "1",
                      max_book_bytes=int(meta.get("max_book_mb", "200")) * 1024 * 1024, wall=self._library.wall)  # fmt: skip

    def run(self, secrets: SecretStore | None = None, password: str | None = None) -> SyncReport:
        """Send this library's changes and apply the other devices'; the report says what moved."""
        return self.syncer(secrets, password).run()

    def status(self, secrets: SecretStore | None = None, password: str | None = None) -> SyncStatus:
        """Where this library syncs (and as whom), this device's name, what waits to be sent and the last sync's
        report."""
        user = settings_store.settings(self._library.conn).get("user", "")
        return self.syncer(secrets, password).status(user)


def _sync_secret(target: str) -> str:
    """The secret store's name for a sync target's password."""
    return f"quire-sync:{target}"
