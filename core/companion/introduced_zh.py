"""Chinese names a book introduces in so many words: 名唤袭人, 取名为李纨, 表字时飞, 有城曰阊门.

A Chinese novel names a person or a place the first time with a naming phrase (名唤, 名叫, 叫做, 乳名, 学名, 表字,
"，名", "，字", 叫他: 他的父亲叫他闰土) or a place with 曰 after a place word (有处曰姑苏). What follows up to the next punctuation, or 者, is
the name, whatever the tagger made of it (it cuts 袭人 into 袭/人者 and calls 封肃 an adjective and 元春 a time).
Such a name counts when the book then uses it again: every later use in the text read is a mention. Nothing here is
listed for a book; the phrases are the language's.
"""

from __future__ import annotations

import re
from collections import Counter

from core.companion import coined_zh
from core.companion.evidence import Row
from core.companion.names_zh import dictionary

_CUES = "叫他|叫她|名唤|名叫|名为|名曰|叫做|叫作|唤作|唤做|取名为|取名叫|取名|乳名|小名|学名|法名|表字|[，。；、]名|[，。；]字"
_PLACE_WORDS = "城|处|地|山|村|镇|街|巷|庙|寺|峰|崖|洞|府|州|县"
_NAMED = re.compile(
    rf"(?:(?P<cue>{_CUES})(?:唤作|唤做|叫作|叫做|就唤|唤|叫|作|为)?|(?P<place>{_PLACE_WORDS})曰|姓(?P<surname>[\u4e00-\u9fff])名)"
    r"(?P<name>[\u4e00-\u9fff]{1,4}?)(?=[，。、；：！？”’」』\s]|者)"
)
_MARKED = re.compile(r"《(?P<title>[\u4e00-\u9fff]{2,8})》|[“‘「『](?P<quoted>[\u4e00-\u9fff]{2,5})[”’」』]")
MAX_COMMON = 50  # a dictionary word more common than this after 名 is a word, not a name
MAX_TITLE = 1000  # a title in 《》 the dictionary counts more often than this is an everyday noun (《新生》)


def introductions(segments: list[tuple[int, int, int, str]]) -> dict[str, str]:
    """The names these segments (ordinal, section, index in section, text) introduce with a naming phrase, each with
    the tag its introduction gives it (``coined_zh.PLACE`` after a place word or with a place's ending, else
    ``coined_zh.PERSON``)."""
    counts, tags = dictionary()
    edges, _inner = coined_zh.function_characters()
    kinds: dict[str, str] = {}
    for _ordinal, _section, _idx, text in segments:
        for match in _NAMED.finditer(text):
            name = match["name"] if match["surname"] is None else match["surname"] + match["name"]
            place = match["place"] is not None or name[-1] in coined_zh.PLACE_ENDINGS
            common = counts.get(name, 0) > MAX_COMMON and match["place"] is None  # 有处曰姑苏: a place, however known
            if len(name) < 2 or name[0] in edges or name[-1] in edges or common:
                continue
            kinds.setdefault(name, coined_zh.PLACE if place else coined_zh.PERSON)
    return kinds | {name: tag for name, tag in _marked(segments, counts, tags, edges).items() if name not in kinds}


def _marked(
    segments: list[tuple[int, int, int, str]], counts: dict[str, int], tags: dict[str, str], edges: frozenset[str]
) -> dict[str, str]:
    """The terms the book marks as such: a title in 《》 (a book, a song: 《好了歌》, 《四书》), or a short phrase it
    quotes on its own twice at least (‘护官符’) holding no particle, pronoun or common verb (“易子而食” is a saying)
    and no dictionary word more common than ``MAX_COMMON`` (“姐姐” is an address); a place by its ending. A title that
    is an everyday word (《明天》, 《呐喊》, 《药》) is left out: its uses in the text are the word's."""
    titles: set[str] = set()
    quoted: Counter[str] = Counter()
    for _ordinal, _section, _idx, text in segments:
        for match in _MARKED.finditer(text):
            if match["title"] is not None:
                titles.add(match["title"])
            else:
                quoted[match["quoted"]] += 1
    titles = {t for t in titles if t not in counts or (tags.get(t, "n").startswith("n") and counts[t] <= MAX_TITLE)}
    quotes = {q for q, n in quoted.items() if n >= 2 and counts.get(q, 0) <= MAX_COMMON and not set(q) & edges}
    return {
        name: coined_zh.PLACE if name[-1] in coined_zh.PLACE_ENDINGS else coined_zh.TERM for name in titles | quotes
    }


def mentions(segments: list[tuple[int, int, int, str]], kinds: dict[str, str]) -> dict[str, list[Row]]:
    """Every use of these introduced names in the segments, as mention rows carrying the introduction's tag; a name
    used once only (its introduction) is left out."""
    if not kinds:
        return {}
    pattern = re.compile("|".join(sorted(map(re.escape, kinds), key=len, reverse=True)))
    found: dict[str, list[Row]] = {}
    for ordinal, section, idx, text in segments:
        for match in pattern.finditer(text):
            row = coined_zh.with_context(
                Row(ordinal, match.start(), match.group(), False, "", "", section, idx, 0), text
            )
            found.setdefault(match.group(), []).append(row._replace(before=f"{kinds[match.group()]}\t{row.before}"))
    return {name: rows for name, rows in found.items() if len(rows) >= 2}
