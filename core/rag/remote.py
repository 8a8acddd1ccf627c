"""Remote embedding endpoints: any OpenAI-compatible ``/embeddings`` API, and Ollama's ``/api/embed``.

Timeouts, retries with exponential backoff on 429 and 5xx (honouring Retry-After), and one clear
ProviderError for everything else. The API key is sent as a bearer token and never appears in an
error message.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import numpy as np

from core.errors import EmbeddingProviderError
from core.network_policy import NetworkPolicy
from core.rag.chunker import approximate_token_count
from core.rag.embedder import Embedder, normalise
from core.redact import remember

RETRY_STATUSES = {429, 500, 502, 503, 504}
# The remote embedding endpoints Quire speaks to, and their default base URLs. Ollama's differs from its chat
# default (core.agent.provider_config) on purpose: chat goes through its OpenAI-compatible /v1, embeddings
# through its own /api/embed at the server's root.
REMOTE_EMBEDDERS = {"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434"}
"""The remote embedding providers and their default endpoints."""


class RemoteEmbedder(Embedder):
    """Shared HTTP behaviour; subclasses say where to post and how to read the answer."""

    path = ""
    tokenizer_name = "approximate"
    batch_size = 64  # texts per HTTP request

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        dimension: int | None = None,
        max_tokens: int = 512,
        timeout: float = 30.0,
        retries: int = 4,
        backoff: float = 0.5,
        client: httpx.Client | None = None,
        policy: NetworkPolicy | None = None,
    ) -> None:
        self.model = model
        self.name = f"{self.kind}:{model}"
        self.base_url = base_url.rstrip("/")
        self.host = httpx.URL(self.base_url).host or self.base_url
        self.dimension = dimension or 0
        self.max_tokens = max_tokens
        self.retries = retries
        self.backoff = backoff
        remember(api_key)  # hidden in every error from now on, whatever its shape
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # Every request is checked (local-only mode may be switched on later) and stays on this endpoint's host.
        self.client = client or (policy or NetworkPolicy()).client(
            f"the {self.kind} embedding endpoint", self.base_url, timeout=timeout, headers=headers
        )

    kind = "remote"

    def count_tokens(self, texts: list[str]) -> list[int]:
        return approximate_token_count(texts)

    def payload(self, texts: list[str]) -> dict[str, Any]:
        return {"model": self.model, "input": texts}

    def vectors(self, body: dict[str, Any], count: int) -> list[list[float]]:
        raise NotImplementedError

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        body = self._post(self.payload(texts))
        try:
            rows = self.vectors(body, len(texts))
            matrix = np.array(rows, dtype=np.float32)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise EmbeddingProviderError(
                f"{self.host} answered with something that is not embeddings ({type(error).__name__})"
            ) from None
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise EmbeddingProviderError(
                f"{self.host} returned {matrix.shape[0] if matrix.ndim else 0} vectors for {len(texts)} texts"
            )
        if self.dimension and matrix.shape[1] != self.dimension:
            raise EmbeddingProviderError(
                f"{self.host} returned {matrix.shape[1]}-dimensional vectors, expected {self.dimension}"
            )
        self.dimension = matrix.shape[1]
        return normalise(matrix)

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        url = self.base_url + self.path
        for attempt in range(self.retries + 1):
            try:
                response = self.client.post(url, json=payload)
            except httpx.TimeoutException:
                if attempt < self.retries:
                    time.sleep(self.backoff * 2**attempt)
                    continue
                raise EmbeddingProviderError(
                    f"{self.host} did not answer in time; try again, or check the server"
                ) from None
            except httpx.TransportError as error:
                raise EmbeddingProviderError(
                    f"cannot connect to {self.host} ({type(error).__name__}): is the server running and the URL right?"
                ) from None
            if response.status_code in RETRY_STATUSES and attempt < self.retries:
                time.sleep(_retry_after(response) or self.backoff * 2**attempt)
                continue
            return self._read(response)
        raise AssertionError("unreachable")

    def _read(self, response: httpx.Response) -> dict[str, Any]:
        status = response.status_code
        if status in (401, 403):
            raise EmbeddingProviderError(f"{self.host} refused the API key ({status}): check the key in Settings")
        if status == 404:
            raise EmbeddingProviderError(
                f"{self.host} does not know the model '{self.model}' or the URL is wrong (404)"
            )
        if status == 429:
            raise EmbeddingProviderError(f"{self.host} is rate-limiting requests (429); wait a minute and try again")
        if status >= 400:
            raise EmbeddingProviderError(f"{self.host} failed with HTTP {status}; try again later")
        try:
            body: dict[str, Any] = response.json()
            return body
        except ValueError:
            raise EmbeddingProviderError(f"{self.host} answered with something that is not JSON") from None


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        return min(float(value), 30.0)
    except ValueError:
        return None


class OpenAIEmbedder(RemoteEmbedder):
    """Any OpenAI-compatible endpoint (OpenAI, SiliconFlow, LM Studio, vLLM...); base URL ends in /v1."""

    kind = "openai"
    path = "/embeddings"

    def vectors(self, body: dict[str, Any], count: int) -> list[list[float]]:
        data = sorted(body["data"], key=lambda item: item["index"])
        return [item["embedding"] for item in data]


class OllamaEmbedder(RemoteEmbedder):
    """Ollama's /api/embed (base URL like http://localhost:11434)."""

    kind = "ollama"
    path = "/api/embed"

    def vectors(self, body: dict[str, Any], count: int) -> list[list[float]]:
        vectors: list[list[float]] = body["embeddings"]
        return vectors
