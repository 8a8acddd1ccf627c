"""Book text as data for the model: wrapped in ``<book_text>`` tags that nothing inside can open or close."""

from __future__ import annotations

import re
import unicodedata

_TAG_NAME = re.compile(r"book\s*_\s*text|(?<=[</])\s*book\W{0,3}text")  # the tag's name, or a look-alike in a tag


def _tag_name_spans(text: str) -> list[tuple[int, int]]:
    """Where ``book_text`` is written in ``text``, in any case, width or spacing, or split by invisible characters."""
    folded, origin = [], []  # the text as a model may read it, and where each folded character came from
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue  # zero-width and other format characters are invisible to a reader
        for piece in unicodedata.normalize("NFKC", char).casefold():
            folded.append(piece)
            origin.append(index)
    found = _TAG_NAME.finditer("".join(folded))
    return [(origin[m.start()], origin[m.end() - 1] + 1) for m in found]


def untrusted(text: str, inline: bool = False) -> str:
    """Book-derived text as data: inside <book_text> tags that nothing in the text can open or close."""
    spans = _tag_name_spans(text)
    for start, end in reversed(spans):
        text = text[:start] + "book-text" + text[end:]
    if inline:
        return f"<book_text>{' '.join(text.split())}</book_text>"
    return f"<book_text>\n{text}\n</book_text>"


def language_code(code: str) -> str:
    """A book's language tag as the model sees it: letters, digits and hyphens only (it comes from the book)."""
    return re.sub(r"[^A-Za-z0-9-]", "", code)[:35] or "unknown"
