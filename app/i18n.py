"""Interface strings in English and Chinese; the language follows the system unless the reader picks one."""

from __future__ import annotations

import locale
import os

LANGUAGES = ("en", "zh")

STRINGS: dict[str, dict[str, str]] = {
    "app.title": {"en": "Quire", "zh": "Quire"},
    "library.title": {"en": "Library", "zh": "书库"},
    "library.empty": {
        "en": "Your library is empty. Import a book to start reading.",
        "zh": "书库是空的。导入一本书开始阅读吧。",
    },
    "library.count.one": {"en": "{n} book", "zh": "{n} 本书"},
    "library.count.many": {"en": "{n} books", "zh": "{n} 本书"},
    "library.search": {"en": "Search titles and authors", "zh": "搜索书名和作者"},
    "library.sort.recent": {"en": "Recent", "zh": "最近"},
    "library.sort.title": {"en": "Title", "zh": "书名"},
    "library.sort.author": {"en": "Author", "zh": "作者"},
    "library.sort.progress": {"en": "Progress", "zh": "进度"},
    "library.import": {"en": "Import books", "zh": "导入图书"},
    "library.remove.confirm": {"en": "Remove “{title}” and its notes?", "zh": "删除《{title}》及其笔记？"},
    "library.unknown_author": {"en": "Unknown author", "zh": "佚名"},
    "library.warnings": {"en": "{n} import warning(s)", "zh": "{n} 条导入警告"},
    "library.new": {"en": "New", "zh": "未读"},
    "reader.toc": {"en": "Contents", "zh": "目录"},
    "reader.search": {"en": "Search in book", "zh": "书内搜索"},
    "reader.bookmark": {"en": "Bookmark", "zh": "书签"},
    "reader.highlight": {"en": "Highlight", "zh": "高亮"},
    "reader.note": {"en": "Note", "zh": "笔记"},
    "reader.percent": {"en": "{p}% read", "zh": "已读 {p}%"},
    "settings.title": {"en": "Settings", "zh": "设置"},
    "settings.theme": {"en": "Theme", "zh": "主题"},
    "settings.theme.system": {"en": "System", "zh": "跟随系统"},
    "settings.theme.light": {"en": "Light", "zh": "浅色"},
    "settings.theme.dark": {"en": "Dark", "zh": "深色"},
    "settings.theme.sepia": {"en": "Sepia", "zh": "护眼"},
    "settings.language": {"en": "Language", "zh": "语言"},
    "settings.font_size": {"en": "Font size", "zh": "字号"},
    "import.refused": {"en": "Could not import {name}: {reason}", "zh": "无法导入 {name}：{reason}"},
    "import.done": {"en": "Imported {title}", "zh": "已导入《{title}》"},
    "import.duplicate": {"en": "{title} is already in your library", "zh": "《{title}》已在书库中"},
}


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

    def count(self, n: int) -> str:
        """'1 book' / '3 books' (Chinese has no plural)."""
        return self("library.count.one" if n == 1 else "library.count.many", n=n)
