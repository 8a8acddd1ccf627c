"""Settings persist, survive a broken file, stay in range, and never hold an API key."""

from pathlib import Path

import flet as ft
import pytest
from fletkit import find, texts, walk

from app.i18n import Translator
from app.screens.settings import intents
from app.screens.settings.view import SettingsScreen, build_settings_screen
from app.settings import Settings, SettingsStore
from core.agent.providers import ProviderConfig
from platform_adapters.memory import MemorySecrets

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


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


@pytest.mark.parametrize(
    "broken",
    ['{"local_only": tr', "[1, 2]", '"local_only"', '{"local_only": "no"}', '{"font_size": "big"}', "", "\xff"],
)
def test_a_settings_file_that_does_not_read_never_switches_local_only_off(tmp_path: Path, broken: str) -> None:
    """Cut short, a JSON list, a wrong type: local-only stays on if it was on, and the store says what happened
    (once, with a list, the app crashed and the command line connected to 10.0.0.1)."""
    store = SettingsStore(tmp_path, MemorySecrets())
    store.save(Settings(local_only=True, theme="dark"))
    store.path.write_text(broken, encoding="utf-8")
    loaded = store.load()
    assert loaded.local_only is True and store.problem and "settings.json" in store.problem
    store.save(Settings(local_only=False))  # the reader turns it off: then a broken file means off
    store.path.write_text(broken, encoding="utf-8")
    assert store.load().local_only is False and store.problem
    store.path.unlink()
    assert store.load() == Settings() and store.problem is None  # no file yet: defaults, nothing to say


def test_local_only_on_survives_the_settings_file_deleted(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path, MemorySecrets())
    store.save(Settings(local_only=True))
    store.path.unlink()
    assert store.load().local_only is True


def test_the_command_line_keeps_local_only_on_when_the_settings_do_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conftest import book_path

    from app.cli import main

    library = tmp_path / "lib"
    assert main(["import", str(book_path("en/epubjs-alice.epub")), "--library", str(library)]) == 0
    SettingsStore(library, MemorySecrets()).save(Settings(local_only=True))
    (library / "settings.json").write_text("[]", encoding="utf-8")
    capsys.readouterr()
    code = main(["index", "1", "--embedder", "openai:text-embedding-3-small", "--base-url", "https://10.0.0.1/v1",
                 "--library", str(library)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1 and "local-only" in err and "settings did not read" in err


def test_api_keys_go_to_the_secret_store_only(tmp_path: Path) -> None:
    secrets = MemorySecrets()
    store = SettingsStore(tmp_path, secrets)
    settings = store.load()
    config = ProviderConfig("deepseek", "deepseek-chat", temperature=0.5)
    store.set_provider(settings, config, "sk-never-in-a-file")
    assert "sk-never-in-a-file" not in store.path.read_text(encoding="utf-8")
    assert secrets.get("provider:deepseek") == "sk-never-in-a-file" and store.has_key(config)
    assert store.load().provider_config() == config


def test_a_saved_key_is_never_sent_to_another_endpoint(tmp_path: Path, monkeypatch) -> None:
    import pytest
    from httpkit import LocalServer, Reply

    from core.agent.connection import check_connection
    from core.errors import ProviderError

    monkeypatch.delenv("QUIRE_LLM_API_KEY", raising=False)
    secrets = MemorySecrets()
    store, settings = SettingsStore(tmp_path, secrets), Settings()
    models = Reply(200, {"data": [{"id": "m"}]})
    with LocalServer(lambda r: models) as owner, LocalServer(lambda r: models) as attacker:
        store.set_provider(settings, ProviderConfig("openai-compatible", "m", base_url=owner.url), "sk-owner-key")
        check_connection(settings.provider_config(), secrets)
        assert owner.requests[-1].headers["authorization"] == "Bearer sk-owner-key"
        # Someone at the settings screen types their own endpoint and presses Save, then Test connection.
        store.set_provider(settings, ProviderConfig("openai-compatible", "m", base_url=attacker.url), None)
        assert not store.has_key(settings.provider_config())  # the key field asks for it again
        with pytest.raises(ProviderError, match="enter the key again") as refused:
            check_connection(settings.provider_config(), secrets)
        assert "sk-owner-key" not in str(refused.value) and attacker.requests == []
        with pytest.raises(ProviderError, match="enter the key again"):
            from core.agent.providers import make_chat_model

            make_chat_model(settings.provider_config(), secrets)
        # Entering the key again for the new endpoint is a deliberate choice: then it goes there.
        store.set_provider(settings, ProviderConfig("openai-compatible", "m", base_url=attacker.url), "sk-new")
        check_connection(settings.provider_config(), secrets)
        assert attacker.requests[-1].headers["authorization"] == "Bearer sk-new"
    # A key set by hand (no endpoint recorded) is for the provider's own service only.
    secrets.set("provider:openai", "sk-by-hand")
    with pytest.raises(ProviderError, match=r"api\.openai\.com"):
        from core.agent.provider_config import api_key

        api_key(ProviderConfig("openai", "gpt-4o-mini", base_url="http://127.0.0.1:9/v1"), secrets)
    assert api_key(ProviderConfig("openai", "gpt-4o-mini"), secrets) == "sk-by-hand"
    store.set_embedding(settings, "openai", "text-embedding-3-small", "http://127.0.0.1:9/v1", "sk-embed")
    assert store.embedding_key("openai", "http://127.0.0.1:9/v1/") == "sk-embed"
    with pytest.raises(ProviderError, match="enter the key again"):
        store.embedding_key("openai", "https://embeddings.example/v1")


def test_the_settings_view_asks_its_controller_by_intents_and_draws_only_the_sections_offered(tmp_path: Path) -> None:
    """The view is drawn from one value (``SettingsScreen``) and posts typed intents: a switch changes the shared
    settings and asks for them to be saved, the back arrow asks to leave; it saves nothing itself, and a section the
    device does not offer (None) is not drawn."""
    store = SettingsStore(tmp_path, MemorySecrets())
    settings = store.load()
    posted: list[object] = []
    t = Translator("en")
    view = build_settings_screen(SettingsScreen(settings, store, t, posted.append))
    assert t("sync.title") not in texts(view) and t("dictionaries.title") not in texts(view)  # none offered here
    spoilers = next(c for c in _switches(view) if c.label == t("settings.spoilers"))
    assert spoilers.value is True
    spoilers.on_change(_Changed(False))
    assert settings.spoiler_protection is False and posted == [intents.Saved()]
    assert store.load().spoiler_protection is True  # the view saved nothing: its controller does, on Saved
    find(view, tooltip=t("library.title")).on_click(None)
    assert posted == [intents.Saved(), intents.Back()]


class _Changed:
    """A control's change event, as its handler reads it."""

    def __init__(self, value: object) -> None:
        self.control = type("Control", (), {"value": value})()


def _switches(view: object) -> list[ft.Switch]:
    return [c for c in walk(view) if isinstance(c, ft.Switch)]
