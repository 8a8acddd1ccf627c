"""A provider that echoes the request (its Authorization header, its x-api-key) in an error body never gets the key
shown: not in the chat's error, not on the terminal, not in --json. OpenAI-compatible and Anthropic alike."""

import json

import pytest
from conftest import book_path
from dbkit import inside
from httpkit import LocalServer, Reply

from app.cli import main
from core.agent.events import ErrorEvent
from core.agent.providers import ProviderConfig
from core.redact import redact
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

KEY = "sk-live-do-not-leak-0123456789abcdef"


def _echoing(status: int) -> LocalServer:
    """An endpoint that answers ``status`` with a body repeating the credentials it was sent."""

    def reply(request):
        sent = request.headers.get("authorization") or request.headers.get("x-api-key") or ""
        bare = sent.removeprefix("Bearer ")  # as some servers word it: the key alone, no "Bearer" before it
        body = {
            "error": {
                "message": f"bad credentials: {sent}; the key {bare} is not valid",
                "type": "invalid_request_error",
            },
            "type": "error",
            "echo": {
                "authorization": request.headers.get("authorization"),
                "x-api-key": request.headers.get("x-api-key"),
            },
        }
        return Reply(status, body)

    return LocalServer(reply)


SHAPES = [KEY, "Zq7vR2mXw9Lp4Tn8Ks3Hd6Fb1", "ollama.local|key 42"]  # a key need not look like sk-…


@pytest.mark.parametrize("key", SHAPES)
@pytest.mark.parametrize("kind", ["openai-compatible", "deepseek", "anthropic"])
@pytest.mark.parametrize("status", [400, 401, 404, 500])
def test_echoed_keys_never_reach_the_error(alice_quire: Quire, monkeypatch, kind: str, status: int, key: str) -> None:
    for variable in ("QUIRE_LLM_API_KEY", "DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(variable, key)
    with _echoing(status) as server:
        config = ProviderConfig(kind, "some-model", base_url=server.url + ("" if kind == "anthropic" else "/v1"),
                                max_retries=0)  # fmt: skip
        events = list(alice_quire.ask(1, "Who is late?", provider=config, spoilers=True))
    assert server.requests, "the provider was asked"
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert errors, events
    assert key not in errors[0] and "do-not-leak" not in errors[0], errors[0]
    assert "Traceback" not in errors[0] and len(errors[0]) < 300
    if status == 401:
        assert "refused the API key" in errors[0]
    saved = inside(alice_quire).library.conn.execute("SELECT group_concat(data) FROM message_parts").fetchone()[0]
    assert saved and key not in saved  # nor in the saved conversation


@pytest.mark.parametrize("key", SHAPES)
def test_the_cli_json_never_shows_an_echoed_key(tmp_path, monkeypatch, capsys, key: str) -> None:
    monkeypatch.setenv("QUIRE_LLM_API_KEY", key)
    root = tmp_path / "lib"
    Quire(root).import_paths([book_path("en/epubjs-alice.epub")])
    with _echoing(400) as server:
        code = main(["ask", "1", "Who is late?", "--spoilers", "--provider", "openai-compatible", "--model", "m",
                     "--base-url", server.url + "/v1", "--json", "--library", str(root)])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1 and key not in captured.out + captured.err
    assert any(json.loads(line)["type"] == "error" for line in captured.out.splitlines())
    chats = inside(Quire(root)).library.conn.execute("SELECT data FROM message_parts").fetchall()
    assert chats and all(key not in row[0] for row in chats)  # nor in the saved conversation


def test_redact_hides_key_shapes_and_known_keys() -> None:
    text = 'Authorization: Bearer abc.def-123 {"x-api-key": "ant-123456"} api_key=zzz sk-proj-ABCDEF123456'
    shown = redact(text, ["ant-123456"])
    for secret in ("abc.def-123", "ant-123456", "zzz", "sk-proj-ABCDEF123456"):
        assert secret not in shown
    assert redact("a plain sentence about keys and tokens") == "a plain sentence about keys and tokens"
