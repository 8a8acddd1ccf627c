"""Where devices meet: a folder (Syncthing, Dropbox, a network share) or a WebDAV server, with no server logic.

A target only lists, reads and writes whole files. A file is written under a temporary name and then moved
into place, so a reader sees it complete or not at all, and two devices never write the same name.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import secrets
import stat
import urllib.parse
from pathlib import Path
from typing import Protocol

import httpx
from lxml import etree

from core.errors import (
    LocalOnlyError,
    SyncError,
    SyncFileTooLarge,
    SyncFolderMissing,
    SyncRefused,
    SyncStorageFull,
    SyncUnavailable,
)
from core.network_policy import is_local_host, pin_loopback

FOLDERS = ("log", "snapshot", "files", "tmp")
TIMEOUT = 30.0
READ_LIMIT = 256 * 1024 * 1024  # no file Quire writes to a target is larger (book files are capped below it)


class SyncTarget(Protocol):
    """The few operations sync needs from a place every device can reach."""

    name: str

    def prepare(self, create: bool = False) -> None:
        """Create the folders sync writes to (once, at setup); ``create``: the sync folder itself too, when it is
        missing (SyncFolderMissing otherwise)."""

    def list(self, folder: str) -> dict[str, int]:
        """File names in ``folder`` and their sizes (an empty dict when the folder is missing)."""

    def read(self, path: str, limit: int = READ_LIMIT) -> bytes:
        """The file's bytes; SyncFileTooLarge, without reading it all, when it holds more than ``limit``."""

    def write(self, path: str, data: bytes) -> None:
        """Write ``data`` whole at ``path``: under a temporary name first, then moved into place."""

    def delete(self, path: str) -> None:
        """Delete a file (no error when it is gone already)."""


class FolderTarget:
    """A folder on this computer (which another program may sync elsewhere).

    Links inside it are never followed: a link under ``files/`` named like a book would otherwise make Quire
    import whatever file it points to, and send it on to every device.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).expanduser()
        self.name = str(self.root)

    def prepare(self, create: bool = False) -> None:
        if not self.root.is_dir():
            if not create or not self.root.parent.is_dir() or self.root.exists():
                raise SyncFolderMissing(
                    f"the sync folder {self.root} does not exist: create it, or let setup create it"
                )
            try:
                self.root.mkdir()
            except OSError as error:
                raise SyncUnavailable(f"could not create {self.root}: {error.strerror or error}") from error
        for folder in FOLDERS:
            (self.root / folder).mkdir(exist_ok=True)

    def list(self, folder: str) -> dict[str, int]:
        place = self.root / folder
        if not self.root.is_dir():
            raise SyncUnavailable(f"the sync folder {self.root} is not there (unplugged, or moved?)")
        if place.is_symlink():
            raise SyncRefused(f"{place} is a link: Quire does not follow links inside the sync folder")
        if not place.is_dir():
            return {}
        found = {}
        for entry in os.scandir(place):
            if entry.is_file(follow_symlinks=False):  # links, folders, pipes and devices are not Quire's files
                found[entry.name] = entry.stat(follow_symlinks=False).st_size
        return found

    def read(self, path: str, limit: int = READ_LIMIT) -> bytes:
        place = self.root / path
        try:
            if place.parent.is_symlink():
                raise SyncRefused(f"{place.parent} is a link: Quire does not follow links inside the sync folder")
            descriptor = os.open(place, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
            with os.fdopen(descriptor, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    raise SyncRefused(f"{path} in {self.root} is not a plain file")
                data = handle.read(limit + 1)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise SyncRefused(f"{path} in {self.root} is a link: Quire does not follow links there") from error
            raise SyncUnavailable(f"could not read {path} in {self.root}: {error.strerror or error}") from error
        if len(data) > limit:
            raise SyncFileTooLarge(f"{path} is larger than {limit:,} bytes")
        return data

    def write(self, path: str, data: bytes) -> None:
        temporary = self.root / "tmp" / f"{secrets.token_hex(8)}.part"
        try:
            temporary.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            (self.root / path).parent.mkdir(parents=True, exist_ok=True)
            os.replace(temporary, self.root / path)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            if error.errno == 28:  # ENOSPC
                raise SyncStorageFull(f"the sync folder {self.root} is full") from error
            raise SyncUnavailable(f"could not write {path} in {self.root}: {error.strerror or error}") from error

    def delete(self, path: str) -> None:
        try:
            (self.root / path).unlink(missing_ok=True)
        except OSError as error:
            raise SyncUnavailable(f"could not delete {path} in {self.root}: {error.strerror or error}") from error


class WebDavTarget:
    """A WebDAV folder (Nextcloud, ownCloud, Nutstore, a NAS): PROPFIND, GET, PUT, MOVE and MKCOL only."""

    def __init__(self, url: str, user: str = "", password: str = "", *, transport: httpx.BaseTransport | None = None):
        self.url = url if url.endswith("/") else url + "/"
        self.name = self.url
        auth = httpx.BasicAuth(user, password) if user else None
        self.client = httpx.Client(auth=auth, timeout=TIMEOUT, transport=transport, follow_redirects=False,
                                   event_hooks={"request": [pin_loopback]})  # fmt: skip

    def close(self) -> None:
        self.client.close()

    def _request(self, method: str, path: str, **options: object) -> httpx.Response:
        url = urllib.parse.urljoin(self.url, urllib.parse.quote(path))
        try:
            response = self.client.request(method, url, **options)  # type: ignore[arg-type]
        except httpx.TimeoutException as error:
            raise SyncUnavailable(f"the sync server at {self.url} did not answer in time") from error
        except httpx.HTTPError as error:
            raise SyncUnavailable(f"could not reach the sync server at {self.url} ({type(error).__name__})") from error
        self._status(response)
        return response

    def _status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status in (401, 403):
            raise SyncRefused(f"the sync server refused the user name or password ({status})")
        if status == 507:
            raise SyncStorageFull("the sync server is out of space (507)")

    def _check(self, response: httpx.Response, what: str) -> None:
        if response.status_code >= 300:
            raise SyncError(f"the sync server answered {response.status_code} to {what}")

    def prepare(self, create: bool = False) -> None:
        root = self._request("PROPFIND", "", headers={"Depth": "0"})
        if root.status_code == 404 and create:  # MKCOL, as other WebDAV sync clients do when asked
            made = self._request("MKCOL", "")
            if made.status_code == 409:
                raise SyncFolderMissing(f"the folder that would hold {self.url} is not on the server either: create it")
            self._check(made, "creating the sync folder")
        elif root.status_code == 404:
            raise SyncFolderMissing(f"there is no folder at {self.url}: create it, or let setup create it")
        else:
            self._check(root, "a look at the folder")
        for folder in FOLDERS:
            made = self._request("MKCOL", folder + "/")
            if made.status_code not in (201, 405):  # 405: it exists already
                self._check(made, f"creating {folder}/")

    def list(self, folder: str) -> dict[str, int]:
        response = self._request("PROPFIND", folder + "/", headers={"Depth": "1"})
        if response.status_code == 404:
            return {}
        self._check(response, f"listing {folder}/")
        try:
            tree = etree.fromstring(response.content, etree.XMLParser(resolve_entities=False, no_network=True))
        except etree.XMLSyntaxError as error:
            raise SyncError(f"the sync server sent a listing that is not WebDAV XML ({error})") from error
        found: dict[str, int] = {}
        namespace = {"d": "DAV:"}
        for item in tree.findall("d:response", namespace):
            href = item.findtext("d:href", default="", namespaces=namespace)
            name = urllib.parse.unquote(href.rstrip("/").rsplit("/", 1)[-1])
            if href.endswith("/") or item.find(".//d:collection", namespace) is not None:
                continue
            size = item.findtext(".//d:getcontentlength", default="0", namespaces=namespace)
            found[name] = int(size) if size.isdigit() else 0
        return found

    def read(self, path: str, limit: int = READ_LIMIT) -> bytes:
        url = urllib.parse.urljoin(self.url, urllib.parse.quote(path))
        chunks: list[bytes] = []
        size = 0
        try:
            with self.client.stream("GET", url) as response:
                self._status(response)
                self._check(response, f"reading {path}")
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise SyncFileTooLarge(f"{path} is larger than {limit:,} bytes")
                    chunks.append(chunk)
        except httpx.TimeoutException as error:
            raise SyncUnavailable(f"the sync server at {self.url} did not answer in time") from error
        except httpx.HTTPError as error:
            raise SyncUnavailable(f"could not reach the sync server at {self.url} ({type(error).__name__})") from error
        return b"".join(chunks)

    def write(self, path: str, data: bytes) -> None:
        temporary = f"tmp/{secrets.token_hex(8)}.part"
        self._check(self._request("PUT", temporary, content=data), f"writing {path}")
        destination = urllib.parse.urljoin(self.url, urllib.parse.quote(path))
        self._check(
            self._request("MOVE", temporary, headers={"Destination": destination, "Overwrite": "T"}),
            f"moving {path} into place",
        )

    def delete(self, path: str) -> None:
        response = self._request("DELETE", path)
        if response.status_code != 404:
            self._check(response, f"deleting {path}")


def open_target(where: str, user: str = "", password: str = "", *, local_only: bool = False) -> SyncTarget:
    """The target a user typed: an http(s) URL or a folder. HTTPS is required except for this computer and
    private networks; in local-only mode only a folder or a server on this computer is allowed."""
    if "://" not in where:
        return FolderTarget(where)
    parts = urllib.parse.urlsplit(where)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SyncError(f"a sync target is a folder or an http(s) URL, not {where!r}")
    host = parts.hostname
    if local_only and not is_local_host(host):
        raise LocalOnlyError(f"local-only mode is on: sync may use a folder or a server on this computer, not {host}")
    if parts.scheme == "http" and not (is_local_host(host) or _private(host)):
        raise SyncError(f"use https:// for {host}: a password must not cross the internet in the clear")
    return WebDavTarget(where, user, password)


def _private(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_private
    except ValueError:
        return host.endswith(".local") or host.endswith(".lan")
