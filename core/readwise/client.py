"""Readwise's highlights API (v2) as its documentation gives it: ``GET /api/v2/auth/`` (204: the token is good) and
``POST /api/v2/highlights/`` with ``{"highlights": [...]}``, each with an ``Authorization: Token …`` header.

Readwise is outside input: a reply is read up to MAX_REPLY_BYTES, a call ends within TOTAL_SECONDS, a 429's
``Retry-After`` is waited out up to MAX_WAIT_SECONDS (longer: ``ReadwiseError``, to try later), and what Readwise
says in an error passes through the same redaction as the AI providers' (the token is never printed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx

from core.errors import LocalOnlyError, ProviderError, ReadwiseError, ReadwiseRefused
from core.network_policy import NetworkPolicy, is_http_url
from core.redact import redact, remember

READWISE = "https://readwise.io"
TIMEOUT = httpx.Timeout(15.0, connect=10.0)
TOTAL_SECONDS = 60.0
MAX_REPLY_BYTES = 4 * 1024 * 1024
MAX_WAIT_SECONDS = 60.0  # a Retry-After longer than this: stop, keep what was sent, try again later
MAX_TRIES = 4
# Field limits from Readwise's API documentation (characters)
LIMITS = {"text": 8191, "title": 511, "author": 1024, "note": 8191, "source_url": 2047, "highlight_url": 4095}


class ReadwiseClient:
    """One Readwise account, by its access token."""

    def __init__(
        self,
        token: str,
        *,
        url: str = READWISE,
        network: NetworkPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not token.strip():
            raise ReadwiseRefused("Readwise needs an access token: get one at readwise.io/access_token")
        if not is_http_url(url):
            raise ReadwiseError(f"Readwise's address is an http(s) URL such as {READWISE}, not {url[:80]!r}")
        self.url = url.rstrip("/")
        self._token = token.strip()
        remember(self._token)
        network = network or NetworkPolicy()
        network.check(url, "Readwise")
        self._client = network.client("Readwise", home=url, timeout=TIMEOUT, transport=transport)
        self._sleep = sleep

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ReadwiseClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def authorize(self) -> None:
        """Check the token; ReadwiseRefused when Readwise does not take it."""
        self._call("GET", "/api/v2/auth/")

    def create(self, highlights: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send highlights (Readwise merges one with the same text, title and author into the one it has, taking its
        new note); its reply: the books touched."""
        reply = self._call("POST", "/api/v2/highlights/", {"highlights": [_bounded(h) for h in highlights]})
        if not isinstance(reply, list):
            raise ReadwiseError("Readwise answered with something else than the books it saved: try again later")
        return [book for book in reply if isinstance(book, dict)]

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = {"Authorization": f"Token {self._token}", "Accept": "application/json"}
        for _ in range(MAX_TRIES):
            try:
                status, content, wait = self._exchange(method, self.url + path, body, headers)
            except (LocalOnlyError, ReadwiseError):
                raise
            except ProviderError as error:
                raise ReadwiseError(f"Readwise sent Quire elsewhere, which it does not follow ({error})") from None
            except httpx.HTTPError as error:
                raise ReadwiseError(
                    redact(f"Readwise cannot be reached ({type(error).__name__}): check the connection", [self._token])
                ) from None
            if status == 429:
                if wait is None or wait > MAX_WAIT_SECONDS:
                    raise ReadwiseError(
                        f"Readwise asks Quire to wait {'a while' if wait is None else f'{wait:g} s'}: try again later"
                    )
                self._sleep(wait)
                continue
            if status in (401, 403):
                raise ReadwiseRefused("Readwise refused the access token: get a new one at readwise.io/access_token")
            if status >= 300:  # a redirect is no success either: the token was not checked where it was sent
                said = redact(" ".join(content[:4096].decode("utf-8", "replace").split()), [self._token])
                raise ReadwiseError(f"Readwise failed (HTTP {status}) {said[:200]}".strip())  # hidden, then cut
            try:
                return json.loads(content) if content.strip() else None
            except (ValueError, RecursionError):
                raise ReadwiseError("Readwise answered with something that is not JSON: try again later") from None
        raise ReadwiseError(f"Readwise asked Quire to wait {MAX_TRIES} times in a row: try again later")

    def _exchange(
        self, method: str, url: str, body: dict[str, Any] | None, headers: dict[str, str]
    ) -> tuple[int, bytes, float | None]:
        """The reply's status, body (at most MAX_REPLY_BYTES, all within TOTAL_SECONDS) and Retry-After seconds."""
        deadline = time.monotonic() + TOTAL_SECONDS
        with self._client.stream(method, url, json=body, headers=headers) as response:
            content = bytearray()
            for piece in response.iter_bytes():
                content += piece
                if len(content) > MAX_REPLY_BYTES:
                    raise ReadwiseError(
                        f"Readwise sent a reply over {MAX_REPLY_BYTES // 1024 // 1024} MB: is the address right?"
                    )
                if time.monotonic() > deadline:
                    raise ReadwiseError(f"Readwise took over {TOTAL_SECONDS:g} s to answer: try again later")
            return response.status_code, bytes(content), _seconds(response.headers.get("retry-after"))


def _seconds(value: str | None) -> float | None:
    """A Retry-After in seconds (Readwise gives seconds); None when absent or not a number."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds < 1e9 else None


def _bounded(highlight: dict[str, Any]) -> dict[str, Any]:
    """A highlight within Readwise's field limits (a longer text is cut and says so with an ellipsis)."""
    out = dict(highlight)
    for field, limit in LIMITS.items():
        value = out.get(field)
        if isinstance(value, str) and len(value) > limit:
            out[field] = value[: limit - 1] + "…"
    return out
