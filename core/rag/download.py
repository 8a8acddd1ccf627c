"""Download a model file: resumable (HTTP Range), checksum-verified, with progress and clear errors."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from pathlib import Path

import httpx

from core.errors import IndexCancelled, ModelUnavailableError

DownloadProgress = Callable[[int, int | None], None]  # (bytes so far, total bytes or None)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1024 * 1024), b""):
            digest.update(block)
    return digest.hexdigest()


def _server_checksum(response: httpx.Response) -> str | None:
    """Hugging Face sends the SHA-256 of large files as X-Linked-ETag (or ETag)."""
    for header in ("x-linked-etag", "etag"):
        value = str(response.headers.get(header, "")).strip('"').removeprefix("W/").strip('"').lower()
        if _SHA256.match(value):
            return value
    return None


def download(
    url: str,
    destination: Path,
    *,
    sha256: str | None = None,
    progress: DownloadProgress | None = None,
    cancel: threading.Event | None = None,
    timeout: float = 30.0,
    client: httpx.Client | None = None,
) -> Path:
    """Fetch ``url`` into ``destination``, resuming a previous ``.part`` file, verifying SHA-256.

    The expected checksum is ``sha256`` when given, else the one the server states. A file that
    fails the check is deleted, so the next attempt starts clean.
    """
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".part")
    have = partial.stat().st_size if partial.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    owner = client is None
    client = client or httpx.Client(timeout=timeout, follow_redirects=True)
    host = httpx.URL(url).host
    try:
        with client.stream("GET", url, headers=headers) as response:
            if response.status_code == 416:  # the part file is already complete
                response.close()
            elif response.status_code not in (200, 206):
                raise ModelUnavailableError(
                    f"{host} answered {response.status_code} for {url}: the model cannot be downloaded now"
                )
            expected = sha256 or _server_checksum(response)
            if response.status_code == 200:
                have = 0  # the server ignored the range: start over
            total = _total_size(response, have)
            mode = "ab" if response.status_code == 206 else "wb"
            if response.status_code != 416:
                with partial.open(mode) as out:
                    for block in response.iter_bytes():  # as it arrives: nothing received is lost on a cut
                        if cancel is not None and cancel.is_set():
                            raise IndexCancelled("the download was cancelled; it resumes where it stopped")
                        out.write(block)
                        have += len(block)
                        if progress:
                            progress(have, total)
    except (httpx.ConnectError, httpx.ConnectTimeout) as error:
        raise ModelUnavailableError(
            f"cannot reach {host} to download the model: you seem to be offline. Connect and try again, "
            "or keep using the built-in English model"
        ) from error
    except httpx.TransportError as error:
        raise ModelUnavailableError(
            f"the download from {host} broke off ({type(error).__name__}); try again to resume"
        ) from error
    finally:
        if owner:
            client.close()
    if expected and _sha256(partial) != expected:
        partial.unlink(missing_ok=True)
        raise ModelUnavailableError(f"the downloaded {destination.name} is corrupt (checksum mismatch); try again")
    partial.replace(destination)
    return destination


def _total_size(response: httpx.Response, have: int) -> int | None:
    content_range = response.headers.get("content-range", "")
    if "/" in content_range and content_range.rsplit("/", 1)[1].isdigit():
        return int(content_range.rsplit("/", 1)[1])
    length = response.headers.get("content-length")
    return have + int(length) if length and length.isdigit() else None
