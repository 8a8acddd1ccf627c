"""Every interface string exists in English and Chinese; the language follows the system."""

import re

from app.i18n import LANGUAGES, STRINGS, Translator, system_language


def test_every_string_has_every_language_and_the_same_placeholders() -> None:
    for key, entry in STRINGS.items():
        assert set(entry) == set(LANGUAGES), key
        placeholders = {lang: set(re.findall(r"{(\w+)}", text)) for lang, text in entry.items()}
        assert placeholders["en"] == placeholders["zh"], key


def test_language_follows_the_system_and_can_be_chosen() -> None:
    assert system_language({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert system_language({"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert Translator("zh")("library.title") == "书库"
    assert Translator("en").count(1) == "1 book" and Translator("en").count(3) == "3 books"
    assert Translator("zh").count(3) == "3 本书"
    assert Translator("fr")("library.title") == "Library"  # unknown language: English
    assert Translator("en")("no.such.key") == "no.such.key"
