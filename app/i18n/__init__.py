"""Interface strings, a file per language (en.py, zh.py); the language follows the system unless the reader picks one."""

from __future__ import annotations

import locale
import os

from app.i18n.en import EN
from app.i18n.zh import ZH

LANGUAGES = ("en", "zh")

# Each key with its sentence in every language (the files per language hold the same keys).
STRINGS: dict[str, dict[str, str]] = {key: {"en": text, "zh": ZH[key]} for key, text in EN.items()}


def system_language(environ: dict[str, str] | None = None) -> str:
    """'zh' when the system speaks Chinese, else 'en'."""
    environ = dict(os.environ) if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    code = (locale.getlocale()[0] or "") if environ is os.environ else ""
    return "zh" if code.lower().startswith("zh") else "en"


class Translator:
    """Looks strings up in the reader's language, falling back to English, then to the key."""

    def __init__(self, language: str = "system") -> None:
        self.language = system_language() if language == "system" else language
        if self.language not in LANGUAGES:
            self.language = "en"

    def __call__(self, key: str, **values: object) -> str:
        entry = STRINGS.get(key)
        if entry is None:
            return key
        return entry.get(self.language, entry["en"]).format(**values)

    def error(self, error: BaseException) -> str:
        """A core error in the reader's language, by its type (the nearest translated base type).

        In English the core's own message follows, since it names the file or the endpoint; other languages get
        the translated sentence only, never English inside a Chinese interface.
        """
        return self.error_named(type(error).__name__, str(error))

    def error_named(self, name: str, detail: str = "", *, sentence_in_english: bool = True) -> str:
        """``error`` for an error known by its type's name (an answer's stored error part)."""
        from core import errors

        kind = getattr(errors, name, None)
        names = [k.__name__ for k in kind.__mro__] if isinstance(kind, type) else [name]
        key = next((f"error.{n}" for n in names if f"error.{n}" in STRINGS), "error.QuireError")
        detail = detail.strip()
        if self.language != "en" or not detail:
            return self(key)
        return f"{self(key)} ({detail})" if sentence_in_english else detail

    def count(self, n: int) -> str:
        """'1 book' / '3 books' (Chinese has no plural)."""
        return self("library.count.one" if n == 1 else "library.count.many", n=n)

    def plural(self, key: str, n: int) -> str:
        """``key`` with ``n``, in its ``.one`` form for one ("1 session", "3 sessions")."""
        return self(f"{key}.one" if n == 1 and f"{key}.one" in STRINGS else key, n=n)

    def duration(self, seconds: float) -> str:
        """'2 h 05 min', '12 min' or 'under a minute' (both languages)."""
        minutes = round(seconds / 60)
        if minutes < 1:
            return self("stats.under_minute")
        if minutes >= 60:
            return self("stats.hours", h=minutes // 60, m=f"{minutes % 60:02d}")
        return self("stats.minutes", m=minutes)
