"""What a provider is (kind, model, endpoint, key lookup) without importing any LLM client library.

Kept apart from ``providers.py`` so that the app starts without loading LangChain; the chat loads it later.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

from core.errors import ProviderError, QuireError
from core.secrets import SecretStore

PROVIDERS = ("openai", "openai-compatible", "deepseek", "anthropic", "ollama")
"""The AI providers Quire can answer with."""
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "deepseek": "https://api.deepseek.com",
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://localhost:11434/v1",
}
"""Each provider's endpoint when none is given."""
ENV_KEYS = {"openai": "OPENAI_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """One provider's settings (the key is not here: it lives in the secret store)."""

    kind: str
    model: str
    base_url: str = ""
    temperature: float = 0.3
    max_tokens: int = 2048
    timeout: float = 60.0
    max_retries: int = 2  # the client retries transient failures (429, 5xx, timeouts) with backoff
    context_window: int = 32_000  # tokens; older turns are summarised past three quarters of it
    thinking_tokens: int = 0  # Anthropic extended thinking budget (0: off)

    @property
    def url(self) -> str:
        return self.base_url or DEFAULT_BASE_URLS.get(self.kind, "")

    @property
    def secret_name(self) -> str:
        return secret_name("provider", self.kind)


def secret_name(role: str, kind: str) -> str:
    """The secret store's name for a key: ``provider:openai``, ``embedding:ollama``."""
    return f"{role}:{kind}"


def secret_names() -> list[str]:
    """Every secret Quire may keep: each provider's and embedding endpoint's key, and the endpoint it is bound to.

    A phone's secure storage is asynchronous, so the app reads these once at start-up: a name missing here
    would be a key lost after a restart.
    """
    from core.rag.remote import REMOTE_EMBEDDERS

    keys = [secret_name("provider", kind) for kind in PROVIDERS]
    keys += [secret_name("embedding", kind) for kind in REMOTE_EMBEDDERS]
    return [name + suffix for name in keys for suffix in ("", ":endpoint")]


def endpoint_origin(url: str) -> str:
    """Where requests to ``url`` go: scheme, host and port (``https://api.openai.com:443``)."""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError):
        return ""
    port = parsed.port or {"http": 80, "https": 443}.get(parsed.scheme, 0)
    return f"{parsed.scheme}://{parsed.host}:{port}".lower() if parsed.host else ""


def store_key(secrets: SecretStore, name: str, key: str, url: str) -> None:
    """Keep ``key`` in the secret store, bound to the endpoint it was given for."""
    secrets.set(name, key)
    secrets.set(f"{name}:endpoint", endpoint_origin(url))


def stored_key(secrets: SecretStore | None, name: str, url: str, default_url: str = "") -> str | None:
    """The key stored under ``name``, only for the endpoint it was saved for (a key set by hand: the default one).

    Raises ProviderError when a key is stored but ``url`` is another endpoint: sending it there would hand it
    to whoever runs that endpoint, so the user must enter it again for the new one.
    """
    try:
        key = secrets.get(name) if secrets is not None else None
        bound = (secrets.get(f"{name}:endpoint") if key and secrets is not None else None) or endpoint_origin(
            default_url
        )
    except QuireError:  # no usable keyring on this machine: as if none were stored
        return None
    if key and endpoint_origin(url) != bound:
        where = bound or "no endpoint"
        raise ProviderError(
            f"the saved key for {name} was given for {where}, not {endpoint_origin(url) or url!r}: "
            "enter the key again for this endpoint in Settings (it is never sent elsewhere)"
        )
    return key


def api_key(config: ProviderConfig, secrets: SecretStore | None) -> str | None:
    """The stored key (for the endpoint it was saved for), else the provider's usual environment variable."""
    stored = stored_key(secrets, config.secret_name, config.url, DEFAULT_BASE_URLS.get(config.kind, ""))
    return (
        stored or os.environ.get(ENV_KEYS.get(config.kind, "QUIRE_LLM_API_KEY")) or os.environ.get("QUIRE_LLM_API_KEY")
    )
