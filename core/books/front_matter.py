"""Title and author where a plain-text or Markdown book says them: front matter, 《title》 lines, "作者：", "by …"."""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEYED = re.compile(r"^(title|author|书名|标题|题名|作者|著者|作\s*者)\s*[:：]\s*(.{1,80})$", re.I)
_BOOK_TITLE = re.compile(r"^《([^《》]{1,40})》$")  # a line that is only a title in book-title marks
_BY = re.compile(r"^by\s+([A-Z][\w.'\- ]{1,60})$")  # "by Lewis Carroll"
_WROTE = re.compile(r"^([\u4e00-\u9fff·]{2,8})\s*[著撰编]$")  # "鲁迅 著"
_NAME = re.compile(r"^[\u4e00-\u9fff·]{2,4}$")  # a byline under a 《title》 line: "鲁迅"
_TITLE_KEYS = {"title", "书名", "标题", "题名"}
FIRST_LINES = 15  # non-blank lines at the top where a title or byline may stand


@dataclass(frozen=True, slots=True)
class FrontMatter:
    title: str = ""
    author: str = ""
    lines: int = 0  # how many of the text's lines are front matter to leave out of the book's text (YAML)


def yaml_front_matter(lines: list[str]) -> FrontMatter:
    """Markdown's ``---`` block of ``key: value`` lines at the very top (only title and author are read)."""
    if not lines or lines[0].strip() != "---":
        return FrontMatter()
    found: dict[str, str] = {}
    for index, line in enumerate(lines[1:60], start=1):
        if line.strip() in ("---", "..."):
            return FrontMatter(found.get("title", ""), found.get("author", ""), index + 1)
        key, _, value = line.partition(":")
        if value.strip():
            found.setdefault(key.strip().lower(), value.strip().strip("\"'"))
    return FrontMatter()  # no closing line: a thematic break, not front matter


def front_matter(lines: list[str]) -> FrontMatter:
    """The title and author a text states in its first lines (empty where it states none)."""
    title = author = ""
    top = [line.strip(" \t\u3000") for line in lines[:200] if line.strip(" \t\u3000")][:FIRST_LINES]
    for index, line in enumerate(top):
        if keyed := _KEYED.match(line):
            key = re.sub(r"\s", "", keyed.group(1).lower())
            value = keyed.group(2).strip().strip("《》")
            if key in _TITLE_KEYS:
                title = title or value
            else:
                author = author or value
        elif (marked := _BOOK_TITLE.match(line)) and not title:
            title = marked.group(1).strip()
            following = top[index + 1] if index + 1 < len(top) else ""
            if not author and _NAME.match(following):
                author = following
        elif (by := _BY.match(line)) and not author:
            author = by.group(1).strip()
        elif (wrote := _WROTE.match(line)) and not author:
            author = wrote.group(1)
    return FrontMatter(title, author)
