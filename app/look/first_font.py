"""Makes the web client's first CJK font: the packaged Noto Sans CJK cut to what a first screen needs.

    python -m app.look.first_font    # rewrites assets/fonts/NotoSansCJK-SC-first.otf (run when interface strings change)

The full font (19 MB) loaded before the first frame made the browser's start twice a bare Flet app's. This cut
(1.6 MB) is what the engine loads before drawing: every character of the interface strings in both languages, the
3,500 most used Chinese characters (ranked by jieba's dictionary, its words' counts summed per character: 99.0% of
the characters of its corpus, 98.2% of 红楼梦's), kana, CJK and full-width punctuation, and Latin (drawn
from these fonts too, so it must not change when the full one comes). The full font follows after the first
frame as one of the page's fonts, behind this one in every fallback list, so a character drawn from the cut never
changes its shape when the full font arrives. Needs fontTools (a development dependency; the app only serves the
file). The face is the Simplified Chinese one (the collection's third).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from app.i18n import STRINGS
from app.look.fonts import ASSETS, CJK_FIRST_ASSET, cjk_font_file

COMMON_HANZI = 3500  # the size of the common tier of China's standard character list (通用规范汉字表)
SC_FACE = 2  # NotoSansCJK-Regular.ttc: JP, KR, SC, TC, HK, then the Mono faces
BLOCKS = (
    (0x0020, 0x017F),  # Latin, with its accents: the engine takes the fallback fonts before its default, so Latin
    # drawn from this cut at first paint would otherwise change to the full font's shapes when that arrives
    (0x2000, 0x206F),  # general punctuation: quotes, dashes, the ellipsis
    (0x3000, 0x30FF),  # CJK symbols and punctuation, hiragana, katakana
    (0xFE10, 0xFE19),  # vertical forms: ︑︒ for vertical text
    (0xFE30, 0xFE4F),  # CJK compatibility forms: ﹁﹂︵︶ and the rest of vertical punctuation
    (0xFF00, 0xFFEF),  # full-width forms
)


def characters() -> set[str]:
    """What the first font holds: the interface's characters, the most used Chinese characters, and the blocks."""
    wanted = {char for texts in STRINGS.values() for text in texts.values() for char in text if ord(char) > 0x7F}
    wanted.update(chr(code) for low, high in BLOCKS for code in range(low, high + 1))
    wanted.update(common_hanzi(COMMON_HANZI))
    return wanted


def common_hanzi(count: int) -> list[str]:
    """The ``count`` most used Chinese characters, by jieba's dictionary (each word's count added to its characters)."""
    import jieba

    uses: Counter[str] = Counter()
    dictionary = Path(jieba.__file__).parent / "dict.txt"
    for line in dictionary.read_text(encoding="utf-8").splitlines():
        word, number, *_ = line.split()
        for char in word:
            if "\u4e00" <= char <= "\u9fff":
                uses[char] += int(number)
    return [char for char, _ in uses.most_common(count)]


def make(target: Path = ASSETS / CJK_FIRST_ASSET) -> Path:
    """Cut the packaged font to :func:`characters` and write it to ``target``."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    source = cjk_font_file()
    if source is None:
        raise SystemExit("the noto-cjk-sans-otc package is not installed: pip install noto-cjk-sans-otc")
    font = TTFont(str(source), fontNumber=SC_FACE, lazy=True)
    options = subset.Options()
    options.layout_features = ["*"]  # vertical forms (vert) and the rest, for vertical text
    options.name_IDs = ["*"]
    options.hinting = False
    cutter = subset.Subsetter(options)
    cutter.populate(unicodes=sorted(ord(char) for char in characters()))
    cutter.subset(font)
    font.save(str(target))
    return target


if __name__ == "__main__":
    written = make()
    print(f"{written}: {written.stat().st_size:,} bytes", file=sys.stderr)
