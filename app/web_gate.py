"""Who may use the web UI: loopback only by default; another host only with a secret access token.

An ASGI middleware in front of Flet's web app. Every HTTP request and WebSocket handshake must name an
allowed Host (this stops DNS rebinding), a WebSocket must come from an allowed Origin (a page on another
site cannot drive the session), and when a token is set every request must carry it: once in the URL
(``?token=…``), after which an HttpOnly cookie carries it. Pages carry a Content-Security-Policy that lets
the browser load nothing from elsewhere.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Awaitable, Callable
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "quire_token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
DENIED = (
    "This Quire library is private. Open the address printed where Quire was started: "
    "it ends with ?token=… (or start Quire with --token and add ?token=YOUR-TOKEN to the address)."
)


def new_token() -> str:
    """A fresh access token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


HOST = re.compile(r"^(?:[a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$")  # a name or address, an optional port


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


def _count(scope: Scope, name: bytes) -> int:
    return sum(1 for key, _ in scope.get("headers", []) if key.lower() == name)


class WebGate:
    """Refuses requests with a foreign Host or Origin, and (when a token is set) requests without it."""

    def __init__(self, app: ASGIApp, port: int, token: str | None = None, listen: str = "127.0.0.1") -> None:
        """``listen``: the address the server listens on; without a token it is answered too (127.0.0.2, say)."""
        self.app = app
        self.token = token
        # Without a token only loopback names are answered (DNS rebinding cannot reach the library);
        # with one, any name the server is reached by, since the token is what guards it.
        names = {*LOOPBACK_NAMES, _bracketed(listen.lower())}
        self.hosts = None if token else {h for name in names for h in (name, f"{name}:{port}")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        reason = self._refusal(scope)
        if reason is not None:
            await self._deny(scope, receive, send, reason)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        headers = [(b"content-security-policy", content_security_policy(_header(scope, b"host")).encode("latin-1"))]
        if self.token and self._query_token(scope):
            headers.append((b"set-cookie", f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()))
        await self.app(scope, receive, _adding_headers(send, headers))

    def _refusal(self, scope: Scope) -> str | None:
        host = _header(scope, b"host").lower()
        if _count(scope, b"host") != 1 or not HOST.match(host):  # a second Host, or one built to inject headers
            return "Quire answers only requests that name one host, plainly."
        if self.hosts is not None and host not in self.hosts:
            return f"Quire answers only to this computer's own addresses, not to '{host[:80]}'."
        origin = _header(scope, b"origin").lower()
        if scope["type"] == "websocket" and origin and (urlsplit(origin).netloc != host):
            return "Quire does not accept connections started by another site."
        if self.token and not (self._query_token(scope) or self._cookie_token(scope)):
            return DENIED
        return None

    def _query_token(self, scope: Scope) -> bool:
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        return bool(given and self.token) and hmac.compare_digest(given.encode(), (self.token or "").encode())

    def _cookie_token(self, scope: Scope) -> bool:
        cookie = SimpleCookie()
        try:
            cookie.load(_header(scope, b"cookie"))
        except CookieError:  # a malformed Cookie header is simply no token
            return False
        given = cookie[COOKIE].value if COOKIE in cookie else ""
        return bool(given and self.token) and hmac.compare_digest(given.encode(), (self.token or "").encode())

    @staticmethod
    async def _deny(scope: Scope, receive: Receive, send: Send, reason: str) -> None:
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            return
        body = reason.encode("utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def content_security_policy(host: str) -> str:
    """What the browser may load for the app: only what this server serves (no remote image, script or font).

    The chat already draws no remote image; this makes the browser refuse one too, whatever a future view
    does. Flutter's engine needs inline and evaluated script, WebAssembly and blob workers.
    """
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; "
        "script-src 'self' 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval' blob:; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data: blob:; "
        f"connect-src 'self' data: blob:{sockets}; worker-src 'self' blob:; media-src 'self' data: blob:; "
        "object-src 'none'; frame-src 'none'; base-uri 'self'; form-action 'self'"
    )


def _adding_headers(send: Send, headers: list[tuple[bytes, bytes]]) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *headers]}
        await send(message)

    return sending


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def page_url(host: str, port: int, token: str | None) -> str:
    """The address to open; it carries the token when one is needed."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else _bracketed(host)
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
