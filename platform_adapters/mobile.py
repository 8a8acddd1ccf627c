"""Adapters for packaged phone apps and the in-browser (Pyodide) build: Flet storage paths, secure storage.

A packaged Flet app gets its private folders from the environment (``FLET_APP_STORAGE_DATA`` and
``FLET_APP_STORAGE_TEMP``, set by the app's launcher). Secrets go to ``flet-secure-storage`` (Keychain on
iOS, Keystore-backed preferences on Android, encrypted local storage in a browser). That service is
asynchronous, and the core reads keys synchronously, so ``SecureStorageSecrets`` is a write-through
cache: ``load()`` reads the names Quire uses once at start-up, ``set``/``delete`` update the cache at once
and the device in the background.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

DATA_ENV = "FLET_APP_STORAGE_DATA"
TEMP_ENV = "FLET_APP_STORAGE_TEMP"


PLATFORM_ENV = "FLET_PLATFORM"  # set by Flet's launcher on phones: android or ios


def phone_os(environ: dict[str, str] | None = None) -> str | None:
    """'android' or 'ios' when running as a phone app (Flet says so; ``sys.platform`` is 'linux' on Android
    under Python 3.12), else None."""
    environ = dict(os.environ) if environ is None else environ
    name = environ.get(PLATFORM_ENV, "").strip().lower()
    return name if name in ("android", "ios") else None


def is_packaged_app(environ: dict[str, str] | None = None) -> bool:
    """True inside an app made by ``flet build`` (phones, and desktop bundles), where Flet sets storage paths."""
    environ = dict(os.environ) if environ is None else environ
    return bool(environ.get(DATA_ENV))


class FletStoragePaths:
    """The app's private data and temporary folders as Flet's launcher gives them."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        environ = dict(os.environ) if environ is None else environ
        if not environ.get(DATA_ENV):
            raise RuntimeError(f"{DATA_ENV} is not set: this is not a packaged Flet app")
        self._data = Path(environ[DATA_ENV])
        self._temp = Path(environ.get(TEMP_ENV) or self._data / "cache")

    def data_dir(self) -> Path:
        return self._data

    def cache_dir(self) -> Path:
        return self._temp


class AsyncSecretService(Protocol):
    """The part of ``flet_secure_storage.SecureStorage`` used here."""

    async def get(self, key: str) -> str | None: ...

    async def set(self, key: str, value: str) -> Any: ...

    async def remove(self, key: str) -> Any: ...


class SecureStorageSecrets:
    """A synchronous SecretStore over an asynchronous secure storage service."""

    def __init__(self, service: AsyncSecretService, run_task: Callable[..., Any]) -> None:
        self.service = service
        self.run_task = run_task  # page.run_task: schedules a coroutine on the app's event loop
        self._cache: dict[str, str] = {}

    async def load(self, names: Iterable[str]) -> None:
        """Read the given secrets from the device into the cache (call once at start-up)."""
        for name in names:
            value = await self.service.get(name)
            if value:
                self._cache[name] = value

    def get(self, name: str) -> str | None:
        return self._cache.get(name)

    def set(self, name: str, value: str) -> None:
        self._cache[name] = value
        self._background(self.service.set, name, value)

    def delete(self, name: str) -> None:
        self._cache.pop(name, None)
        self._background(self.service.remove, name)

    def _background(self, method: Callable[..., Awaitable[Any]], *args: str) -> None:
        async def call() -> None:
            await method(*args)

        self.run_task(call)
