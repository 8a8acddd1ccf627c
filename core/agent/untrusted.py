"""Book text as data for the model: wrapped in ``<book_text>`` tags that nothing inside can open or close.

A look-alike of the tag is found however it is written: any case or width, split by invisible characters or
variation selectors, or spelt with letters from other scripts that look the same (Cyrillic о, Greek ο, small
capital ᴏ: Unicode's confusables, from the confusable-homoglyphs package's copy of them). Chat-template control
tokens (``<|im_end|>``, ``[INST]``…) are broken up, so no text in a book can end the turn it is part of.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

_TAG_NAME = re.compile(r"book\s*_\s*text|(?<=[</])\s*book\W{0,3}text")  # the tag's name, or a look-alike in a tag
_INVISIBLE = ("Cf", "Mn", "Me")  # format characters, variation selectors and other marks a reader does not see
_CONTROL_TOKENS = re.compile(r"<\|[^<>|\s]{1,40}\|>|\[/?(?:INST|SYS)\]|<</?SYS>>|</?s>", re.IGNORECASE)


_LETTER_NAMED = re.compile(  # a Latin letter by its name, however small, raised, lowered or capitalised
    r"^LATIN (?:LETTER SMALL CAPITAL|SMALL CAPITAL LETTER|SUBSCRIPT SMALL LETTER|SMALL LETTER|CAPITAL LETTER|LETTER)"
    r" ([A-Z])\b|^MODIFIER LETTER (?:SMALL|CAPITAL) ([A-Z])\b"
)
_LATIN_LOOKALIKES = (range(0x80, 0x3000), range(0xA700, 0xAC00), range(0x1DF00, 0x1E100))


@functools.cache
def _skeleton() -> dict[str, str]:
    """Each non-ASCII character that Unicode lists as confusable with one ASCII letter or digit, and that letter;
    then every other Latin letter by its name (the confusables list leaves out most small capitals: ʙ, ᴋ, ᴛ, ᴇ)."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    table: dict[str, str] = {}
    for char, entries in data.items():
        ascii_ = {h["c"].lower() for h in entries if h["c"].isascii() and h["c"].isalnum()}
        if not char.isascii() and len(ascii_) == 1:
            table[char] = ascii_.pop()
    for block in _LATIN_LOOKALIKES:
        for point in block:
            char = chr(point)
            if char not in table and (named := _LETTER_NAMED.match(unicodedata.name(char, ""))):
                table[char] = (named.group(1) or named.group(2)).lower()
    return table


def _tag_name_spans(text: str) -> list[tuple[int, int]]:
    """Where ``book_text`` is written in ``text``, in any case, width, script or spacing, or split by invisible
    characters."""
    skeleton = _skeleton()
    folded, origin = [], []  # the text as a model may read it, and where each folded character came from
    for index, char in enumerate(text):
        if unicodedata.category(char) in _INVISIBLE:
            continue  # zero-width characters, variation selectors and marks are invisible to a reader
        for piece in unicodedata.normalize("NFKC", char).casefold():
            folded.append(skeleton.get(piece, piece))
            origin.append(index)
    found = _TAG_NAME.finditer("".join(folded))
    return [(origin[m.start()], origin[m.end() - 1] + 1) for m in found]


def untrusted(text: str, inline: bool = False) -> str:
    """Book-derived text as data: inside <book_text> tags that nothing in the text can open or close."""
    spans = _tag_name_spans(text)
    for start, end in reversed(spans):
        text = text[:start] + "book-text" + text[end:]
    text = _CONTROL_TOKENS.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›").replace("[", "⟦"), text)
    if inline:
        return f"<book_text>{' '.join(text.split())}</book_text>"
    return f"<book_text>\n{text}\n</book_text>"


def language_code(code: str) -> str:
    """A book's language tag as the model sees it: letters, digits and hyphens only (it comes from the book)."""
    return re.sub(r"[^A-Za-z0-9-]", "", code)[:35] or "unknown"
