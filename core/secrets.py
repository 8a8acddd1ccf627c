"""The secret store the core asks for API keys; each platform implements it (platform_adapters)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class SecretStore(Protocol):
    """Storage for API keys: the OS keyring on desktops, Keychain/Keystore on phones."""

    def get(self, name: str) -> str | None:
        """The secret stored under ``name``, or None."""
        ...

    def set(self, name: str, value: str) -> None:
        """Store a secret under ``name`` (replacing any previous one)."""
        ...

    def delete(self, name: str) -> None:
        """Forget the secret under ``name``; no error when there is none."""
        ...
