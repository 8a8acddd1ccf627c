"""Names as a Chinese book writes them: words jieba's tagger marks as people, places and proper terms, per segment.

jieba (MIT, pure Python) cuts the text into words and tags them: ``nr`` people, ``ns`` places, ``nz`` other
proper names, and words missing from its dictionary that its HMM joined (凤姐, 黛玉, 闰土 are not in it). Its tags
are rough (明白 and 冷笑 are ``nr`` in its dictionary), so each mention keeps how common the word is in general
use (its dictionary count): X-Ray keeps a common word only when the book uses it far more often than usual, judged
from the mentions before the place alone (``core.companion.xray``). A surname or a name followed by a kinship word
or a title becomes one name (赵 + 太爷, 七斤 + 嫂, 单四 + 嫂子), and 阿Ｑ, 小Ｄ, Ｎ先生 are names.

jieba ships only as a source package, and ``flet build`` installs binary wheels only, so phones have no tagger:
there ``available()`` is False and X-Ray says Chinese names are not found on this device.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

# Titles that follow a name and are the same person's (赵太爷, 陈莲河先生, 林姑娘), and kinship words that follow
# one and make another person of it: his wife, his mother (七斤嫂 is 七斤's wife, 赵太太 not 赵太爷).
_HONORIFICS = "君 太爷 老爷 大爷 七爷 二爷 大叔 先生 公公 秀才 举人 姑娘 小姐 老爹"
HONORIFICS = frozenset(_HONORIFICS.split(" "))
_KINSHIP = "大妈 大娘 二嫂 嫂子 嫂 老太 奶奶 太太 夫人 姨妈 姥姥 嬷嬷 妈"
TITLE_WORDS = HONORIFICS | frozenset(_KINSHIP.split(" "))
# The common surnames (of the Hundred Family Surnames): a name of three characters may be one and a given name.
SURNAMES = frozenset("赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章云苏潘葛奚范彭郎"
                     "鲁韦昌马苗凤花方俞任袁柳酆鲍史唐费廉岑薛雷贺倪汤滕殷罗毕郝邬安常乐于时傅皮卞齐康伍余元卜顾孟平"
                     "黄和穆萧尹姚邵湛汪祁毛禹狄米贝明臧计伏成戴谈宋茅庞熊纪舒屈项祝董梁杜阮蓝闵席季麻强贾路娄危江童"
                     "颜郭梅盛林刁钟徐邱骆高夏蔡田樊胡凌霍虞万支柯管卢莫经房裘缪干解应宗丁宣邓郁单杭洪包诸左石崔吉"
                     "钮龚程嵇邢滑裴陆荣翁荀羊惠甄曲家封芮羿储靳汲邴糜松井段富巫乌焦巴弓牧隗山谷车侯宓蓬全郗班仰秋"
                     "仲伊宫宁仇栾暴甘厉戎祖武符刘景詹束龙叶幸司韶郜黎蓟薄印宿白怀蒲邰从鄂索咸籍赖卓蔺屠蒙池乔阴胥"
                     "能苍双闻莘党翟谭贡劳姬申扶堵冉宰郦雍桑桂濮牛寿通边扈燕冀浦尚农温别庄晏柴瞿阎充慕连茹习宦艾鱼"
                     "容向古易慎戈廖庾终暨居衡步都耿满弘匡国文寇广禄阙东欧沃利蔚越夔隆师巩聂晁勾敖融冷辛阚那简饶空"
                     "曾沙养鞠须丰巢关蒯相查荆红游竺权逯盖益桓公")  # fmt: skip
_TAGS = frozenset(("nr", "nrfg", "nrt", "ns", "nz"))
_LEAD = frozenset("这从但招因与同叫将把被对给问见是那向和跟连")  # a word jieba glued before a name (那宝玉)
_TRAIL = frozenset("道笑忙听说依隐问叹便又也因等")  # a verb jieba glued after a name (贾政道, 黛玉忙)
_RANKED = re.compile(r"[大二三四五六七八九十]爷")  # a man by his rank among brothers (三爷, 七爷)
_PEOPLE = frozenset(("nr", "nrfg", "nrt"))
_GIVEN = frozenset(("nr", "nrfg", "nz"))  # what the tagger makes of a given name cut from its surname
_NUMERALS = frozenset("一二三四五六七八九十")
_RARE = 50  # a number word used less than this in the dictionary's corpus may be a name (七斤: 7; 一个: 1.4 million)
_NAME_CHAR = re.compile(r"[\u3400-\u9fffＡ-Ｚ]")
_LETTER = re.compile(r"[Ａ-ＺA-Z]")
SPEECH = frozenset(("道", "说", "说道", "笑道", "问道", "答道", "叹道", "冷笑", "笑", "问", "听了", "忙", "便"))


@dataclass(frozen=True, slots=True)
class ChineseMention:
    """A word tagged as a name in a segment: where, as written, its tag, the word after it, and its dictionary
    count (0: not in the dictionary, so most likely a name the book coined)."""

    start: int
    name: str
    tag: str
    after: str
    common: int
    previous: str = ""  # the word before it: 在 and 到 say a place, 叫 a person

    @property
    def before(self) -> str:
        """The tag and the word before, as X-Ray stores them ("ns\t到")."""
        return f"{self.tag}\t{self.previous}"


@cache
def _tagger() -> tuple[Any, dict[str, int], int] | None:
    """jieba's part-of-speech cutter, its word counts and their total; None where jieba is not installed."""
    try:
        import jieba
        import jieba.posseg
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba.posseg.cut, jieba.dt.FREQ, jieba.dt.total


def available() -> bool:
    """Whether Chinese names can be found on this device (jieba installed: computers, not phones)."""
    return _tagger() is not None


def dictionary() -> tuple[dict[str, int], dict[str, str]]:
    """The general dictionary's word counts and each word's tag (empty where jieba is not installed)."""
    tagger = _tagger()
    if tagger is None:
        return {}, {}
    import jieba.posseg

    return tagger[1], jieba.posseg.dt.word_tag_tab


def dictionary_total() -> int:
    """The sum of the dictionary's word counts (to compare a word's share of the book with its usual share)."""
    tagger = _tagger()
    return tagger[2] if tagger is not None else 1


def chinese_mentions(text: str) -> list[ChineseMention]:
    """Every word of a segment that jieba tags as a name (joined with a following title), cleaned of glued words."""
    if not _NAME_CHAR.search(text):
        return []  # no Chinese here: jieba is not even loaded
    tagger = _tagger()
    if tagger is None:
        return []
    cut, counts, _ = tagger
    words = [(word, tag) for word, tag in cut(text)]
    found: list[ChineseMention] = []
    position = 0
    i = 0
    while i < len(words):
        word, tag = words[i]
        start = position
        nxt = words[i + 1][0] if i + 1 < len(words) else ""
        joined = 1
        nxt_tag = words[i + 1][1] if i + 1 < len(words) else ""
        if nxt in TITLE_WORDS and (tag in _TAGS or (tag == "m" and len(word) >= 2)) and _is_name_text(word):
            word, tag, joined = word + nxt, "nr", 2  # 赵太爷, 七斤嫂, 单四嫂子
        elif word in SURNAMES and (nxt in HONORIFICS or _RANKED.fullmatch(nxt)) and tag[:1] in ("n", "t"):
            word, tag, joined = word + nxt, "nr", 2  # 钱/n 太爷, 夏/t 三爷: a surname the tagger took for a word
        elif word in SURNAMES and tag in _PEOPLE and nxt_tag in _GIVEN and len(nxt) <= 2 and _is_name_text(nxt):
            word, tag, joined = word + nxt, "nr", 2  # 赵/nr 司晨/nr, 徐/nr 锡林/nz: a surname, then a given name
        elif word in ("阿", "小") and _LETTER.fullmatch(nxt or " "):
            word, tag, joined = word + nxt, "nr", 2  # 阿Ｑ, 小Ｄ
        elif _LETTER.fullmatch(word) and nxt == "先生":
            word, tag, joined = word + nxt, "nr", 2  # Ｎ先生
        for piece, _ in words[i : i + joined]:
            position += len(piece)
        i += joined
        after = words[i][0] if i < len(words) else ""
        previous = words[i - joined - 1][0] if i - joined - 1 >= 0 else ""
        mention = _mention(start, word, tag, after, counts, previous)
        if mention is not None:
            found.append(mention)
    return found


def _is_name_text(word: str) -> bool:
    return all(_NAME_CHAR.match(ch) for ch in word)


def _mention(
    start: int, word: str, tag: str, after: str, counts: dict[str, int], previous: str = ""
) -> ChineseMention | None:
    if len(word) < 2 or not _is_name_text(word):
        return None
    known = word in counts
    numbered = tag == "m" and len(word) == 2 and word[0] in _NUMERALS and counts.get(word, 0) < _RARE
    if tag not in _TAGS and (known or not tag.startswith("n")) and not numbered:
        return None  # not a name's tag, not a word the HMM coined as a noun, nor a rare number (七斤, 六斤)
    while len(word) > 2 and word[0] in _LEAD:
        previous, word, start = previous + word[0], word[1:], start + 1
    while len(word) > 2 and word[-1] in _TRAIL:
        after, word = word[-1] + after, word[:-1]
    return ChineseMention(start, word, tag, after, counts.get(word, 0), previous)
