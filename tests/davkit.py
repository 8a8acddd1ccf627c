"""A real WebDAV server for the sync tests: WsgiDAV on cheroot, on 127.0.0.1, with a user and a password.

``faults`` lets a test make the server misbehave as real ones do: answer a status instead of the request
(507 when full, 503), stall past the client's timeout, or cut the connection in the middle of a body.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

USER, PASSWORD = "reader", "correct horse battery staple"

Fault = Callable[[dict], tuple[str, object] | None]  # environ -> ("status", "507 ...") / ("stall", s) / ("cut", n)


@contextmanager
def dav_server(root: Path, faults: list[Fault] | None = None, *, login: bool = True) -> Iterator[str]:
    """Serve ``root`` over WebDAV with basic authentication (or none: ``login=False``); yields the URL of the
    folder ``quire/`` in it."""
    from cheroot import wsgi
    from wsgidav.wsgidav_app import WsgiDAVApp

    root.mkdir(parents=True, exist_ok=True)
    (root / "quire").mkdir(exist_ok=True)
    app = WsgiDAVApp({
        "provider_mapping": {"/": str(root)},
        "simple_dc": {"user_mapping": {"*": {USER: {"password": PASSWORD}} if login else True}},
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "verbose": 0,
        "logging": {"enable": False},
        "dir_browser": {"enable": False},
        "lock_storage": True,
    })  # fmt: skip
    faults = faults if faults is not None else []

    def faulty(environ, start_response):
        for fault in list(faults):
            action = fault(environ)
            if action is None:
                continue
            kind, detail = action
            if kind == "status":
                start_response(str(detail), [("Content-Type", "text/plain"), ("Content-Length", "0")])
                return [b""]
            if kind == "stall":
                time.sleep(float(detail))  # type: ignore[arg-type]
            if kind == "cut":  # a body promised whole, then the connection ends part way
                start_response("200 OK", [("Content-Length", "100000")])
                return _cut(int(detail))  # type: ignore[call-overload]
        return app(environ, start_response)

    server = wsgi.Server(("127.0.0.1", 0), faulty, numthreads=4)
    server.timeout = 2  # an idle or broken connection is closed after this many seconds
    server.prepare()
    port = server.bind_addr[1]
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/quire/"
    finally:
        server.stop()
        thread.join(timeout=5)


class ConnectionCut(Exception):
    """Raised inside a response: the server drops the connection there."""


def _cut(sent: int) -> Iterator[bytes]:
    yield b"x" * sent
    raise ConnectionCut("the connection is cut here")
