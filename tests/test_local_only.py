"""Local-only mode: remote endpoints are refused before any connection; a model on this computer answers.

Remote chat providers, embedding endpoints and model downloads are refused; an OpenAI-compatible server on
127.0.0.1 still works.
"""

import re
import socket

import pytest
from openai_mock import OpenAIMock

from core.agent.conversation import ask
from core.agent.events import Done, ErrorEvent, TextDelta
from core.agent.providers import ProviderConfig
from core.network_policy import LocalOnlyError, is_local_url
from core.rag.models import CATALOG
from core.services import Quire
from platform_adapters.memory import MemorySecrets


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


def test_what_counts_as_local() -> None:
    assert is_local_url("http://localhost:11434/v1") and is_local_url("http://127.0.0.1:8000")
    assert is_local_url("http://[::1]:8080/v1") and is_local_url("http://ollama.localhost/v1")
    assert not is_local_url("https://api.openai.com/v1") and not is_local_url("http://192.168.1.20:11434")
    assert not is_local_url("http://localhost.evil.com/v1")


def test_remote_things_are_refused_without_a_connection(alice_quire: Quire, connections: list) -> None:
    alice_quire.network.local_only = True
    secrets = MemorySecrets()
    secrets.set("provider:openai", "sk-test")
    events = list(ask(alice_quire, 1, "Who is the White Rabbit?",
                      provider=ProviderConfig("openai", "gpt-4o-mini"), secrets=secrets))  # fmt: skip
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert errors and errors[0].startswith("local-only mode is on, so the openai provider at api.openai.com")
    assert isinstance(events[-1], Done) and events[-1].reason == "error"
    with pytest.raises(LocalOnlyError, match=r"embedding endpoint at api\.openai\.com"):
        alice_quire.use_remote_embedder("openai:text-embedding-3-small", "https://api.openai.com/v1")
    downloadable = next(name for name, spec in CATALOG.items() if spec.files and not spec.package)
    with pytest.raises(LocalOnlyError, match=f"the download of {re.escape(downloadable)}"):
        alice_quire.models.fetch(downloadable)
    assert connections == []  # nothing was even looked up


def test_a_local_model_still_answers(alice_quire: Quire, connections: list) -> None:
    alice_quire.network.local_only = True
    with OpenAIMock([[{"content": "The White Rabbit is late."}]]) as mock:
        config = ProviderConfig("ollama", "llama3.1", base_url=mock.url)
        events = list(ask(alice_quire, 1, "Who is late?", provider=config))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The White Rabbit is late."
    assert len(mock.requests) == 1 and set(connections) <= {"127.0.0.1", "localhost"}
