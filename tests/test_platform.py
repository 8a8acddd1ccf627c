"""Platform adapters: the protocols, the in-memory set, and the keyring store through keyring's own API."""

from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest

from core.errors import QuireError
from core.services import Quire, default_library_dir
from platform_adapters import AppPaths, FileAccess, PickedFile, SecretStore, current_platform
from platform_adapters.capabilities import _importable, detect_capabilities
from platform_adapters.desktop import DesktopPaths, KeyringSecrets
from platform_adapters.memory import memory_platform

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


class DictKeyring(keyring.backend.KeyringBackend):
    """A real keyring backend that keeps passwords in a dict."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.values[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.values:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.values[(service, username)]


class LockedKeyring(DictKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked(f"locked while storing {password}")


@pytest.fixture
def keyring_backend() -> DictKeyring:
    previous = keyring.get_keyring()
    backend = DictKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_memory_platform_satisfies_the_protocols(tmp_path: Path) -> None:
    platform = memory_platform(tmp_path)
    assert isinstance(platform.paths, AppPaths)
    assert isinstance(platform.secrets, SecretStore)
    assert isinstance(platform.files, FileAccess)
    platform.secrets.set("openai", "sk-test")
    assert platform.secrets.get("openai") == "sk-test"
    platform.secrets.delete("openai")
    platform.secrets.delete("openai")  # deleting twice is fine
    assert platform.secrets.get("openai") is None
    assert platform.paths.data_dir() == tmp_path / "data"


def test_keyring_secrets_store_get_and_delete(keyring_backend: DictKeyring) -> None:
    secrets = KeyringSecrets()
    secrets.set("deepseek", "sk-123")
    assert keyring_backend.values == {("quire", "deepseek"): "sk-123"}
    assert secrets.get("deepseek") == "sk-123"
    secrets.delete("deepseek")
    secrets.delete("deepseek")
    assert secrets.get("deepseek") is None


def test_keyring_errors_never_reveal_the_secret() -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(LockedKeyring())
    try:
        with pytest.raises(QuireError) as caught:
            KeyringSecrets().set("anthropic", "sk-very-secret")
    finally:
        keyring.set_keyring(previous)
    assert "sk-very-secret" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert "unlock a keyring" in str(caught.value)


def test_picked_files_from_paths_and_bytes(tmp_path: Path) -> None:
    path = tmp_path / "b.txt"
    path.write_bytes(b"hello")
    files = memory_platform(tmp_path).files
    assert files.open_picked("b.txt", str(path), None).read_bytes() == b"hello"
    assert files.open_picked("c.txt", None, b"bytes").read_bytes() == b"bytes"
    with pytest.raises(ValueError, match="neither a path nor data"):
        PickedFile("d.txt").read_bytes()


def test_capabilities_are_detected_without_importing() -> None:
    capabilities = detect_capabilities()
    assert isinstance(capabilities.onnxruntime, bool)
    assert _importable("json") and not _importable("no_such_module_quire")
    assert capabilities.sqlite_extensions is (
        _importable("sqlean") or hasattr(__import__("sqlite3").Connection, "enable_load_extension")
    )


def test_library_location_env_overrides_the_platform_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIRE_LIBRARY", str(tmp_path / "from-env"))
    assert default_library_dir(current_platform().paths.data_dir()) == tmp_path / "from-env"
    monkeypatch.delenv("QUIRE_LIBRARY")
    assert default_library_dir(tmp_path / "data") == tmp_path / "data" / "library"
    assert default_library_dir(current_platform().paths.data_dir()) == DesktopPaths().data_dir() / "library"
    assert current_platform().name == "desktop"
    quire = Quire(tmp_path / "explicit")
    assert quire.folder == tmp_path / "explicit"
    quire.close()


def test_packaged_app_paths_come_from_flets_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from platform_adapters.mobile import DATA_ENV, TEMP_ENV, FletStoragePaths, is_packaged_app

    environ = {DATA_ENV: str(tmp_path / "data"), TEMP_ENV: str(tmp_path / "tmp")}
    paths = FletStoragePaths(environ)
    assert isinstance(paths, AppPaths) and is_packaged_app(environ) and not is_packaged_app({})
    assert (paths.data_dir(), paths.cache_dir()) == (tmp_path / "data", tmp_path / "tmp")
    with pytest.raises(RuntimeError, match="not a packaged Flet app"):
        FletStoragePaths({})
    monkeypatch.delenv("QUIRE_LIBRARY", raising=False)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    assert (
        current_platform().name == "packaged"
        and default_library_dir(current_platform().paths.data_dir()) == tmp_path / "data" / "library"
    )


class DeviceStorage:
    """Stands in for the phone's Keychain/Keystore behind flet_secure_storage (async, like the real one)."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)

    async def get(self, key: str) -> str | None:
        return self.values.get(key)

    async def set(self, key: str, value: str) -> None:
        self.values[key] = value

    async def remove(self, key: str) -> None:
        self.values.pop(key, None)


def test_secure_storage_secrets_read_once_and_write_through() -> None:
    import asyncio
    import inspect

    from flet_secure_storage import SecureStorage

    from platform_adapters.mobile import SecureStorageSecrets

    for name in ("get", "set", "remove"):  # the methods used exist on the real service, and are async
        assert inspect.iscoroutinefunction(getattr(SecureStorage, name))
    device = DeviceStorage({"provider:openai": "sk-phone", "unrelated": "x"})

    async def scenario() -> None:
        pending: list = []
        secrets = SecureStorageSecrets(device, lambda make: pending.append(asyncio.ensure_future(make())))
        await secrets.load(["provider:openai", "provider:deepseek"])
        assert isinstance(secrets, SecretStore)
        assert secrets.get("provider:openai") == "sk-phone" and secrets.get("unrelated") is None
        secrets.set("provider:deepseek", "sk-new")
        secrets.delete("provider:openai")
        assert secrets.get("provider:deepseek") == "sk-new" and secrets.get("provider:openai") is None
        await asyncio.gather(*pending)
        assert device.values == {"provider:deepseek": "sk-new", "unrelated": "x"}

    asyncio.run(scenario())


def test_phones_are_told_by_flets_environment_not_by_sys_platform(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import main
    from platform_adapters.mobile import phone_os

    assert phone_os({"FLET_PLATFORM": "android"}) == "android" and phone_os({"FLET_PLATFORM": "iOS"}) == "ios"
    assert phone_os({"FLET_PLATFORM": "linux"}) is None and phone_os({}) is None
    monkeypatch.setattr(main.sys, "platform", "linux")  # what Python 3.12 says on Android
    assert main.wants_web(False, {}) is True  # a Linux desktop with no display: the web UI
    assert main.wants_web(False, {"FLET_PLATFORM": "android"}) is False  # a phone: the app, never a web server
    assert main.wants_web(True, {"FLET_PLATFORM": "ios"}) is False
    assert main.wants_web(False, {"DISPLAY": ":0"}) is False and main.wants_web(True, {"DISPLAY": ":0"}) is True
    monkeypatch.delenv("QUIRE_LIBRARY", raising=False)
    monkeypatch.setenv("FLET_PLATFORM", "android")
    monkeypatch.setenv("FLET_APP_STORAGE_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("FLET_APP_STORAGE_TEMP", str(tmp_path / "cache"))
    assert (
        current_platform().name == "android"
        and default_library_dir(current_platform().paths.data_dir()) == tmp_path / "data" / "library"
    )


def test_every_key_the_settings_can_save_survives_a_phone_restart(tmp_path: Path) -> None:
    import asyncio

    from app.settings import Settings, SettingsStore
    from core.agent.provider_config import ProviderConfig, secret_names
    from platform_adapters.mobile import SecureStorageSecrets

    device = DeviceStorage({})

    async def scenario() -> None:
        pending: list = []
        secrets = SecureStorageSecrets(device, lambda make: pending.append(asyncio.ensure_future(make())))
        store = SettingsStore(tmp_path, secrets)
        settings = Settings()
        store.set_provider(settings, ProviderConfig("deepseek", "deepseek-chat"), "sk-chat")
        store.set_embedding(settings, "openai", "text-embedding-3-small", "https://api.openai.com/v1", "sk-embed")
        await asyncio.gather(*pending)
        restarted = SecureStorageSecrets(device, lambda make: None)  # a new start: only what is read back is known
        await restarted.load(secret_names())
        again = SettingsStore(tmp_path, restarted)
        assert again.has_key(ProviderConfig("deepseek", "deepseek-chat"))
        assert again.embedding_key("openai", "https://api.openai.com/v1") == "sk-embed"  # was lost before

    asyncio.run(scenario())
