"""One OPDS catalog over HTTP: its feeds, its search and its books downloaded, with its login (Basic or Digest, as
the server asks: calibre's content server asks for Digest over plain HTTP)."""

from __future__ import annotations

import re
import tempfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import httpx

from core.books.limits import MAX_FILE_BYTES
from core.books.textutil import safe_file_name
from core.errors import CatalogError, CatalogRefused, LocalOnlyError, ProviderError
from core.network_policy import NetworkPolicy, is_http_url
from core.opds.feed import MAX_FEED_BYTES, Acquisition, OpdsFeed, origin, parse_feed, search_template
from core.redact import redact

TIMEOUT = httpx.Timeout(30.0, connect=10.0)
CHUNK = 64 * 1024
Progress = Callable[[int, int | None], None]  # bytes received, bytes in all (None: the server did not say)


class CatalogClient:
    """A catalog at ``url``; ``user`` and ``password`` are sent only when it asks, and only to its host."""

    def __init__(
        self,
        url: str,
        user: str = "",
        password: str = "",
        *,
        network: NetworkPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not is_http_url(url):
            raise CatalogError(
                f"a catalog's address is an http(s) URL such as http://localhost:8080/opds, not {url[:80]!r}"
            )
        self.url = url
        self.user, self._password = user, password
        self.network = network or NetworkPolicy()
        self.network.check(url, "the catalog")
        self._client = self.network.client(
            "the catalog", home=url, timeout=TIMEOUT, transport=transport, follow_redirects=True
        )
        self._auth: httpx.Auth | None = None

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> CatalogClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ----------------------------------------------------------------------------------------------
    def _open(self, url: str) -> httpx.Response:
        """A streamed GET, logging in when the catalog asks; the caller closes it."""
        response = self._send(url)
        if response.status_code == 401:
            challenge = response.headers.get("www-authenticate", "")
            response.close()
            if not self.user:
                raise CatalogRefused("the catalog asks for a user name and password: add them to the catalog")
            if self._auth is None:
                digest = challenge.lower().startswith("digest")
                self._auth = (httpx.DigestAuth if digest else httpx.BasicAuth)(self.user, self._password)
                response = self._send(url)
            if response.status_code == 401:
                response.close()
                raise CatalogRefused("the catalog refused the user name or password: check them and try again")
        if response.status_code >= 400:
            response.close()
            host = urllib.parse.urlsplit(url).hostname
            what = "has no such page" if response.status_code == 404 else "failed"
            raise CatalogError(f"the catalog at {host} {what} (HTTP {response.status_code}): try again later")
        return response

    def _send(self, url: str) -> httpx.Response:
        host = urllib.parse.urlsplit(url).hostname
        try:
            return self._client.send(self._client.build_request("GET", url), auth=self._auth, stream=True)
        except LocalOnlyError:
            raise
        except ProviderError as error:  # the policy refused a redirect to another host
            raise CatalogError(
                f"the catalog sent Quire to another server, which it does not follow ({error})"
            ) from None
        except httpx.TimeoutException as error:
            raise CatalogError(f"the catalog at {host} did not answer in time: try again later") from error
        except httpx.HTTPError as error:
            raise CatalogError(
                redact(f"the catalog at {host} cannot be reached ({error}): is it running?", [self._password])
            ) from error

    def _read(self, url: str, limit: int = MAX_FEED_BYTES) -> bytes:
        response = self._open(url)
        try:
            data = bytearray()
            for chunk in response.iter_bytes(CHUNK):
                data += chunk
                if len(data) > limit:
                    raise CatalogError(f"the catalog sent more than {limit // (1024 * 1024)} MB for one page")
            return bytes(data)
        except httpx.HTTPError as error:
            raise CatalogError(redact(f"the catalog stopped sending ({error}): try again", [self._password])) from error
        finally:
            response.close()

    def picture(self, url: str, limit: int) -> bytes | None:
        """A cover or thumbnail of the catalog (its host only); None when larger than ``limit`` or not a picture."""
        if origin(url) != origin(self.url):
            return None
        try:
            data = self._read(url, limit)
        except CatalogError:
            return None
        return (
            data
            if data[:4] in (b"\xff\xd8\xff\xe0", b"\xff\xd8\xff\xe1", b"\xff\xd8\xff\xdb", b"\x89PNG")
            or data[:3] == b"GIF"
            or data[8:12] == b"WEBP"
            else None
        )

    # -- feeds -------------------------------------------------------------------------------------------------
    def feed(self, url: str | None = None) -> OpdsFeed:
        """The feed at ``url`` (default: the catalog's own), which must be on the catalog's host."""
        target = url or self.url
        if origin(target) != origin(self.url):
            raise CatalogError("that page is on another server than the catalog: Quire does not follow it")
        return parse_feed(self._read(target), target, self.url)

    def search(self, query: str, start: OpdsFeed | None = None) -> OpdsFeed:
        """The catalog's search for ``query`` (its OpenSearch template); CatalogError when it has none."""
        root = start or self.feed()
        template = root.search
        if template is None and root.search_description is not None:
            template = search_template(self._read(root.search_description), root.search_description, self.url)
        if template is None:
            raise CatalogError("this catalog offers no search: browse it instead")
        target = template.replace("{searchTerms}", urllib.parse.quote(query.strip(), safe=""))
        try:
            return self.feed(target)
        except CatalogError as error:
            if "HTTP 404" not in str(error):
                raise
            return OpdsFeed(target, root.title)  # calibre answers a search that finds nothing with 404

    # -- books -------------------------------------------------------------------------------------------------
    def download(
        self, acquisition: Acquisition, folder: Path, title: str = "book", progress: Progress | None = None
    ) -> Path:
        """The book downloaded into ``folder`` (named as the server names it, else by ``title``), with progress;
        at most MAX_FILE_BYTES. A download cut short leaves no file and raises CatalogError."""
        response = self._open(acquisition.href)
        folder.mkdir(parents=True, exist_ok=True)
        total = (
            int(response.headers["content-length"]) if response.headers.get("content-length", "").isdigit() else None
        )
        if total is not None and total > MAX_FILE_BYTES:
            response.close()
            raise CatalogError(
                f"the book is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB: Quire does not import it"
            )
        name = _file_name(response, acquisition, title)
        handle = tempfile.NamedTemporaryFile(dir=folder, prefix=".part-", delete=False)  # noqa: SIM115
        part = Path(handle.name)
        received = 0
        try:
            with handle:
                for chunk in response.iter_bytes(CHUNK):
                    received += len(chunk)
                    if received > MAX_FILE_BYTES:
                        raise CatalogError("the book is larger than Quire imports: the download was stopped")
                    handle.write(chunk)
                    if progress is not None:
                        progress(received, total)
            if total is not None and received < total:
                raise CatalogError(f"the download stopped at {received:,} of {total:,} bytes: try again")
            if total is None and "chunked" not in response.headers.get("transfer-encoding", "").lower():
                self._check_whole(acquisition.href, received)  # only the connection's end said it was the end
            target = folder / name
            part.replace(target)
            return target
        except httpx.HTTPError as error:
            raise CatalogError(
                redact(f"the download stopped before its end ({error}): try again", [self._password])
            ) from error
        finally:
            response.close()
            part.unlink(missing_ok=True)

    def _check_whole(self, url: str, received: int) -> None:
        """A download whose length the server never gave (no Content-Length, not chunked) ends when the connection
        does, cut or not: ask for what follows its last byte. CatalogError when there is more."""
        request = self._client.build_request("GET", url, headers={"Range": f"bytes={received}-"})
        response: httpx.Response | None = None
        try:
            response = self._client.send(request, auth=self._auth, stream=True)
            status, seen = response.status_code, 0
            limit = 1 if status == 206 else received + 1  # 200: the server sends the whole book again
            for chunk in response.iter_bytes(CHUNK) if status != 416 else ():  # 416: nothing past the end
                seen += len(chunk)
                if seen >= limit:
                    break
        except (httpx.HTTPError, ProviderError) as error:
            raise CatalogError(
                redact(f"the download could not be checked as whole ({error}): try again", [self._password])
            ) from None
        finally:
            if response is not None:
                response.close()
        if (status == 206 and seen) or (status == 200 and seen > received):
            raise CatalogError(f"the download stopped after {received:,} bytes, before the book's end: try again")


def _file_name(response: httpx.Response, acquisition: Acquisition, title: str) -> str:
    """The server's name for the file (Content-Disposition), else the title, with the format's extension."""
    disposition = response.headers.get("content-disposition", "")
    match = re.search(r"filename\*=UTF-8''([^;]+)", disposition) or re.search(r'filename="?([^";]+)"?', disposition)
    name = urllib.parse.unquote(match.group(1)) if match else title
    name = safe_file_name(name)
    suffix = f".{acquisition.format}"
    return name if name.lower().endswith(suffix) else name + suffix
