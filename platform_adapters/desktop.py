"""Desktop adapters (macOS, Windows, Linux): platformdirs folders and the OS keyring."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import platformdirs

from core import SecretStoreError
from platform_adapters.base import PickedFile, Platform
from platform_adapters.capabilities import detect_capabilities

APP_NAME = "Quire"
KEYRING_SERVICE = "quire"


class DesktopPaths:
    """Per-user folders as each desktop OS expects them."""

    def data_dir(self) -> Path:
        return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))

    def cache_dir(self) -> Path:
        return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


FIX = "install or unlock a keyring (e.g. GNOME Keyring, KWallet) and try again"


def _keyring() -> ModuleType:
    """The keyring package, imported on first use (phone builds leave it out: they use secure storage)."""
    try:
        import keyring
        import keyring.errors
    except ImportError:
        raise SecretStoreError("no system keyring on this device: keys go to its secure storage instead") from None
    return keyring


class KeyringSecrets:
    """API keys in the OS keyring (Keychain, Credential Manager, Secret Service)."""

    def __init__(self, service: str = KEYRING_SERVICE) -> None:
        self.service = service

    def get(self, name: str) -> str | None:
        keyring = _keyring()
        try:
            found: str | None = keyring.get_password(self.service, name)
            return found
        except keyring.errors.KeyringError as error:
            raise SecretStoreError(
                f"cannot read '{name}' from the system keyring ({type(error).__name__}): {FIX}"
            ) from None

    def set(self, name: str, value: str) -> None:
        keyring = _keyring()
        try:
            keyring.set_password(self.service, name, value)
        except keyring.errors.KeyringError as error:
            # never include the value: the message may be logged or shown
            raise SecretStoreError(
                f"cannot save '{name}' in the system keyring ({type(error).__name__}): {FIX}"
            ) from None

    def delete(self, name: str) -> None:
        keyring = _keyring()
        try:
            keyring.delete_password(self.service, name)
        except keyring.errors.PasswordDeleteError:
            return
        except keyring.errors.KeyringError as error:
            raise SecretStoreError(
                f"cannot delete '{name}' from the system keyring ({type(error).__name__}): {FIX}"
            ) from None


class DesktopFiles:
    """Desktop pickers give paths."""

    def open_picked(self, name: str, path: str | None, data: bytes | None) -> PickedFile:
        return PickedFile(name=name, path=Path(path) if path else None, data=data)


def desktop_platform() -> Platform:
    """The adapters for a desktop OS."""
    return Platform("desktop", DesktopPaths(), KeyringSecrets(), detect_capabilities(), DesktopFiles())
