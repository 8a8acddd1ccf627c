"""OPDS catalogs by name: the ones the reader added (passwords in the secret store), browsed, searched, and a book
downloaded from one straight into the library through the normal import."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.errors import CatalogError
from core.library import Library
from core.library.identifiers import add_identifier, book_with_identifier
from core.library.imports import ImportResult
from core.network_policy import NetworkPolicy
from core.opds import store
from core.opds.client import CatalogClient, Progress
from core.opds.feed import OpdsEntry, OpdsFeed, origin
from core.secrets import SecretStore

MAX_PAGES = 20  # feed pages followed when looking for an entry by its id
SEEN_FILE = "catalog-entries.json"  # the feed each book entry was last shown in, so that 'get' finds it there
MAX_SEEN = 1000


@dataclass(frozen=True, slots=True)
class CatalogInfo:
    """A catalog the reader added."""

    id: int
    title: str
    url: str
    username: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _shared(a: str, b: str) -> int:
    """How many leading characters two URLs share (the catalog a page belongs to shares the most)."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def catalog_secret(url: str) -> str:
    """The secret store's name for a catalog's password."""
    return f"opds:{url}"


class Catalogs:
    """``quire.catalogs``: OPDS catalogs (calibre's content server, Calibre-Web, any OPDS 1.2 feed)."""

    def __init__(
        self, library: Library, network: NetworkPolicy, importer: Callable[[list[Path]], list[ImportResult]]
    ) -> None:
        self._library = library
        self._network = network
        self._import = importer

    # -- the catalogs added ------------------------------------------------------------------------------------
    def add(
        self, url: str, title: str = "", user: str = "", password: str | None = None, secrets: SecretStore | None = None
    ) -> CatalogInfo:
        """Add a catalog once its feed reads (the login checked too); its password goes to ``secrets``."""
        with CatalogClient(url, user, password or "", network=self._network) as client:
            feed = client.feed()
        if user and password is not None and secrets is not None:
            secrets.set(catalog_secret(url), password)
        name = title.strip() or feed.title or url
        with self._library.transaction() as conn:
            store.put_catalog(conn, name, url, user)
        return next(c for c in self.all() if c.url == url)

    def all(self) -> list[CatalogInfo]:
        return [CatalogInfo(*row) for row in store.catalog_rows(self._library.conn)]

    def remove(self, number: int, secrets: SecretStore | None = None) -> None:
        """Forget a catalog and its password."""
        found = next((c for c in self.all() if c.id == number), None)
        if found is None:
            raise CatalogError(f"there is no catalog {number}: quire opds lists them")
        with self._library.transaction() as conn:
            store.drop_catalog(conn, number)
        if secrets is not None:
            secrets.delete(catalog_secret(found.url))

    def client(
        self, where: str | int, secrets: SecretStore | None = None, user: str | None = None, password: str | None = None
    ) -> CatalogClient:
        """A client for a catalog added (by number), or any URL (an added catalog's login is used on its host)."""
        info = self._find(where)
        url = info.url if info is not None and not str(where).startswith(("http://", "https://")) else str(where)
        login = user if user is not None else (info.username if info is not None else "")
        if password is None and login and info is not None and secrets is not None:
            password = secrets.get(catalog_secret(info.url))
        return CatalogClient(url, login, password or "", network=self._network)

    def _find(self, where: str | int) -> CatalogInfo | None:
        """The catalog by number, or the one on the same server as a URL (its login is for that server only)."""
        text = str(where)
        catalogs = self.all()
        if text.isdigit():
            found = next((c for c in catalogs if c.id == int(text)), None)
            if found is None:
                raise CatalogError(f"there is no catalog {text}: add it first, or give its URL")
            return found
        same = [c for c in catalogs if origin(c.url) == origin(text)]
        return max(same, key=lambda c: _shared(c.url, text)) if same else None

    # -- reading them ------------------------------------------------------------------------------------------
    def browse(self, where: str | int, secrets: SecretStore | None = None, **login: str) -> OpdsFeed:
        """The feed at ``where``: an added catalog's own (by number) or a feed's URL."""
        with self.client(where, secrets, **login) as client:
            return self._seen(client.feed())

    def search(self, where: str | int, query: str, secrets: SecretStore | None = None, **login: str) -> OpdsFeed:
        """The catalog's own search (OpenSearch) for ``query``."""
        if not query.strip():
            raise CatalogError("say what to search the catalog for")
        with self.client(where, secrets, **login) as client:
            start = client.feed() if str(where).startswith(("http://", "https://")) else None
            return self._seen(client.search(query, start))

    def get(
        self,
        where: str | int,
        entry: str | OpdsEntry,
        secrets: SecretStore | None = None,
        progress: Progress | None = None,
        **login: str,
    ) -> ImportResult:
        """Download an entry's book (EPUB first, then AZW3, MOBI, PDF…) and import it. ``entry`` is an entry read
        from the feed at ``where``, or its id (looked for in that feed and its next pages)."""
        with self.client(where, secrets, **login) as client:
            found = entry if isinstance(entry, OpdsEntry) else self._entry(client, str(entry))
            uuid = found.id[len("urn:uuid:") :] if found.id.lower().startswith("urn:uuid:") else None
            known = book_with_identifier(self._library, found.id, uuid) if uuid else None
            if known is not None:  # the same book, from calibre's folder or an earlier download: not twice
                return ImportResult(found.title, known, False)
            best = found.best()
            if best is None:
                raise CatalogError(f"“{found.title}” has no book Quire reads to download from this catalog")
            folder = Path(tempfile.mkdtemp(prefix="download-", dir=self._library.root))
            try:
                path = client.download(best, folder, found.title, progress)
                [result] = self._import([path])
                if result.created and result.book is not None and uuid:
                    add_identifier(self._library, result.book.id, found.id)
                return result
            finally:
                shutil.rmtree(folder, ignore_errors=True)

    def _seen(self, feed: OpdsFeed) -> OpdsFeed:
        """Remember the feed each book entry of ``feed`` was shown in (the newest MAX_SEEN), for ``get``."""
        seen = self._read_seen()
        for entry in feed.entries:
            if entry.acquisitions:
                seen.pop(entry.id, None)
                seen[entry.id] = feed.url
        kept = dict(list(seen.items())[-MAX_SEEN:])
        with contextlib.suppress(OSError):  # a read-only library still browses; 'get' then looks in the root feed
            (self._library.root / SEEN_FILE).write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
        return feed

    def _read_seen(self) -> dict[str, str]:
        try:
            seen = json.loads((self._library.root / SEEN_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return (
            {k: v for k, v in seen.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(seen, dict)
            else {}
        )

    def _entry(self, client: CatalogClient, entry_id: str) -> OpdsEntry:
        shown_in = self._read_seen().get(entry_id)
        if shown_in is not None and origin(shown_in) == origin(client.url):  # a search's or a browsed page's entry
            with contextlib.suppress(CatalogError):  # gone from there since: look in the catalog's own feed
                found = next((e for e in client.feed(shown_in).entries if e.id == entry_id), None)
                if found is not None:
                    return found
        feed: OpdsFeed | None = client.feed()
        for _ in range(MAX_PAGES):
            assert feed is not None
            found = next((e for e in feed.entries if entry_id in (e.id, e.title)), None)
            if found is not None:
                return found
            if feed.next is None:
                break
            feed = client.feed(feed.next)
        raise CatalogError(f"no entry {entry_id!r} in that feed: search the catalog, then get from the results")
