"""KOReader's progress-sync protocol (koreader-sync-server's API, v1), as KOReader and Readest speak it.

Users: ``POST /users/create`` {username, password} and ``GET /users/auth``; progress: ``PUT /syncs/progress``
{document, progress, percentage, device, device_id} and ``GET /syncs/progress/{document}``. Every call but
creating a user sends ``x-auth-user`` and ``x-auth-key``, the key being the MD5 of the password (KOReader's
"userkey"): Quire keeps that key in the secret store, never the password.

A server is outside input: its reply is read up to MAX_REPLY_BYTES (a progress is under 1 kB), the whole call
ends within TOTAL_SECONDS however slowly the bytes come, and what a server says in an error passes through the
same redaction as the AI providers' (a server that echoes the key does not get it printed).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httpx

from core.errors import KosyncError, KosyncRefused, LocalOnlyError, ProviderError
from core.network_policy import NetworkPolicy, is_http_url
from core.redact import redact, remember

ACCEPT = "application/vnd.koreader.v1+json"
TIMEOUT = httpx.Timeout(10.0, connect=10.0)  # each read; the whole call is bounded by TOTAL_SECONDS
TOTAL_SECONDS = 20.0
MAX_REPLY_BYTES = 64 * 1024


def user_key(password: str) -> str:
    """KOReader's userkey: the MD5 of the password (what the server stores and checks)."""
    return hashlib.md5(password.encode("utf-8"), usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class Progress:
    """A document's progress as the server keeps it."""

    document: str
    progress: str  # an xpointer (EPUB), a page number (PDF)
    percentage: float  # 0 to 1
    device: str = ""
    device_id: str = ""
    timestamp: int = 0


class KosyncClient:
    """One KOReader sync server and user."""

    def __init__(
        self,
        url: str,
        user: str,
        key: str,
        *,
        network: NetworkPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not is_http_url(url):
            raise KosyncError(
                f"a KOReader sync server's address is an http(s) URL such as http://localhost:7200, not {url[:80]!r}"
            )
        self.url = url.rstrip("/")
        self.user, self.key = user, key
        remember(key)  # hidden wherever a server's message echoes it
        network = network or NetworkPolicy()
        network.check(url, "the KOReader sync server")
        self._client = network.client("the KOReader sync server", home=url, timeout=TIMEOUT, transport=transport)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> KosyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None, *, login: bool = True) -> Any:
        headers = {"accept": ACCEPT}
        if login:
            headers.update({"x-auth-user": self.user, "x-auth-key": self.key})
        host = urllib.parse.urlsplit(self.url).hostname
        try:
            status, content = self._exchange(method, self.url + path, body, headers, host)
        except LocalOnlyError:
            raise
        except ProviderError as error:
            raise KosyncError(
                f"the KOReader sync server sent Quire elsewhere, which it does not follow ({error})"
            ) from None
        except httpx.HTTPError as error:
            raise KosyncError(
                redact(f"the KOReader sync server at {host} cannot be reached ({error}): is it running?", [self.key])
            ) from None
        try:
            data = json.loads(content) if content else {}
        except (ValueError, RecursionError):
            data = None
        if status == 401:
            raise KosyncRefused("the KOReader sync server refused the user name or password: check them")
        if status == 402:
            raise KosyncError("that user name is already registered on the KOReader sync server: log in instead")
        if status >= 400 or not isinstance(data, dict):
            said = data.get("message", "") if isinstance(data, dict) else ""
            said = " ".join(str(said).split())[:200]
            raise KosyncError(redact(f"the KOReader sync server at {host} failed (HTTP {status}) {said}".strip(),
                                      [self.key]))  # fmt: skip
        return data

    def _exchange(
        self, method: str, url: str, body: dict[str, Any] | None, headers: dict[str, str], host: str | None
    ) -> tuple[int, bytes]:
        """The reply's status and body: at most MAX_REPLY_BYTES, all within TOTAL_SECONDS."""
        deadline = time.monotonic() + TOTAL_SECONDS
        with self._client.stream(method, url, json=body, headers=headers) as response:
            content = bytearray()
            for piece in response.iter_bytes():
                content += piece
                if len(content) > MAX_REPLY_BYTES:
                    raise KosyncError(
                        f"the KOReader sync server at {host} sent a reply over {MAX_REPLY_BYTES // 1024} kB:"
                        " not a progress (is the address right?)"
                    )
                if time.monotonic() > deadline:
                    raise KosyncError(
                        f"the KOReader sync server at {host} took over {TOTAL_SECONDS:g} s to answer: try again later"
                    )
            return response.status_code, bytes(content)

    def register(self) -> None:
        """Create the user (the server may refuse new users)."""
        self._call("POST", "/users/create", {"username": self.user, "password": self.key}, login=False)

    def authorize(self) -> None:
        """Check the user name and key; KosyncRefused when wrong."""
        self._call("GET", "/users/auth")

    def progress(self, document: str) -> Progress | None:
        """The document's progress on the server; None when no device sent any."""
        data = self._call("GET", f"/syncs/progress/{urllib.parse.quote(document, safe='')}")
        if not data.get("progress") and data.get("percentage") is None:
            return None
        try:
            percentage = float(data.get("percentage") or 0.0)
            percentage = min(max(percentage, 0.0), 1.0) if math.isfinite(percentage) else 0.0  # NaN: no share known
            return Progress(document, str(data.get("progress") or ""), percentage, str(data.get("device") or ""),
                            str(data.get("device_id") or ""), int(data.get("timestamp") or 0))  # fmt: skip
        except (TypeError, ValueError, OverflowError):
            raise KosyncError("the KOReader sync server sent a progress Quire cannot read") from None

    def update(self, progress: Progress) -> None:
        self._call("PUT", "/syncs/progress", {
            "document": progress.document, "progress": progress.progress, "percentage": round(progress.percentage, 4),
            "device": progress.device, "device_id": progress.device_id,
        })  # fmt: skip
