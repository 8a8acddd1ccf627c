"""A tiny local HTTP server for tests: scripted answers on 127.0.0.1, every request recorded."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    body: bytes | dict | list = b""
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # close the connection after this many body bytes
    delay: float = 0.0
    send_length: bool = True  # False: no Content-Length, the body ends when the connection closes (HTTP/1.0)


Handler = Callable[[Request], Reply]


class LocalServer:
    """Serves ``handler(request) -> Reply`` until closed; use as a context manager."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                request = Request(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length)
                )
                outer.requests.append(request)
                reply = outer.handler(request)
                if reply.delay:
                    threading.Event().wait(reply.delay)
                body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                headers = (
                    {"content-length": str(len(body)), **reply.headers} if reply.send_length else dict(reply.headers)
                )
                if not isinstance(reply.body, bytes):
                    headers.setdefault("content-type", "application/json")
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(body[: reply.cut_after] if reply.cut_after is not None else body)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                if reply.cut_after is not None or not reply.send_length:
                    self.close_connection = True

            do_GET = _serve
            do_POST = _serve
            do_PUT = _serve

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> LocalServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A local port with nothing listening (connection refused)."""
    from browserkit import free_port

    return free_port()
