"""Names a Chinese book coins that the tagger misses: strings it repeats with free edges and a name's shape.

jieba tags a name it has never seen only when its model happens to join it (赵白眼 is 赵 + 白眼, 六斤 is a number
and a weight, 三太太 a number and a wife), so half of a story's people and places never reach X-Ray. This is the
classic way to find a corpus's new words, done on the book read so far: every run of two to four Chinese characters
the book repeats, whose neighbours on each side vary (a word's edges are free; 单四 is always followed by 嫂, so it is
part of 单四嫂子), that is no word of the general dictionary and starts and ends on no function word (的, 了, 也, 他).
Of those, a name is what has a name's shape in Chinese: a title or kinship word after it (赵太爷, 杨二嫂), a place's
ending (狼子村, 静修庵), 阿 or 儿 (阿五, 宏儿), or a surname the tagger split off (陈士成 as 陈/士/成) followed or led by
what people do (道, 说, 叫 before). Nothing is listed for any book; the thresholds are the same everywhere.

Hand-written rather than taken from a library: the word-discovery packages on PyPI read a whole corpus at once,
while X-Ray must count only the text before the reader's place, so this runs on exactly that text.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import cache
from itertools import chain, compress

from core.companion.evidence import Row
from core.companion.names_zh import SURNAMES, TITLE_WORDS, dictionary

_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
LENGTHS = (2, 3, 4)
EDGE_SHARE = 0.5  # a side's commonest neighbour may follow or lead at most this share of the uses
PLACE_ENDINGS = frozenset("府城州庄镇村寺庵院园祠山峰庙县京湖江河桥街巷楼阁殿宫崖洞店馆")
# What a person does right after the name, or what leads to one: speech, a glance, 叫 and 对 before.
_DEEDS = frozenset("道说笑问叫答哭想听看见走跑站坐忙喊骂")
_PERSON_BEFORE = frozenset(
    ("被", "叫", "名叫", "叫做", "唤", "名唤", "对", "向", "问", "告诉", "请", "跟", "同", "和", "与")
)
# The tags coined names carry: their shape says their kind, so X-Ray takes it as said (jieba's own nr and ns are
# guesses it weighs against the words around).
PERSON, PLACE, TERM = "nr-shape", "ns-shape", "nz-shape"
_NUMBER_LEADS = frozenset("一两几多第每各某")  # 一个人, 两碗酒: counts, never a name's first character


@cache
def function_characters() -> tuple[frozenset[str], frozenset[str]]:
    """The characters no name starts or ends on (particles, pronouns, prepositions, adverbs, conjunctions, the
    commonest verbs and measure words, by the dictionary's own tags and counts), and those none holds at all (the
    particles and pronouns: 的, 了, 着, 他)."""
    counts, tags = dictionary()
    edges = {
        w
        for w, n in counts.items()
        if len(w) == 1
        and (
            tags.get(w, "x")[:1] in "uprcdyeokf"
            or (tags.get(w) == "v" and n >= 20000)
            or (tags.get(w) == "a" and n >= 60000)
            or (tags.get(w) in ("q", "m") and n >= 100000)
        )
    }
    inner = {w for w in edges if tags.get(w, "x")[:1] in "uyr"}
    return frozenset(edges | _NUMBER_LEADS), frozenset(inner)


def coined_names(segments: list[tuple[int, int, int, str]], known: set[str]) -> dict[str, list[Row]]:
    """The names coined by the book in these segments (ordinal, section, index in section, text), each with its
    mention rows, leaving out the words the tagger already found (``known``)."""
    counts, tags = dictionary()
    edges, inner = function_characters()
    runs: list[tuple[int, int, int, int, str]] = []
    for ordinal, section, idx, text in segments:
        for match in _RUN.finditer(text):
            start = match.start()
            for piece in _splitter(inner).split(match.group()):
                if len(piece) >= 2 and piece[0] not in inner:
                    runs.append((ordinal, section, idx, start, piece))
                start += len(piece)
    seen = Counter(chain.from_iterable(_pieces(run, n) for *_, run in runs for n in LENGTHS))
    shapes = {
        s: shape for s, c in seen.items()
        if c >= 2 and s[0] not in edges and s not in counts and s not in known and (s[-1] not in edges or _titled(s))
        and (shape := _shape(s, counts, tags)) is not None
    }  # fmt: skip
    wanted = shapes.keys()
    left: dict[str, Counter[str]] = defaultdict(Counter)
    right: dict[str, Counter[str]] = defaultdict(Counter)
    found: dict[str, list[Row]] = defaultdict(list)
    for ordinal, section, idx, start, run in runs:
        for n in LENGTHS:
            pieces = _pieces(run, n)
            for i in compress(range(len(pieces)), map(wanted.__contains__, pieces)):  # the few wanted, found in C
                s = pieces[i]
                left[s][run[i - 1] if i else ""] += 1
                titled = i + n < len(run) and _titled(run[i + n : i + n + 3], alone=True)
                right[s][run[i + n] if i + n < len(run) and not titled else ""] += 1  # 爱罗先珂君: a title ends it
                found[s].append(Row(ordinal, start + i, s, False, "", "", section, idx, 0))
    texts = {ordinal: text for ordinal, _section, _idx, text in segments}
    names: dict[str, list[Row]] = {}
    for s, rows in found.items():
        if not (_free(left[s]) and _free(right[s])):
            continue
        rows = [with_context(r, texts.get(r.ordinal, "")) for r in rows]
        tag = shapes[s]
        if tag == "surname":  # 赵白眼: a surname and a given name, when the book shows a person
            tag = PERSON if _acts(rows) else ""
        if tag:
            names[s] = [r._replace(before=f"{tag}\t{r.before}") for r in rows]
    # 住在未庄, 陈老五赶: a name with a word glued on, used less often than the name alone
    for s in sorted(names, key=len, reverse=True):
        inside = [k for k in (*names, *known) if len(k) < len(s) and (s.endswith(k) or s.startswith(k))]
        if any(len(found.get(k, ())) > len(names[s]) or k in known for k in inside):
            del names[s]
    return names


_TITLE_AFTER = re.compile(".(?:" + "|".join(sorted(TITLE_WORDS, key=len, reverse=True)) + ")$")
_TITLE_OPENS = re.compile("|".join(sorted(TITLE_WORDS, key=len, reverse=True)))


def _pieces(run: str, n: int) -> list[str]:
    """Every piece of ``n`` characters of a run, in order (sliced in C: this is the hot loop on a long novel)."""
    return list(map(run.__getitem__, map(slice, range(len(run) - n + 1), range(n, len(run) + 1))))


@cache
def _splitter(inner: frozenset[str]) -> re.Pattern[str]:
    return re.compile(f"([{''.join(sorted(inner))}])")


def _titled(text: str, alone: bool = False) -> bool:
    """Whether text ends with a title or kinship word after a name (三太太), or (``alone``) opens with one (君)."""
    return bool(_TITLE_OPENS.match(text)) if alone else _TITLE_AFTER.search(text) is not None


def _free(neighbours: Counter[str]) -> bool:
    """Whether a side's neighbours vary: two at least (each edge of text counts as its own), and no one character
    beside more than EDGE_SHARE of the uses."""
    top = max((n for ch, n in neighbours.items() if ch), default=0)
    kinds = len([ch for ch in neighbours if ch]) + neighbours.get("", 0)
    return kinds >= 2 and top <= EDGE_SHARE * sum(neighbours.values())


def with_context(row: Row, text: str) -> Row:
    """The row with the two characters before it and the word after it (a deed's word when one follows)."""
    end = row.start + len(row.name)
    after = text[end : end + 2]
    return row._replace(
        before=text[max(0, row.start - 2) : row.start], after=after if after in ("说道", "笑道", "问道") else after[:1]
    )


def _shape(name: str, counts: dict[str, int], tags: dict[str, str]) -> str | None:
    """The tag a word earns by a name's shape alone (PERSON, PLACE, "surname": a person when the book
    shows one doing something), or None when it has none."""
    title = _TITLE_AFTER.search(name)
    if title is not None:
        head = name[: title.start() + 1]
        role = head in counts and tags.get(head, "n") == "n" and len(head) >= 2  # 举人老爷: a rank, not a name
        return None if role else PERSON  # 赵太爷, 杨二嫂, 六一公公
    if name[-1] in PLACE_ENDINGS and (len(name) >= 3 or name[0] in SURNAMES):
        return PLACE  # 狼子村, 静修庵; 赵庄
    if (
        (name[0] in "阿老小" and len(name) == 2)
        or (name[0] == "阿" and len(name) == 3)
        or (name[-1] == "儿" and len(name) <= 3)
    ):
        return PERSON  # 阿五, 老拱, 小栓, 宏儿, 迅哥儿
    return "surname" if name[0] in SURNAMES and len(name) <= 3 else None


def _acts(rows: list[Row]) -> bool:
    """Whether a use reads like a person's: a deed or words after it (陈老五赶上前 is not; 陈老五道 is), 叫 before it."""
    return any(r.after[:1] in _DEEDS or r.before in _PERSON_BEFORE or r.before[-1:] in _PERSON_BEFORE for r in rows)
