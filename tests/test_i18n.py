"""Every interface string exists in English and Chinese; the language follows the system."""

import re

from app.i18n import LANGUAGES, STRINGS, Translator, system_language
from app.i18n.en import EN
from app.i18n.zh import ZH


def test_every_string_has_every_language_and_the_same_placeholders() -> None:
    assert set(EN) == set(ZH), set(EN) ^ set(ZH)  # a file per language, the same keys in each
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


def test_every_core_error_is_worded_in_each_language_by_its_type(tmp_path) -> None:
    """The UI words core errors itself: a Chinese reader never gets the core's English message."""
    import inspect

    import core.errors
    from core.services import Quire

    kinds = [k for _, k in inspect.getmembers(core.errors, inspect.isclass) if issubclass(k, core.errors.QuireError)]
    assert {f"error.{k.__name__}" for k in kinds} <= set(STRINGS)  # a new error type needs its sentence
    bad = tmp_path / "broken.epub"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    quire = Quire(tmp_path / "library")
    [result] = quire.import_paths([bad])
    quire.close()
    assert isinstance(result.error, core.errors.BookFormatError)
    assert result.to_dict()["error_type"] == "BookFormatError"
    zh, en = Translator("zh").error(result.error), Translator("en").error(result.error)
    assert zh == STRINGS["error.BookFormatError"]["zh"] and not re.search(r"[A-Za-z]{3,}", zh)
    assert en.startswith(STRINGS["error.BookFormatError"]["en"]) and str(result.error) in en  # names the problem
    drm = Translator("zh").error(core.errors.DrmProtectedError("encrypted"))  # its own sentence, not its base's
    assert drm == STRINGS["error.DrmProtectedError"]["zh"]
    stored = Translator("zh").error_named("EmbeddingProviderError", "401 from host")  # an answer's error part
    assert stored == STRINGS["error.EmbeddingProviderError"]["zh"]
    assert Translator("zh").error_named("NoSuchError", "x") == STRINGS["error.QuireError"]["zh"]
