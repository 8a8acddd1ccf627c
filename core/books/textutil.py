"""Small text helpers shared by the format readers and search: CJK detection and display width."""

from __future__ import annotations

import re
import unicodedata

# Han ideographs (with extension A and compatibility), kana, Hangul syllables.
CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\u31f0-\u31ff\uac00-\ud7af"
CJK_CHAR = f"[{CJK_RANGES}]"
CJK_RUN = re.compile(f"{CJK_CHAR}+")


def is_cjk(char: str) -> bool:
    """True for a Han, kana or Hangul character."""
    return bool(re.match(CJK_CHAR, char))


def display_width(text: str) -> int:
    """Columns the text takes in a monospaced layout: wide (CJK, full-width) characters count 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among the non-space characters of ``text``."""
    chars = [ch for ch in text if not ch.isspace()]
    if not chars:
        return 0.0
    return sum(1 for ch in chars if is_cjk(ch)) / len(chars)


def guess_language(text: str) -> str:
    """A rough BCP 47 guess from the script of a sample: 'zh', 'ja', 'ko' or 'en'."""
    sample = text[:20000]
    kana = len(re.findall("[\u3040-\u30ff]", sample))
    hangul = len(re.findall("[\uac00-\ud7af]", sample))
    han = len(re.findall("[\u4e00-\u9fff]", sample))
    letters = len(re.findall("[A-Za-z]", sample))
    if kana > 50 and kana * 5 > han:
        return "ja"
    if hangul > 50:
        return "ko"
    if han > letters:
        return "zh"
    return "en"
