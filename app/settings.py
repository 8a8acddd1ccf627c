"""Reader and AI settings, saved as JSON in the app's data folder; API keys only in the secret store."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args

from core import (
    DEFAULT_BASE_URLS,
    DEFAULT_SPEECH_RATE,
    PROVIDERS,
    REMOTE_EMBEDDERS,
    ProviderConfig,
    QuireError,
    secret_name,
    store_key,
    stored_key,
)
from platform_adapters.base import SecretStore

Theme = Literal["system", "light", "dark", "sepia"]
Layout = Literal["scroll", "paginated"]
Writing = Literal["book", "vertical", "horizontal"]  # Chinese and Japanese books: as set, upright columns, lines
WRITINGS: tuple[Writing, ...] = get_args(Writing)
FontFamily = Literal["serif", "sans-serif", "monospace"]
THEMES: tuple[Theme, ...] = get_args(Theme)
LAYOUTS: tuple[Layout, ...] = get_args(Layout)
FONTS: tuple[FontFamily, ...] = get_args(FontFamily)


@dataclass
class Settings:
    """Everything the reader can choose. Unknown or broken values fall back to the defaults."""

    theme: Theme = "system"
    language: str = "system"
    font_size: int = 18
    line_height: float = 1.6
    margins: int = 24
    font_family: FontFamily = "serif"
    layout: Layout = "scroll"
    spoiler_protection: bool = True
    auto_index: bool = False
    keep_screen_on: bool = True  # phones: the screen stays on while a book is open
    haptic_page_turns: bool = False  # phones: a light tick on each page turn
    pdf_page_view: bool = False  # text PDFs open showing their pages as printed (where pages can be drawn)
    writing: Writing = "book"  # Chinese and Japanese: vertical columns as the book says, always, or never
    name_links: bool = False  # the names X-Ray knows up to the furthest place are underlined; a tap opens their card
    local_only: bool = False
    speech_rate: int = DEFAULT_SPEECH_RATE  # read-aloud: words a minute
    speech_voice: str = ""  # read-aloud: a system voice's id ("": the book's language's default voice)
    translate_to: str = ""  # translations: a language code ("": the app's language; English for a book in it)
    vault_folder: str = ""  # the Obsidian vault the notes screen last exported to
    koreader_folder: str = ""  # the folder KOReader's books are in (Settings › Highlights elsewhere)
    provider: dict[str, Any] = field(default_factory=dict)  # a ProviderConfig without its key
    embedding: dict[str, Any] = field(
        default_factory=dict
    )  # {} on-device by language, or {"kind", "model", "base_url"}

    def clamp(self) -> Settings:
        """Bring every value into its allowed range."""
        defaults = Settings()
        self.theme = self.theme if self.theme in THEMES else defaults.theme
        self.language = self.language if self.language in ("system", "en", "zh") else defaults.language
        self.layout = self.layout if self.layout in LAYOUTS else defaults.layout
        self.writing = self.writing if self.writing in WRITINGS else defaults.writing
        self.font_family = self.font_family if self.font_family in FONTS else defaults.font_family
        self.font_size = int(min(max(self.font_size, 10), 40))
        self.line_height = float(min(max(self.line_height, 1.0), 2.5))
        self.margins = int(min(max(self.margins, 0), 120))
        self.speech_rate = int(min(max(self.speech_rate, 80), 450))
        self.translate_to = self.translate_to if re.fullmatch(r"[a-z]{2,3}", self.translate_to or "") else ""
        if self.provider and self.provider.get("kind") not in PROVIDERS:
            self.provider = {}
        if self.embedding and (self.embedding.get("kind") not in REMOTE_EMBEDDERS or not self.embedding.get("model")):
            self.embedding = {}
        return self

    @property
    def remote_embedder(self) -> tuple[str, str] | None:
        """('kind:model', base_url) of the remote embedding endpoint, or None for on-device models."""
        if not self.embedding:
            return None
        kind = self.embedding["kind"]
        return f"{kind}:{self.embedding['model']}", self.embedding.get("base_url") or REMOTE_EMBEDDERS[kind]

    def provider_config(self) -> ProviderConfig | None:
        """The chosen AI provider, or None (then answers come from search alone)."""
        if not self.provider:
            return None
        known = {f.name for f in fields(ProviderConfig)}
        return ProviderConfig(**{k: v for k, v in self.provider.items() if k in known})


LOCAL_ONLY_MARK = "local-only.on"  # beside settings.json while local-only is on: survives a settings file lost


class SettingsStore:
    """Loads and saves Settings atomically; keys go to the SecretStore, never into the file."""

    def __init__(self, folder: Path, secrets: SecretStore) -> None:
        self.path = Path(folder) / "settings.json"
        self.mark = Path(folder) / LOCAL_ONLY_MARK
        self.secrets = secrets
        self.problem: str | None = None  # set by load when the file was there but did not read

    def load(self) -> Settings:
        """The saved settings; defaults where the file is missing or unreadable, except that local-only stays on
        if it was on (``problem`` then says the file did not read)."""
        self.problem = None
        safe = Settings(local_only=self.mark.exists())
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return safe
        except (OSError, ValueError) as error:
            return self._unreadable(safe, str(error))
        try:
            raw = json.loads(text)
        except (ValueError, RecursionError):
            return self._unreadable(safe, "it is not JSON (cut short?)")
        if not isinstance(raw, dict):
            return self._unreadable(safe, "it is not a settings object")
        known = {f.name for f in fields(Settings)}
        try:
            settings = Settings(**{k: v for k, v in raw.items() if k in known}).clamp()
        except (TypeError, ValueError, AttributeError):
            return self._unreadable(safe, "a value in it has the wrong type")
        if not isinstance(raw.get("local_only", False), bool):
            return self._unreadable(safe, "its local-only value is not true or false")
        settings.local_only = settings.local_only or safe.local_only
        return settings

    def _unreadable(self, safe: Settings, why: str) -> Settings:
        self.problem = f"{self.path.name}: {why}"
        return safe

    def save(self, settings: Settings) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if settings.local_only:  # first the mark, so that no moment has local-only on in neither place
            self.mark.touch()
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(settings.clamp()), ensure_ascii=False, indent=2), encoding="utf-8")
        os.replace(temporary, self.path)
        if not settings.local_only:
            self.mark.unlink(missing_ok=True)
        self.problem = None

    def set_provider(self, settings: Settings, config: ProviderConfig, api_key: str | None) -> None:
        """Choose a provider; its key (if given) goes to the secret store only."""
        settings.provider = asdict(config)
        if api_key:
            store_key(self.secrets, config.secret_name, api_key, config.url)
        self.save(settings)

    def set_embedding(self, settings: Settings, kind: str, model: str, base_url: str, api_key: str | None) -> None:
        """Use a remote embedding endpoint (kind 'openai' or 'ollama'), or on-device models when kind is ''."""
        settings.embedding = {"kind": kind, "model": model, "base_url": base_url} if kind else {}
        if kind and api_key:
            store_key(self.secrets, secret_name("embedding", kind), api_key, base_url or REMOTE_EMBEDDERS[kind])
        self.save(settings)

    def embedding_key(self, kind: str, base_url: str) -> str | None:
        """The remote embedder's key, only for the endpoint it was saved for (ProviderError otherwise)."""
        return stored_key(self.secrets, secret_name("embedding", kind), base_url, REMOTE_EMBEDDERS.get(kind, ""))

    def has_key(self, config: ProviderConfig) -> bool:
        """Whether a key is stored for this provider's endpoint (the settings screen shows only this, never the key).

        A key saved for another endpoint does not count: the field asks for the key again.
        """
        try:
            return bool(
                stored_key(self.secrets, config.secret_name, config.url, DEFAULT_BASE_URLS.get(config.kind, ""))
            )
        except QuireError:  # no usable keyring, or a key for another endpoint: as good as no key here
            return False
