"""Local-only mode: remote endpoints are refused before any connection; a model on this computer answers.

Remote chat providers, embedding endpoints and model downloads are refused; an OpenAI-compatible server on
127.0.0.1 still works.
"""

import re
import socket

import pytest
from httpkit import LocalServer, Reply
from openai_mock import OpenAIMock

from core.agent.events import Done, ErrorEvent, TextDelta
from core.agent.providers import ProviderConfig
from core.network_policy import LocalOnlyError, is_local_url
from core.rag.models import CATALOG
from core.services import Quire
from platform_adapters.memory import MemorySecrets

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every host this process resolves or connects to while the test runs."""
    seen: list = []
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host, *args, **kwargs):
        seen.append(host)
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self, address):
        seen.append(address[0] if isinstance(address, tuple) else address)
        return real_connect(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


def test_what_counts_as_local(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list = []
    answers = {"ollama.localhost": "127.0.0.1", "evil.localhost": "10.1.2.3", "localhost": "127.0.0.1"}

    def getaddrinfo(host, *args, **kwargs):  # the system's resolver, which may send *.localhost to DNS
        asked.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[host], 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert is_local_url("http://localhost:11434/v1") and is_local_url("http://127.0.0.1:8000")
    assert is_local_url("http://[::1]:8080/v1") and is_local_url("http://ollama.localhost/v1")
    assert is_local_url("http://evil.localhost/v1")  # this computer by definition: it is connected to as 127.0.0.1
    assert not is_local_url("https://api.openai.com/v1") and not is_local_url("http://192.168.1.20:11434")
    assert not is_local_url("http://localhost.evil.com/v1") and not is_local_url("http://[::ffff:10.0.0.1]/")
    assert asked == []  # no name was looked up: a lookup of *.localhost may go to DNS, itself a remote contact


@pytest.mark.parametrize("name", ["ollama.localhost", "localhost"])
def test_a_localhost_name_is_connected_to_at_127_0_0_1_without_a_lookup(
    alice_quire: Quire, connections: list, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The system resolver answered 127.0.0.1 to the check and 10.0.0.1 to the connection once: the address
    checked must be the address connected to, and no lookup may leave the machine."""
    answers = iter(["127.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.1"])

    def getaddrinfo(host, port, *args, **kwargs):
        connections.append(host)
        address = next(answers) if host.endswith("localhost") else host
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    alice_quire.local_only = True
    with OpenAIMock([[{"content": "It is the White Rabbit."}]]) as mock:
        url = mock.url.replace("127.0.0.1", name)
        config = ProviderConfig("openai-compatible", "m", base_url=url, max_retries=0)
        events = list(alice_quire.ask(1, "Who is late?", provider=config, spoilers=True))
    assert any(isinstance(e, TextDelta) for e in events), events
    assert name not in connections and not any(str(c).startswith("10.") for c in connections)


def _redirecting_server(target: str) -> LocalServer:
    """A server on 127.0.0.1 that answers every request with 307 to ``target`` (a private address)."""
    return LocalServer(lambda request: Reply(307, b"", {"location": target + request.path}))


@pytest.mark.parametrize("kind", ["openai-compatible", "anthropic"])
def test_a_local_endpoint_redirecting_elsewhere_is_not_followed(
    alice_quire: Quire, connections: list, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-real")
    alice_quire.local_only = True
    with _redirecting_server("http://10.255.0.7:8080") as server:
        config = ProviderConfig(kind, "some-model", base_url=server.url + "/v1", max_retries=0)
        events = list(alice_quire.ask(1, "Who is late?", provider=config, spoilers=True))
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert server.requests and errors, events
    assert "10.255.0.7" in errors[0] and "sk-ant" not in errors[0], errors
    assert not any(str(host).startswith("10.") for host in connections)  # the redirect was never followed


def test_an_endpoint_redirecting_to_another_host_keeps_its_key(alice_quire: Quire, connections: list) -> None:
    from core.agent.connection import check_connection
    from core.agent.provider_config import store_key
    from core.errors import ProviderError

    secrets = MemorySecrets()
    elsewhere = LocalServer(lambda request: Reply(200, {"data": []}))
    with elsewhere, _redirecting_server(elsewhere.url.replace("127.0.0.1", "localhost")) as server:
        store_key(secrets, "provider:openai-compatible", "sk-saved-for-this-one", server.url + "/v1")
        config = ProviderConfig("openai-compatible", "m", base_url=server.url + "/v1")
        with pytest.raises(ProviderError, match="redirected to localhost"):
            check_connection(config, secrets)
    assert server.requests and not elsewhere.requests


def test_a_remote_embedder_chosen_before_local_only_is_refused_after(alice_quire: Quire, connections: list) -> None:
    name = alice_quire.models.use_remote("openai:text-embedding-3-small", "http://192.0.2.10/v1", "sk-test")
    alice_quire.local_only = True  # switched on later, in Settings
    with pytest.raises(LocalOnlyError, match=r"embedding endpoint at 192\.0\.2\.10"):
        alice_quire.models.embedder(name).embed_documents(["a White Rabbit with pink eyes"])
    with pytest.raises(LocalOnlyError):
        alice_quire.index(1, embedder=name)
    assert connections == []


def test_remote_things_are_refused_without_a_connection(alice_quire: Quire, connections: list) -> None:
    alice_quire.local_only = True
    secrets = MemorySecrets()
    secrets.set("provider:openai", "sk-test")
    events = list(alice_quire.ask(1, "Who is the White Rabbit?",
                      provider=ProviderConfig("openai", "gpt-4o-mini"), secrets=secrets))  # fmt: skip
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert errors and errors[0].startswith("local-only mode is on, so the openai provider at api.openai.com")
    assert isinstance(events[-1], Done) and events[-1].reason == "error"
    with pytest.raises(LocalOnlyError, match=r"embedding endpoint at api\.openai\.com"):
        alice_quire.models.use_remote("openai:text-embedding-3-small", "https://api.openai.com/v1")
    downloadable = next(name for name, spec in CATALOG.items() if spec.files and not spec.package)
    with pytest.raises(LocalOnlyError, match=f"the download of {re.escape(downloadable)}"):
        alice_quire.models.fetch(downloadable)
    assert connections == []  # nothing was even looked up


def test_a_local_model_still_answers(alice_quire: Quire, connections: list) -> None:
    alice_quire.local_only = True
    with OpenAIMock([[{"content": "The White Rabbit is late."}]]) as mock:
        config = ProviderConfig("ollama", "llama3.1", base_url=mock.url)
        events = list(alice_quire.ask(1, "Who is late?", provider=config))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The White Rabbit is late."
    assert len(mock.requests) == 1 and set(connections) <= {"127.0.0.1", "localhost"}
