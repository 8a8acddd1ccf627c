"""Settings persist, survive a broken file, stay in range, and never hold an API key."""

from pathlib import Path

from app.settings import Settings, SettingsStore
from core.agent.providers import ProviderConfig
from platform_adapters.memory import MemorySecrets


def test_settings_round_trip_and_clamp(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path, MemorySecrets())
    assert store.load() == Settings()
    store.save(Settings(theme="sepia", font_size=99, line_height=0.2, language="zh", layout="paginated"))
    loaded = store.load()
    assert (loaded.theme, loaded.font_size, loaded.line_height, loaded.language, loaded.layout) == (
        "sepia",
        40,
        1.0,
        "zh",
        "paginated",
    )


def test_a_broken_or_foreign_settings_file_falls_back_to_defaults(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path, MemorySecrets())
    store.path.write_text("{not json", encoding="utf-8")
    assert store.load() == Settings()
    store.path.write_text('{"theme": "neon", "font_size": 20, "unknown": 1}', encoding="utf-8")
    assert store.load() == Settings(font_size=20)


def test_api_keys_go_to_the_secret_store_only(tmp_path: Path) -> None:
    secrets = MemorySecrets()
    store = SettingsStore(tmp_path, secrets)
    settings = store.load()
    config = ProviderConfig("deepseek", "deepseek-chat", temperature=0.5)
    store.set_provider(settings, config, "sk-never-in-a-file")
    assert "sk-never-in-a-file" not in store.path.read_text(encoding="utf-8")
    assert secrets.get("provider:deepseek") == "sk-never-in-a-file" and store.has_key(config)
    assert store.load().provider_config() == config
