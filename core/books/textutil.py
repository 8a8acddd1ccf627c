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


# What may follow a sentence's last mark without being part of it: a footnote's marker (⑴, ①, [3], 〔3〕), a
# private-use character a converter left for one (its font's own glyph), the geta mark or U+FFFD standing in.
_MARKS_AT_END = re.compile(r"(?:[\ue000-\uf8ff〓\ufffd⑴-⒇①-⑳]|\[\d{1,3}\]|〔\d{1,3}〕)+$")


def without_marks_at_end(text: str) -> str:
    """The line without the note markers and stand-in characters at its end: “不去。”⑴ ends a sentence."""
    return _MARKS_AT_END.sub("", text.rstrip()).rstrip()


def display_width(text: str) -> int:
    """Columns the text takes in a monospaced layout: wide (CJK, full-width) characters count 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


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


# Titles and short forms after which a full stop does not end a sentence ("Mr. Holmes", "St. Paul's").
# Not "no": "…said no." ends far more sentences in novels than "No. 7" is found.
ABBREVIATIONS = frozenset((
    "mr", "mrs", "ms", "messrs", "dr", "st", "mt", "prof", "rev", "hon", "capt", "col", "gen", "lt", "sgt",
    "cpl", "maj", "adm", "gov", "sen", "rep", "jr", "sr", "esq", "vs", "viz", "vol", "vols", "chap", "fig",
    "pp", "approx", "dept", "inc", "ltd",
))  # fmt: skip
_WORD_BEFORE = re.compile(r"(?:^|(?<=[\s(\"'“‘]))([A-Za-z]+)$")


def abbreviation_stop(text: str, dot: int) -> bool:
    """Whether the full stop at ``text[dot]`` closes an abbreviation ("Mr.", "Dr.") or an initial ("J. Watson")
    rather than a sentence. A capital "I" alone is the pronoun ("…said I."), not an initial."""
    if text[dot : dot + 1] != "." or text[dot + 1 : dot + 2] == ".":
        return False
    word = _WORD_BEFORE.search(text, max(0, dot - 12), dot)
    if word is None:
        return False
    token = word.group(1)
    if len(token) == 1:
        return token.isupper() and token != "I"
    return token.lower() in ABBREVIATIONS


# Names Windows keeps for its devices, with any extension ("nul.txt" is the device too)
_DEVICES = re.compile(r"(?i)^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)")
NAME_BYTES = 150  # a file system's limit is 255 bytes a name: room left for " (123).md", ".sdr", ".partial"


def safe_file_name(title: str, fallback: str = "book") -> str:
    """A title usable as a file name on every platform: Chinese kept; path and reserved characters dropped; at most
    100 characters and ``NAME_BYTES`` bytes of UTF-8 (85 Chinese characters are 255 bytes); a Windows device name
    ("CON", "nul.txt") made safe with a leading underscore."""
    cleaned = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    name = re.sub(r"\s+", " ", cleaned)[:100].strip()
    while len(name.encode("utf-8", "surrogatepass")) > NAME_BYTES:
        name = name[:-1].rstrip(" .")
    name = name or fallback
    return f"_{name}" if _DEVICES.match(name) else name
