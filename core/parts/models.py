"""Embedding models: on-device ones (downloaded, loaded, released) and remote endpoints."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.errors import ModelUnavailableError, QuireError
from core.library import Library
from core.network_policy import NetworkPolicy
from core.rag import Embedder, ModelStore
from core.rag.models import CATALOG, choose_model
from core.rag.remote import REMOTE_EMBEDDERS


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """An embedding model Quire knows, and whether it can run here now."""

    name: str
    languages: tuple[str, ...]
    dimension: int
    available: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "languages": list(self.languages), "dimension": self.dimension,
                "available": self.available}  # fmt: skip


class Models:
    """``quire.models``: the embedding models a book can be indexed and searched with."""

    def __init__(self, library: Library, store: ModelStore, network: NetworkPolicy) -> None:
        self._library = library
        self._store = store
        self._network = network
        self._remote: dict[str, Embedder] = {}

    def embedder(self, name: str) -> Embedder:
        """An embedder by name: a registered remote endpoint, or an on-device catalog model."""
        if name in self._remote:
            return self._remote[name]
        if name.partition(":")[0] in REMOTE_EMBEDDERS:
            raise ModelUnavailableError(
                f"this book was indexed with the remote model '{name}', which is not set up here: "
                "set that endpoint up again, or index the book with an on-device model"
            )
        return self._store.load(name)

    def is_available(self, name: str) -> bool:
        """Whether an on-device model's files are here (or packaged) and its runtime can load them."""
        return self._store.is_available(name)

    def fetch(
        self,
        name: str,
        progress: Callable[[int, int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """Download an on-device model's files (checked by hash), unless they are here already."""
        self._store.fetch(name, progress=progress, cancel=cancel)

    def release(self) -> int:
        """Free the memory of the on-device models (they load again when next needed); how many were loaded."""
        return self._store.release()

    def use_remote(self, spec: str, base_url: str, api_key: str | None = None) -> str:
        """Register a remote embedder from ``openai:MODEL`` or ``ollama:MODEL``; return its name."""
        from core.rag.remote import OllamaEmbedder, OpenAIEmbedder

        kind, _, model = spec.partition(":")
        classes = {"openai": OpenAIEmbedder, "ollama": OllamaEmbedder}
        if kind not in classes or not model:
            raise QuireError(f"'{spec}' is not a remote embedder: write openai:MODEL or ollama:MODEL")
        self._network.check(base_url, f"the {kind} embedding endpoint")
        embedder = classes[kind](model, base_url=base_url, api_key=api_key, policy=self._network)
        self._remote[embedder.name] = embedder
        return embedder.name

    def choose(self, book: int) -> tuple[str, str]:
        """The embedding model a book gets (by its language, among those available) and why."""
        record = self._library.get(book)
        name, reason = choose_model(record.language, self._store.available())
        if name is None:
            raise ModelUnavailableError(reason)
        return name, reason

    def status(self) -> list[ModelInfo]:
        """The embedding models Quire knows, and whether each can run here now."""
        return [
            ModelInfo(spec.name, tuple(spec.languages), spec.dimension, self._store.is_available(spec.name))
            for spec in CATALOG.values()
        ]

    @staticmethod
    def languages(name: str) -> tuple[str, ...]:
        """Languages a model is good at ("*": many, or unknown for a remote model)."""
        return CATALOG[name].languages if name in CATALOG else ("*",)
