"""The web UI's door: loopback only by default, a token for anything else, no foreign Host or Origin."""

import asyncio
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from browserkit import ROOT, free_port
from waiting import until

from app.web_gate import COOKIE, WebGate


async def _ok(scope, receive, send) -> None:
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"the books"})


def _call(gate: WebGate, kind: str = "http", host: str = "127.0.0.1:8550", query: str = "", **headers: str):
    scope = {
        "type": kind,
        "path": "/",
        "query_string": query.encode(),
        "headers": [(b"host", host.encode())] + [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "websocket.connect"} if kind == "websocket" else {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(gate(scope, receive, send))
    return sent


def _status(sent: list[dict]) -> int | str:
    first = sent[0]
    return first.get("status") or first["type"]


def test_loopback_mode_answers_only_loopback_names_and_same_origin_sockets() -> None:
    gate = WebGate(_ok, 8550)
    assert _status(_call(gate)) == 200 and _status(_call(gate, host="localhost:8550")) == 200
    policy = dict(_call(gate)[0]["headers"])[b"content-security-policy"].decode()
    assert "img-src 'self' data: blob:;" in policy and "connect-src 'self' data: blob: ws://127.0.0.1:8550" in policy
    assert "http" not in policy.replace("ws://127.0.0.1:8550", "").replace("wss://127.0.0.1:8550", "")
    assert _status(_call(gate, host="[::1]:8550")) == 200
    assert _status(_call(gate, host="evil.example:8550")) == 403  # DNS rebinding to 127.0.0.1
    assert _status(_call(gate, "websocket", origin="http://127.0.0.1:8550")) == "websocket.accept"
    refused = _call(gate, "websocket", origin="https://evil.example")  # a web page driving the session
    assert refused[0]["type"] == "websocket.close" and refused[0]["code"] == 1008


def test_token_mode_needs_the_token_once_then_a_cookie() -> None:
    gate = WebGate(_ok, 8550, token="s3cret-token")
    denied = _call(gate, host="192.168.1.5:8550")
    assert _status(denied) == 403 and b"token" in denied[1]["body"] and b"the books" not in denied[1]["body"]
    assert _status(_call(gate, host="192.168.1.5:8550", query="token=wrong")) == 403
    welcomed = _call(gate, host="192.168.1.5:8550", query="token=s3cret-token")
    cookies = [v for k, v in welcomed[0]["headers"] if k == b"set-cookie"]
    assert _status(welcomed) == 200 and cookies and b"HttpOnly" in cookies[0] and b"SameSite=Strict" in cookies[0]
    assert _status(_call(gate, host="192.168.1.5:8550", cookie=f"{COOKIE}=s3cret-token")) == 200
    assert _status(_call(gate, host="192.168.1.5:8550", cookie=f"{COOKIE}=nope")) == 403
    socket_ok = _call(gate, "websocket", host="192.168.1.5:8550", origin="http://192.168.1.5:8550",
                      cookie=f"{COOKIE}=s3cret-token")  # fmt: skip
    assert socket_ok[0]["type"] == "websocket.accept"
    assert _call(gate, "websocket", host="192.168.1.5:8550")[0]["type"] == "websocket.close"


def _call_with(gate: WebGate, headers: list[tuple[bytes, bytes]]) -> list[dict]:
    scope = {"type": "http", "path": "/", "query_string": b"token=s3cret-token", "headers": headers}
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(gate(scope, receive, send))
    return sent


def test_two_host_headers_or_a_host_built_to_inject_are_refused_in_both_modes() -> None:
    for gate in (WebGate(_ok, 8550), WebGate(_ok, 8550, token="s3cret-token")):
        twice = _call_with(gate, [(b"host", b"127.0.0.1:8550"), (b"host", b"evil.example")])
        assert _status(twice) == 403  # once only the first was checked
        for host in (b"x; script-src https://evil.example", b"127.0.0.1:8550\r\nx: y", b"", b"a b"):
            sent = _call_with(gate, [(b"host", host)])
            assert _status(sent) == 403, host
            assert not any(b"evil" in value for key, value in sent[0]["headers"] if key == b"content-security-policy")


def test_the_address_it_listens_on_is_answered_so_its_printed_link_works() -> None:
    from app.web_gate import page_url

    gate = WebGate(_ok, 8550, listen="127.0.0.2")  # a loopback address: no token, and its own link must open
    link = page_url("127.0.0.2", 8550, None)
    assert _status(_call(gate, host=link.split("/")[2])) == 200
    assert _status(_call(gate, host="127.0.0.3:8550")) == 403
    assert _status(_call(WebGate(_ok, 8550, listen="::1"), host="[::1]:8550")) == 200


def _listening(port: int) -> set[str]:
    """The local addresses listening on ``port``, read from the kernel's socket tables."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def _start(tmp_path: Path, *args: str, env: dict | None = None) -> tuple[subprocess.Popen, int, Path]:
    port = free_port()
    log = tmp_path / f"app-{port}.log"
    environment = {**os.environ, "QUIRE_LIBRARY": str(tmp_path / "lib"), **(env or {})}
    environment.pop("DISPLAY", None)
    process = subprocess.Popen(
        [sys.executable, "main.py", "--web", "--port", str(port), *args],
        cwd=ROOT, env=environment, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    until(lambda: process.poll() is not None or _listening(port), 60, "the app to listen")
    assert process.poll() is None, log.read_text()
    return process, port, log


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket tables")
def test_the_web_ui_listens_on_loopback_only_by_default(tmp_path: Path) -> None:
    process, port, _ = _start(tmp_path, env={"FLET_SERVER_IP": "0.0.0.0"})  # Flet's own override is ignored
    try:
        assert _listening(port) == {"0100007F"}  # 127.0.0.1, and no other interface, IPv4 or IPv6
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert page.status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket tables")
def test_serving_the_network_needs_the_token_and_says_so(tmp_path: Path) -> None:
    process, port, log = _start(tmp_path, "--host", "0.0.0.0", env={"QUIRE_WEB_TOKEN": ""})
    try:
        until(lambda: "?token=" in log.read_text(), 30, "the address with its token in the log")
        printed = log.read_text()
        assert "WARNING" in printed and "reachable from other computers" in printed
        token = printed.split("?token=", 1)[1].split()[0]
        assert len(token) >= 32
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        assert refused.value.code == 403
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={token}", timeout=10) as page:
            assert page.status == 200 and COOKIE in page.headers.get("set-cookie", "")
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_flets_transport_writes_a_message_out_only_when_its_log_is_on() -> None:
    """Flet's web transport put each message it sent into an f-string for a debug log that is off: the repr of
    every control in it (0.14 s of the server's 0.43 s opening Moby-Dick). With the log off the repr is short; on,
    it is whole, as Flet wrote it."""
    import logging

    import flet as ft
    from flet.messaging.protocol import Message, MessageAction

    from app.logs import TRANSPORT_LOG, lazy_transport_log

    lazy_transport_log()
    lazy_transport_log()  # once more (a second window's start): not wrapped twice
    message = Message(MessageAction.PATCH_CONTROL, ft.Column([ft.Text(f"paragraph {n}") for n in range(2000)]))
    assert repr(message) == "Message(PATCH_CONTROL)"
    logger = logging.getLogger(TRANSPORT_LOG)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        assert "paragraph 1999" in repr(message)
    finally:
        logger.setLevel(level)
