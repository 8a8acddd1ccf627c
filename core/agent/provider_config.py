"""What a provider is (kind, model, endpoint, key lookup) without importing any LLM client library.

Kept apart from ``providers.py`` so that the app starts without loading LangChain; the chat loads it later.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from core.errors import QuireError

PROVIDERS = ("openai", "openai-compatible", "deepseek", "anthropic", "ollama")
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "deepseek": "https://api.deepseek.com",
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://localhost:11434/v1",
}
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
        return f"provider:{self.kind}"


def api_key(config: ProviderConfig, secrets: Any | None) -> str | None:
    """The key from the secret store, else the provider's usual environment variable."""
    try:
        stored = secrets.get(config.secret_name) if secrets is not None else None
    except QuireError:  # no usable keyring on this machine: fall back to the environment
        stored = None
    return (
        stored or os.environ.get(ENV_KEYS.get(config.kind, "QUIRE_LLM_API_KEY")) or os.environ.get("QUIRE_LLM_API_KEY")
    )
