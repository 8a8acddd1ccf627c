"""X-Ray: the people, places and terms a book has named up to a place, each with its mentions so far.

The fence is in the data: a book's capitalised runs are found once (``scan``, stored per segment), and an X-Ray
for a place reads only the mentions at or before it. Which runs are names, how variants merge, the counts, the
first mention and the sentences that introduce each entry are all decided from those mentions alone, so nothing
past the place can show, not even as a longer variant of a name already met.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from core.agent.citations import Citation
from core.books.locator import Locator
from core.books.textutil import CJK_RUN
from core.companion import coined_zh, evidence, introduced_zh, names_zh, store
from core.companion.evidence import Row
from core.companion.names import CONTEXT, NOT_NAMES, TITLES, name_key, name_mentions
from core.companion.names_zh import HONORIFICS, SURNAMES, TITLE_WORDS, chinese_mentions, dictionary_total
from core.library import Library, text_reads
from core.library.fts import heading_form
from core.rag.sentences import sentence_spans

SCAN_VERSION = 6  # a better finder raises it, and books are scanned again when next asked
MIN_MENTIONS = 2  # a name needs this many mentions before the place (one of them not opening a sentence)
INTRODUCING = 2  # sentences quoted to introduce an entry: its first mentions'
PLACE_WORDS = frozenset(("in", "at", "to", "from", "into", "near", "through", "towards", "toward", "across"))
BARE_TITLES = frozenset(
    ("mr", "mrs", "ms", "dr", "st", "ste", "sir", "capt", "rev", "madam", "mister")
)  # never a name alone
PLACE_ENDINGS = frozenset("府城州庄镇村寺庵院园祠山峰庙县省京陵湖江河桥街巷楼阁殿宫")  # 荣国府, 金陵, 未庄
# A note's paragraph opens with its marker: a number in parentheses or a circle (⑴, ①) or in brackets (〔1〕, ［1］),
# as annotated editions number the notes the text points to.
NOTE = re.compile(r"\s*(?:[\u2460-\u2487]|〔[0-9０-９]+〕|［[0-9０-９]+］)")
NOTE_LINES = 12  # lines a note may run on after its marker's
SHAPES = frozenset((coined_zh.PERSON, coined_zh.PLACE, coined_zh.TERM))  # tags that say the kind the book gave
NAME_TAGS = frozenset(("nr", "nrfg", "nrt", "ns", "nz")) | SHAPES
KEYNESS = 8.0  # a Chinese word the dictionary knows is a name when the book uses it this many times more than usual
SPEECH = frozenset(("said", "says", "asked", "cried", "replied", "answered", "thought", "whispered", "shouted"))
# What only a being does, right after its name ("the Dormouse shook itself", "Dinah was"... no: "was" is anything's).
_DOING = """shook nodded smiled laughed sighed sobbed wept cried frowned looked stared glanced went came ran
walked hurried jumped sat stood began knew felt wanted wished hoped remembered forgot added continued repeated muttered
exclaimed screamed shrieked sang called told explained remarked observed interrupted whispered yawned opened"""
DOING = frozenset(_DOING.split())
KIN = frozenset(("my", "our", "thy"))  # "our Dinah", "my Mary Ann": a being of the household
# A name right after what a person is ("the well-known adventuress, Irene Adler"; "her maid, Mary") is a person's.
_ROLES = """adventuress adventurer lady woman man gentleman girl boy child friend wife husband daughter son
brother sister mother father uncle aunt cousin nephew niece widow servant maid nurse master mistress clerk merchant
sailor soldier captain colonel king queen prince princess duke duchess count countess baron nobleman landlady landlord
client visitor stranger companion colleague partner cabman coachman groom butler housekeeper governess"""
ROLES = frozenset(_ROLES.split())
# Forms of address and the words that make them: "Majesty", "Your Majesty", "Doctor", "His Royal Highness" name a
# rank or a way of speaking to someone, not who (the story collection listed "Majesty" and "Doctor").
_ADDRESS = """majesty majesties highness highnesses excellency lordship ladyship honour honor worship eminence
holiness grace sir sire madam madame ma'am mister miss doctor dr mr mrs ms your his her their royal imperial serene
gracious"""
ADDRESS = frozenset(_ADDRESS.split())
# Nationalities, peoples and languages: words a book capitalises that are not anyone's or anywhere's name.
_DEMONYMS = """english englishman englishmen french frenchman frenchmen german germans bohemian bohemians
american americans british briton britons scotch scottish scotsman scots irish irishman welsh spanish spaniard
spaniards italian italians russian russians dutch dutchman danish dane danes swedish swede norwegian polish pole greek
greeks roman romans latin chinese japanese indian indians egyptian egyptians turkish turk turks persian persians
arabian arab arabs hebrew hebrews jewish jew jews african africans european europeans asiatic asian australian
canadian mexican portuguese swiss austrian hungarian prussian saxon saxons norman normans celtic gaelic yankee yankees
christian christians catholic protestant moorish moor moors tartar tartars cossack hindu moslem muslim mohammedan
parisian venetian florentine genoese neapolitan castilian flemish belgian bavarian siberian tyrolese"""
DEMONYMS = frozenset(_DEMONYMS.split())
# Hiragana and katakana: a paragraph with them is Japanese, whose names X-Ray does not read yet (English and Chinese)
KANA = re.compile("[\u3040-\u30ff]")
# Sections that are not the story: what a publisher or a transcriber adds around it (imprint, licence, lists).
MATTER = re.compile(
    r"^\W*(title page|half title|copyright|imprint|colophon|contents|table of contents|bibliography|index|"
    r"licen[cs]e|the full project gutenberg|(the )?project gutenberg|end of (the )?project gutenberg|acknowledge?ments?|"
    r"about (the|this) (author|book|edition|publisher)|about$|transcriber|other books by|also by|"
    r"recommend|titlepage|halftitle|uncopyright|copyright|dedication|endnotes|cover$|"
    r"版权|目录|出版说明|内容简介|作者简介|关于作者|推荐)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Mention:
    """Where an entry is named: the segment's place in reading order and the exact locator."""

    ordinal: int
    locator: Locator
    text: str  # the name as written there

    def to_dict(self) -> dict[str, Any]:
        return {"ordinal": self.ordinal, "locator": str(self.locator), "text": self.text}


@dataclass(frozen=True, slots=True)
class XrayEntry:
    """One person, place or term, as far as the reader has read."""

    name: str
    kind: str  # "person", "place" or "term" (a guess from the words around its mentions)
    variants: tuple[str, ...]
    mentions: int
    first: Mention
    introduced: tuple[str, ...]  # the sentences of its first mentions
    places: tuple[Mention, ...] = field(default=())  # every mention, in reading order

    def to_dict(self, places: bool = True) -> dict[str, Any]:
        found = {
            "name": self.name, "kind": self.kind, "variants": list(self.variants), "mentions": self.mentions,
            "first": str(self.first.locator), "introduced": list(self.introduced),
        }  # fmt: skip
        if places:
            found["places"] = [m.to_dict() for m in self.places]
        return found


def needs_scan(library: Library, book_id: int, bound: int | None) -> bool:
    """Whether an X-Ray up to ``bound`` must first find names in text not scanned yet (slow for a Chinese novel)."""
    done = store.scan_state(library.conn, book_id)
    if done is None or done[0] != SCAN_VERSION:
        return True
    return done[1] is not None and (bound is None or done[1] < bound)


def scan(library: Library, book_id: int, bound: int | None = None) -> int:
    """Find the names of a book's text up to the segment at ordinal ``bound`` (None: all of it) and store them,
    once per finder version; a later place scans only the segments read since. How many were found (-1: nothing
    new to scan). English runs come from ``name_mentions``, Chinese words from jieba's tagger (``names_zh``)."""
    done = store.scan_state(library.conn, book_id)
    fresh = done is None or done[0] != SCAN_VERSION
    through = -1 if done is None or fresh else (done[1] if done[1] is not None else 1 << 62)
    limit = bound if bound is not None else 1 << 62
    if not fresh and through >= limit:
        return -1
    rows = []
    for ordinal, _section, _idx, text in story_segments(library, book_id, through, limit):
        if KANA.search(text):  # Japanese: the Chinese tagger would take its words for names (小説, 言葉)
            continue
        rows += [
            (book_id, ordinal, m.start, m.name, int(m.at_start), m.before, m.after, 0) for m in name_mentions(text)
        ]
        rows += [(book_id, ordinal, m.start, m.name, 0, m.before, m.after, m.common) for m in chinese_mentions(text)]
    with library.transaction() as conn:
        store.save_scan(conn, book_id, rows, SCAN_VERSION, bound, fresh)
    return len(rows)


def story_segments(library: Library, book_id: int, after: int, limit: int) -> Iterator[tuple[int, int, int, str]]:
    """The text segments after ordinal ``after`` up to ``limit`` (ordinal, section, index in it, text), less an
    editor's notes: a paragraph opening with a note's marker, and the lines after it in its section (a note
    hard-wrapped over several), up to NOTE_LINES after the last marker."""
    notes, last_note = -1, -1
    titles = _titles(library, book_id)
    for ordinal, section, idx, text in text_reads.body_segments(library.conn, book_id, after, limit):
        if _heading_or_contents(text, titles):
            continue
        if NOTE.match(text):
            notes, last_note = section, ordinal  # "⑷龚云甫（1862—1932）：当时的京剧演员": the edition's words
            continue
        if section == notes and ordinal - last_note <= NOTE_LINES:
            continue
        yield ordinal, section, idx, text


SPOKEN = re.compile(r"[\"“”「」『』]")
TITLE_SLACK = 8  # characters a title's paragraph may have beyond the title (a number, a full stop, quotation marks)
CONTENTS_TITLES = 3  # a paragraph that is mostly this many of the book's chapter titles or more is its contents


@dataclass(frozen=True, slots=True)
class Titles:
    """A book's chapter titles as its contents and sections name them (as ``heading_form`` gives them)."""

    by_first: dict[str, list[str]]  # by their first word, to look for them where a paragraph's words start
    key_words: re.Pattern[str] | None  # each title's longest word, as ``casefold`` leaves it: a paragraph without
    # one is no title, without three no contents (None: the book has no titles)
    longest: int  # characters in the longest title as the book writes it


def _titles(library: Library, book_id: int) -> Titles:
    named = [row.title for row in library.toc(book_id)] + [
        t or "" for _, t in text_reads.section_titles(library.conn, book_id)
    ]
    by_first: dict[str, list[str]] = defaultdict(list)
    keys: set[str] = set()
    for title in named:
        plain = heading_form(title)
        if len(plain) > 3:
            by_first[plain.split(" ", 1)[0]].append(plain)
            keys.add(max(re.findall(r"\w+", title.casefold()), key=len))
    pattern = "|".join(sorted(map(re.escape, keys), key=len, reverse=True))
    longest = max((len(title) for title in named), default=0)
    return Titles(dict(by_first), re.compile(pattern) if pattern else None, longest)


def _heading_or_contents(text: str, titles: Titles) -> bool:
    """Whether a paragraph is a chapter's title (a PDF draws its headings as paragraphs: "Pig And Pepper") or the
    contents written out ("1. Title Page 2. Down The Rabbit-Hole 3. The Pool Of Tears…"): the book's own contents
    say so, and neither is the story. A paragraph is folded and looked at closely (titles where its words start)
    only when it holds a title's longest word ("the" begins many titles), or three of them when it is longer than any
    title: Moby-Dick's 2,835 paragraphs in 0.08 s and 红楼梦's 2,473 in 0.02 s, where looking for every title in every
    paragraph took Moby-Dick's 0.37 s, and folding every paragraph 红楼梦's 0.17 s."""
    if titles.key_words is None:
        return False
    if len(text) <= titles.longest + TITLE_SLACK:  # as long as a title: it may be one
        if not titles.key_words.search(text.casefold()):
            return False
    elif len(set(titles.key_words.findall(text.casefold()))) < CONTENTS_TITLES:  # longer: the contents or the story
        return False
    plain = heading_form(text)
    words = plain.split(" ")
    if plain in titles.by_first.get(words[0], ()) and not SPOKEN.search(text):  # “Dracula!” alone is no heading
        return True
    named, at = [], 0
    for word in words:
        named += [t for t in titles.by_first.get(word, ()) if plain.startswith(t, at)]
        at += len(word) + 1
    letters = len(re.sub(r"[\d ]", "", plain))  # page and chapter numbers and spaces do not count
    return len(named) >= CONTENTS_TITLES and sum(len(t.replace(" ", "")) for t in named) >= 0.6 * letters


def xray(library: Library, book_id: int, bound: int | None) -> list[XrayEntry]:
    """The entries named at or before the segment at ordinal ``bound`` (None: the whole book), most mentioned
    first. Reads nothing past the bound."""
    scan(library, book_id, bound)
    limit = bound if bound is not None else 1 << 62
    rows = store.mention_rows(library.conn, book_id, limit)
    matter = _matter_sections(library, book_id)
    story = [Row(*row) for row in rows if row[6] not in matter]
    names, keyed = _english_names(library, book_id, limit, [r for r in story if not CJK_RUN.search(r.name)])
    by_key: dict[str, list[Any]] = {**keyed, **names}
    groups = list(_merge(set(names), by_key).values())
    chinese: dict[str, list[Any]] = defaultdict(list)
    for r in story:
        if CJK_RUN.search(r.name):
            chinese[r.name].append(r)
    if chinese:
        story_text = [
            seg
            for seg in story_segments(library, book_id, -1, limit)
            if seg[1] not in matter and not KANA.search(seg[3])
        ]
        chinese.update(coined_zh.coined_names(story_text, set(chinese)))
        introduced = introduced_zh.introductions(story_text)
        for name in introduced.keys() & chinese.keys():  # 姑苏 after 有处曰: a name, whatever the dictionary says
            chinese[name] = [_retagged(r, introduced[name]) for r in chinese[name]]
        chinese.update(introduced_zh.mentions(story_text, {n: t for n, t in introduced.items() if n not in chinese}))
        groups += _chinese_groups(chinese, _characters_read(library, book_id, limit))
        by_key.update(chinese)
    entries = _resolve_kinds([_entry(group, by_key) for group in groups], by_key, groups)
    texts = segment_texts(library, book_id, [m.ordinal for e in entries for m in e.places[:INTRODUCING]])
    entries = [
        replace(e, introduced=tuple(" ".join(c.quote.split()) for c in sentences_of(texts, book_id, e.places, INTRODUCING)))
        for e in entries
    ]  # fmt: skip
    entries.sort(key=lambda e: (-e.mentions, e.first.ordinal))
    return entries


def _retagged(row: Row, tag: str) -> Row:
    """A Chinese mention row under another tag, as a name the book coined (no dictionary count against it)."""
    return row._replace(before=f"{tag}\t{row.before.partition(chr(9))[2]}", common=0)


def added_entry(library: Library, book_id: int, name: str, bound: int | None) -> XrayEntry | None:
    """The entry of a name the reader added (X-Ray missed it): its every use as a word in the story up to the
    segment at ``bound`` (None: all), or None when it is not used there. Its kind comes from the same evidence as a
    found name's: the words around it (the reader can change it)."""
    limit = bound if bound is not None else 1 << 62
    cjk = bool(CJK_RUN.search(name))
    pattern = re.compile(re.escape(name) if cjk else rf"(?<![\w'’-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
    matter = _matter_sections(library, book_id)
    rows = text_reads.body_segments_holding(library.conn, book_id, limit, name)
    found: list[tuple[Any, ...]] = []
    for ordinal, section, idx, text in rows:
        if section in matter:
            continue
        for m in pattern.finditer(text):
            a, b = m.start(), m.end()
            if cjk:  # as the tagger's rows keep them: the word before (after a tab) and the word after
                before, after = f"\t{text[max(0, a - 1) : a]}", text[b : b + 1]
            else:
                before, after = text[max(0, a - CONTEXT) : a], text[b : b + CONTEXT]
            found.append(Row(ordinal, a, m.group(), False, before, after, section, idx, 0))
    if not found:
        return None
    entry = replace(_entry([name], {name: found}), name=name)  # as the reader named it; the book's forms beside
    texts = segment_texts(library, book_id, [m.ordinal for m in entry.places[:INTRODUCING]])
    introduced = tuple(" ".join(c.quote.split()) for c in sentences_of(texts, book_id, entry.places, INTRODUCING))
    return replace(entry, introduced=introduced)


def _english_names(
    library: Library, book_id: int, limit: int, rows: list[Row]
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """The English names before the place, each with its mention rows, judged by how the book uses them
    (``core.companion.evidence``): mentioned ``MIN_MENTIONS`` times, once at least mid-sentence; not a title, a form
    of address or a nationality alone; not a word the book mostly writes in lowercase; a possessive run given to the
    name before it; a surname under Mr. and Mrs. made two people. Also every run's rows by key (a fuller name given
    once can still join a name)."""
    texts = text_reads.texts_up_to(library.conn, book_id, limit) if rows else []
    opening = evidence.opening_words(rows)
    words = {name_key(w) for r in rows for w in r.name.split(" ")} | opening  # every word a one-word name may be
    lowercase = evidence.lowercase_counts(texts, words)  # one pass over the text for both uses
    rows = evidence.resplit(rows, frozenset(w for w in opening if not lowercase[w]))

    def grouped(found: list[Row]) -> dict[str, list[Row]]:
        keyed: dict[str, list[Row]] = defaultdict(list)
        for r in found:
            keyed[name_key(r.name)].append(r)
        return keyed

    def plausible(key: str, found: list[Row]) -> bool:
        return (
            len(found) >= MIN_MENTIONS
            and any(not r.at_start for r in found)
            and len(key.replace(" ", "")) > 1
            and key not in BARE_TITLES
            and key not in DEMONYMS
            and not _address(key)
            and not evidence.not_a_name(key)
        )

    heads = [r._replace(name=cut[0]) if (cut := evidence.possessive_head(r.name)) else r for r in rows]
    first = {k for k, found in grouped(heads).items() if plausible(k, found)}  # Seward, with "Dr. Seward’s Diary"
    moved = []
    for r in rows:
        cut = evidence.possessive_owner(r.name, first) if " " in r.name else None
        moved.append(r if cut is None else r._replace(name=cut[0], after=cut[1] + r.after))
    by_key = grouped(moved)
    single = {k for k in by_key if " " not in k and "-" not in k}
    kept = {
        k for k, found in by_key.items()
        if plausible(k, found) and not evidence.common_word(k, found, lowercase)
        and not evidence.common_phrase(k, found, lowercase)
    }  # fmt: skip
    kept -= evidence.peoples(kept, by_key)
    names: dict[str, list[Any]] = {}
    for key in sorted(kept):
        found = by_key[key]
        if key in TITLES and " " not in key:  # "the Count": the one name the book gives with that title, if one
            owner = evidence.titled_owner(key, rows, kept)
            if owner is not None:
                by_key[owner] = by_key[owner] + found
                names[owner] = by_key[owner]
            elif evidence.mostly_after_article(found):  # "the Queen", "the Duchess": a character so called
                names[key] = found
            continue
        split = evidence.split_by_sex(key, found) if key in single else None
        names.update(split or {key: by_key[key]})
    return names, by_key


def _resolve_kinds(entries: list[XrayEntry], by_key: dict[str, list[Any]], groups: list[list[str]]) -> list[XrayEntry]:
    """Kinds for the English entries whose mentions alone said nothing ("unknown"): a family's plural or a fuller
    name of a person entry is a person ("the Harkers", "Mina Harker" beside "Mina"); a run mostly written after
    "the" or "a" is a term ("the Demeter"); anything else a person, the commonest kind of name in a story."""
    people = {name_key(v) for e in entries if e.kind == "person" for v in e.variants}
    people |= {k.split(":")[-1] for e, g in zip(entries, groups, strict=True) if e.kind == "person" for k in g}
    resolved = []
    for entry, group in zip(entries, groups, strict=True):
        plural = {k[:-2] for k in group if k.endswith("es")} | {k[:-1] for k in group if k.endswith("s")}
        if plural & people and " " not in group[0] and not CJK_RUN.search(group[0]):
            entry = replace(entry, kind="person")  # "the Gardiners": a family, wherever they are
        if entry.kind == "unknown":
            words = {w for k in group for w in k.split(":")[-1].replace("-", " ").split()}
            rows = [r for k in group for r in by_key[k]]
            if words & people:
                kind = "person"
            elif evidence.mostly_after_article(rows):
                kind = "term"
            else:
                kind = "person"
            entry = replace(entry, kind=kind)
        resolved.append(entry)
    return resolved


def _address(key: str) -> bool:
    """Whether a name is only a form of address ("your majesty", "doctor", "ma’am")."""
    return all(word in ADDRESS for word in key.replace("’", "'").split())


def _matter_sections(library: Library, book_id: int) -> set[int]:
    """The sections around the story (a title page, an imprint, a licence, a bibliography), by their titles."""
    return {idx for idx, title in text_reads.section_titles(library.conn, book_id) if title and MATTER.search(title)}


def _characters_read(library: Library, book_id: int, limit: int) -> int:
    return text_reads.characters_up_to(library.conn, book_id, limit)


def _chinese_groups(by_key: dict[str, list[Any]], read: int) -> list[list[str]]:
    """Chinese names among the tagged words before the place, by how the book uses them (``_chinese_name``). A
    word that is a name with a character glued on (黛玉方, 贾母命, 那僧) gives its mentions to that name; a piece of a
    longer name the book writes as often (甄士 of 甄士隐) gives them to the longer one. A name that a longer one of
    three characters ends after a surname joins it (宝玉 with 贾宝玉), as does one with 儿 or a title after it
    (凤姐儿 with 凤姐, 陈莲河先生 with 陈莲河)."""
    total = dictionary_total()
    # 平桥 written before 村 most times: the place is 平桥村 (its word split off by the tagger)
    for key in list(by_key):
        found = by_key[key]
        suffix, times = Counter(r.after for r in found).most_common(1)[0]
        if suffix in PLACE_ENDINGS and times >= 2 and times * 2 >= len(found) and not key.endswith(suffix):
            by_key[key + suffix] = by_key.get(key + suffix, []) + [
                r._replace(name=key + suffix) for r in by_key.pop(key)
            ]
    count = {k: len(found) for k, found in by_key.items()}
    for key in sorted(by_key, key=len, reverse=True):
        if len(key) < 3 or key not in by_key:
            continue
        head, tail = key[:-1], key[1:]
        into = None
        named = key.endswith("儿") or any(key.endswith(w) for w in TITLE_WORDS)  # 凤姐儿, 赵太爷: one name
        if count.get(head, 0) >= 3 * count[key] and not named:
            into = head  # 黛玉方: 黛玉 and a glued 方
        elif key[0] not in SURNAMES and count.get(tail, 0) >= 3 * count[key]:
            into = tail  # 那僧
        if into is not None:  # the mentions are the name's, at the name's own place
            shift = 0 if into == head else 1
            by_key[into] = by_key[into] + [r._replace(name=into, start=r.start + shift) for r in by_key.pop(key)]
    extended: dict[str, list[str]] = defaultdict(list)  # a key by the keys it extends by one character
    for k in by_key:
        if len(k) >= 3:
            extended[k[:-1]].append(k)
            extended[k[1:]].append(k)
    for key in sorted(by_key, key=len):
        longer = [k for k in extended.get(key, ()) if k in by_key]
        whole = [k for k in longer if count.get(k, 0) >= max(2, count[key]) and not k.endswith(("儿", *TITLE_WORDS))]
        if key in by_key and len(whole) == 1:
            by_key[whole[0]] = by_key[whole[0]] + by_key.pop(key)  # 甄士 of 甄士隐
    heads = {k[:n] for k in by_key for n in range(2, len(k))}  # 通灵 of 通灵宝玉: a name's short form
    names = {k for k, found in by_key.items() if _chinese_name(k, found, read, total, k in heads)}
    names = {k for k in names if not (len(k) == 3 and k[1:] in names and k[0] not in SURNAMES)}  # 因宝玉
    names -= _never_alone(names, by_key)
    groups: dict[str, list[str]] = {}
    for key in sorted(names, key=len, reverse=True):
        owner = next((g for g in groups if _owns(g, key)), None)
        if owner is not None:
            groups[owner].append(key)
        else:
            groups[key] = [key]
    return list(groups.values())


# What a person does right after the name, and what comes before a place or a person's name.
_ZH_DOES = frozenset(["道", "说", "说道", "笑道", "问道", "答道", "叹道", "冷笑", "笑", "问", "听了", "忙", "便", "听", "看", "见", "想", "叫", "喊", "哭", "走", "跑", "站", "坐", "拿", "把", "对", "向", "跟", "听见", "看见", "知道", "心里", "心中", "自己", "回来", "回去", "进来", "出来", "也", "又", "却", "就", "才", "都", "已", "正", "还", "不", "没有", "早", "一面"])  # fmt: skip
_ZH_PLACE_BEFORE = frozenset(
    [
        "在",
        "到",
        "往",
        "从",
        "去",
        "回",
        "至",
        "进",
        "出",
        "离",
        "住",
        "赴",
        "抵",
        "返",
        "由",
        "来到",
        "进入",
        "到了",
        "进了",
        "出了",
        "回到",
        "住在",
        "上",
        "于",
    ]
)
_ZH_PERSON_BEFORE = frozenset(
    [
        "叫",
        "名叫",
        "叫做",
        "唤",
        "名唤",
        "姓",
        "对",
        "向",
        "跟",
        "和",
        "同",
        "与",
        "给",
        "问",
        "告诉",
        "拉",
        "请",
        "见",
        "看见",
        "望",
        "叫道",
    ]
)


_INSIDE = frozenset("里上下中内外边旁底")  # a word after a thing: where in or on it (在屋里)


@functools.cache
def _locative(word: str) -> bool:
    """Whether the word after a mention says where in or on it: a word beginning with one of ``_INSIDE`` (里头,
    上面, 上去 as the tagger cuts 田庄上去) that the dictionary does not give as a noun or a verb of its own (上学,
    上班, 上海, 中国)."""
    return word[:1] in _INSIDE and names_zh.dictionary()[1].get(word, "")[:1] not in ("n", "v")


_TITLE_HEADS = frozenset(w[0] for w in TITLE_WORDS) | {"儿"}  # 凤姐儿, 赵太爷: the name's own forms
_ZH_DEED_HEADS = frozenset(w[0] for w in _ZH_DOES)


def _chinese_evidence(found: list[Any], strict: bool = False) -> tuple[int, int]:
    """How many mentions read like a person's (a deed or words after, 叫 before, a title on it) and like a place's
    (在, 到, 从 before it). ``strict``: a deed counts only when it is speech (说, 道, 笑道): an adverb after a word
    (又, 却, 便) is what any subject takes, a white light's as much as a man's."""
    person = place = 0
    deeds = names_zh.SPEECH if strict else _ZH_DOES
    for row in found:
        _tag, _, previous = row[4].partition("\t")
        if row[5] in deeds or previous in _ZH_PERSON_BEFORE or row[2].endswith(tuple(TITLE_WORDS)):
            person += 1
        if (previous in _ZH_PLACE_BEFORE or previous[-1:] in ("在", "到", "往", "从")) and not _locative(row[5]):
            place += 1  # 在北京; not 在荷池里, 在河底下: a thing's inside is a common noun's
    return person, place


def _chinese_name(key: str, found: list[Any], read: int, total: int, head: bool = False) -> bool:
    """Whether the book uses a tagged word as a name: mentioned ``MIN_MENTIONS`` times; a word the dictionary knows
    only when the book uses it ``KEYNESS`` times more often than usual and a mention reads like a name's, or when a
    third of its mentions come after 到, 在 and the tagger calls it a place (北京); a word the tagger coined from the book when it tagged it a name or
    a mention reads like one. A word mostly written after 的 is something described (的贝壳), never a name, unless a
    title or kinship word ends it (斜对门的杨二嫂)."""
    if len(found) < MIN_MENTIONS or _glued(found) or (_talked_about(found) and not head):
        return False
    shaped_tags = {row[4].partition("\t")[0] for row in found} & SHAPES
    if not shaped_tags and set(key) & _PARTICLES:
        return False  # a particle inside: a phrase the tagger took for a name (关了门)
    person, place = _chinese_evidence(found)
    evidence = max(person, place)
    described = sum(row[4].partition("\t")[2].endswith("的") for row in found)
    if described * 2 >= len(found) and not key.endswith(tuple(TITLE_WORDS)):
        return False
    common = max(row[8] for row in found)
    if common == 0:  # a word the dictionary lacks: tagged a name once at least, or a noun jieba's model joined
        shaped = key[0] in "老小阿" or key[-1] == "儿" or key[-1] in PLACE_ENDINGS  # 老栓, 宏儿, 未庄
        if shaped_tags:  # coined or introduced: its shape was judged when it was found
            return True
        if {
            row[4].partition("\t")[0] for row in found
        } & NAME_TAGS:  # the tagger's guess on a word it never saw: a surname, a shape or a use to back it
            edges = _grammar_characters()  # a name neither starts nor ends on an adverb (太静, 前走); 赖大 may
            return shaped or evidence > 0 or (key[0] not in edges and key[-1] not in edges)
        speaks = sum(row[5] in names_zh.SPEECH or row[4].partition("\t")[2][-1:] in ("在", "到", "从") for row in found)
        return shaped or speaks * 3 > len(found)  # 警幻 speaks; 尊兄, 茶果, 寸寸 are words the model joined
    ending = len(key) >= 3 and key[-1] in PLACE_ENDINGS  # 青埂峰: a place's name by its ending
    tag = Counter(row[4].partition("\t")[0] for row in found).most_common(1)[0][0]
    if tag.startswith("nr") and key[0] not in SURNAMES and not key.endswith(tuple(TITLE_WORDS)) and not ending:
        # a known word the dictionary calls a person's, with no surname: a given name when the book names someone
        # so (名迎春) or has it speak; else a common noun the dictionary mistagged (尼姑, 布衫, 黑狗, 割麦)
        named = any(row[4].partition("\t")[2][-1:] in "名叫唤" or row[5] in names_zh.SPEECH for row in found)
        if not named:
            return False
    evidence = max(_chinese_evidence(found, strict=True))  # a word in general use: its own uses must say "name"
    if tag == "m" and evidence < 2:
        return False  # a number the book may use as a name (七斤): only when it speaks, is called or is titled
    if sum(row[5].startswith("的") for row in found) * 3 >= len(found) * 2:
        return False  # a known word mostly before 的 describes what follows it (乌黑的头发)
    if sum(_locative(row[5]) for row in found) * 2 >= len(found) and key[-1] not in PLACE_ENDINGS:
        return False  # a word in general use mostly written with where in it (荷池里, 桑树上): a thing, not a place
    keyness = (len(found) / read) / (common / total)
    full_name = len(key) == 3 and key[0] in SURNAMES and found[0][4].startswith("nr")  # 林黛玉: a surname, a name
    places = sum(row[4].startswith("ns") for row in found) * 2 >= len(found)
    return (keyness >= KEYNESS and (evidence > 0 or full_name or ending)) or (places and place * 3 >= len(found) >= 3)


_PARTICLES = frozenset("了着过的地得吗呢吧啊们")  # grammar no name holds (a name with 们 is its plural)
_QUOTES = {"“": "”", "‘": "’", "「": "」", "『": "』", '"': '"'}


@functools.cache
def _grammar_characters() -> frozenset[str]:
    """The characters the dictionary gives as adverbs, prepositions, conjunctions, particles, pronouns and place
    words (太, 前, 和, 的, 他): grammar, where a name's edge is not (大 of 赖大 is an adjective, and names hold it)."""
    counts, tags = names_zh.dictionary()
    return frozenset(w for w in counts if len(w) == 1 and tags.get(w, "x")[:1] in "dpcuyrf")


def _talked_about(found: list[Any]) -> bool:
    """Whether a short word is mostly written alone between quotation marks: a word the book talks about (“行状”,
    “鸭鸭”), not a name it uses (‘柿油党’ is quoted alone twice in five, ‘护官符’ four times in eight). A phrase of
    four characters or more repeated as it is, quoted, is the book's own term (“通灵宝玉”); the caller also keeps a
    word that begins a longer name of the book (‘通灵’ of 通灵宝玉): that name's short form, quoted."""
    if len(found[0][2]) >= 4:
        return False
    quoted = 0
    for row in found:
        opening: str = row[4].partition("\t")[2][-1:]
        quoted += opening in _QUOTES and row[5][:1] == _QUOTES[opening]
    return quoted * 3 >= len(found) * 2


def _never_alone(names: set[str], by_key: dict[str, list[Any]]) -> set[str]:
    """The names the book never writes on their own: each mention lies inside a mention of a longer name (邹七 of
    邹七嫂, his wife: the book has no 邹七 yet)."""
    spans: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for key in names:
        for row in by_key[key]:
            spans[row[0]].append((row[1], row[1] + len(key)))
    return {
        key for key in names
        if all(any(a <= row[1] and row[1] + len(key) <= b and b - a > len(key) for a, b in spans[row[0]])
               for row in by_key[key])
    }  # fmt: skip


def _glued(found: list[Any]) -> bool:
    """Whether a tagged word is a piece of something longer: the same character of a word (no particle, pronoun
    or deed) stands before it, or after it, in two thirds of its mentions (政老爹, 世人都晓, 甄士隐, 金百蝶穿)."""
    if any(row[4].partition("\t")[0] in SHAPES for row in found):
        return False  # a coined or introduced name: its edges were judged when it was found
    edges, _inner = coined_zh.function_characters()
    after = _TITLE_HEADS | _ZH_DEED_HEADS | edges | {"人"}  # 胡州人氏: where one is from
    sides = (
        Counter(
            c
            for row in found
            if (c := row[4].partition("\t")[2][-1:])
            and CJK_RUN.match(c + c)
            and c not in edges | PLACE_ENDINGS
            and not row[4].partition("\t")[2].endswith(tuple(TITLE_WORDS))  # 赵太爷钱太爷: names in a row
        ),
        Counter(c for row in found if (c := row[5][:1]) and CJK_RUN.match(c + c) and c not in after),
    )
    return any(side and side.most_common(1)[0][1] * 3 >= len(found) * 2 for side in sides)


def _owns(longer: str, key: str) -> bool:
    """Whether ``key`` is another form of the name ``longer``: its given name after a surname, or it with 儿."""
    return (
        (len(longer) == len(key) + 1 and longer[0] in SURNAMES and longer.endswith(key))
        or longer == key + "儿"
        or any(longer == key + title for title in HONORIFICS if len(key) >= 2)
        or (key == longer + "儿")
    )


def _merge(names: set[str], by_key: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[str]]:
    """Group a one-word name with the one longer name it is part of: the one it ends ("Holmes" with "Sherlock
    Holmes"), the one it starts when that is "X of Y" ("Knave" with "Knave of Hearts") or it is a title ("Queen"
    with "Queen Anne"), the compound it ends ("Footman" with "Fish-Footman"). A fuller name the book has given only
    once so far counts too ("To Sherlock Holmes she is always the woman"): the entry takes it from then on. A word
    that several longer names could own stays on its own. Any name joins the one firm it begins ("Mitchell" and
    "Carter Paterson" with "Mitchell, Sons, & Candy" and "Carter, Paterson & Co.")."""
    longer = [k for k in names if " " in k or "-" in k]
    once = [k for k in by_key if " " in k and k not in names and not CJK_RUN.search(k)]
    groups: dict[str, list[str]] = {k: [k] for k in longer}
    firms = {k: k.replace(",", "").split(" ") for k in longer if "&" in k}
    for key in sorted(names):  # "Mitchell", "Carter Paterson": the firm they begin, when they begin one only
        words = name_key(key).split(" ")
        owners = [f for f, firm in firms.items() if f != key and firm[: len(words)] == words]
        if len(owners) == 1 and "&" not in key:
            groups[owners[0]].append(key)
            if key in groups:  # a two-word beginning ("Carter Paterson") was a longer name of its own
                del groups[key]
                longer.remove(key)
    grouped = {k for keys in groups.values() for k in keys[1:]}
    for key in sorted(k for k in names if " " not in k and "-" not in k and k not in grouped):
        owners = [k for k in longer if _part_of(key, k) and _shared(key, k, by_key) and not evidence.place_name(k)]
        once_owners = [k for k in once if k.split(" ")[-1] == key and " the " not in k]  # "Princess the King's
        owners = owners or once_owners or _short_form_of(key, longer, by_key)  # daughter": a phrase, no fuller name
        if len(owners) == 1:
            groups.setdefault(owners[0], [owners[0]]).append(key)
        else:
            groups[key] = [key]
    return groups


def _short_form_of(key: str, longer: list[str], by_key: dict[str, list[Any]]) -> list[str]:
    """The longer names a one-word name may be the short form of, by how the book uses it: a first name alone that
    one two-word name begins ("Sam" and "Sam Bloxam"; never one the book gives a title, "Colonel Fitzwilliam"), or a
    word mostly written after "the" that one name begins or ends ("the Heath" of "Hampstead Heath", "the
    Berkeley" of "Berkeley Hotel"). The caller takes it only when there is one."""
    found = by_key[key]
    if CJK_RUN.search(key) or key in TITLES or key in NOT_NAMES:
        return []
    if evidence.mostly_after_article(found):
        return [k for k in longer if (words := k.split(" "))[0] == key or words[-1] == key]
    owners = [
        k for k in longer
        if len(words := k.split(" ")) == 2 and words[0] == key and not evidence.place_name(k)
        and len(by_key[k]) * 4 >= len(found)
    ]  # fmt: skip
    if len(owners) != 1 or any(evidence.has_title(r.name) for r in found) or evidence.kind_of(found) == "place":
        return []  # (the cheap test first: most one-word names begin no longer one)
    return owners


def _part_of(key: str, longer: str) -> bool:
    words = longer.split(" ")
    if " " not in longer:
        return longer.split("-")[-1] == key
    return words[-1] == key or (words[0] == key and (key in TITLES or (len(words) > 2 and words[1] == "of")))


def _shared(key: str, longer: str, by_key: dict[str, list[tuple[Any, ...]]]) -> bool:
    """Whether the longer name is used often enough beside the word to be the same one: "the Emperor" of a tale
    is not the "Emperor of Japan" it names twice in eighty mentions of its own."""
    return " " not in longer or longer.split(" ")[-1] == key or len(by_key[longer]) * 4 >= len(by_key[key])


def _entry(keys: list[str], by_key: dict[str, list[tuple[Any, ...]]]) -> XrayEntry:
    """An entry from its names' mention rows (its introducing sentences are filled in after, read together)."""
    found = sorted((row for key in keys for row in by_key[key]), key=lambda r: (r[0], r[1]))
    surfaces = Counter(re.sub(r"['’]s$", "", row[2]) for row in found)
    # The name it goes by: the fullest form used at least a quarter as often as the commonest, or a first name and
    # the commonest as soon as the book has given them ("Sherlock Holmes" once, "Holmes" often; not "Old Ahab");
    # a form of address is never the name ("Your Majesty" for the King).
    named = [s for s in surfaces if not _address(name_key(s)) and name_key(s) not in TITLES] or list(surfaces)
    main = max(named, key=lambda s: surfaces[s])
    chosen = [s for s in named if surfaces[s] * 4 >= surfaces[main] or _first_name_of(s, main)]
    longest = max(chosen, key=lambda s: (len(re.split(r"[ -]", name_key(s))), surfaces[s], not evidence.has_title(s)))
    sex = next((k.split(":")[0] for k in keys if ":" in k), None)
    if sex is not None:  # one of two people with a surname: the name with its title ("Mrs. Bennet")
        titled = [s for s in surfaces if evidence.sex_of(s) == sex]
        longest = max(titled, key=lambda s: surfaces[s]) if titled else f"{evidence.SEX_TITLE[sex]} {longest}"
    kind = _chinese_kind(found) if CJK_RUN.search(found[0][2]) else evidence.kind_of([Row(*r) for r in found])
    if _possessive_name(found):  # "Lloyd’s", "St. James’s": a name with its possessive
        longest += Counter(row[2][-2:] for row in found).most_common(1)[0][0]
    places = tuple(Mention(r[0], Locator(r[6], r[7], r[1]), r[2]) for r in found)
    return XrayEntry(longest, kind, tuple(sorted(surfaces, key=lambda s: -surfaces[s])), len(found), places[0], (),
                     places)  # fmt: skip


def _possessive_name(found: list[tuple[Any, ...]]) -> bool:
    """Whether a name is written with its possessive every time, three at least, and owns nothing by it: mostly a
    stop or a small word after ("to Lloyd’s from anywhere", "the Court of St. James’s."), not "Harker’s diary"."""
    if len(found) < 3 or CJK_RUN.search(found[0][2]) or not all(re.search(r"['’]s$", row[2]) for row in found):
        return False
    nouns = [m.group(1) for row in found if (m := _NEXT.match(row[5])) and m.group(1).lower() not in NOT_NAMES]
    return len(nouns) * 2 < len(found)


_NEXT = re.compile(r"\s+([a-z]+)")
_NOT_FIRST = frozenset(
    (
        "old",
        "young",
        "little",
        "poor",
        "great",
        "good",
        "big",
        "dear",
        "mad",
        "black",
        "white",
        "red",
        "saint",
        "but",
        "and",
        "the",
    )
)


def _first_name_of(surface: str, main: str) -> bool:
    """Whether ``surface`` is a first name before ``main`` ("Sherlock Holmes" for "Holmes"; not "Old Ahab")."""
    words = name_key(surface).split()
    return (
        len(words) == 2
        and words[1] == name_key(main)
        and words[0] not in _NOT_FIRST | TITLES | ADDRESS | NOT_NAMES
        and not re.search(r"['’]", surface)
    )


def _chinese_kind(found: list[tuple[Any, ...]]) -> str:
    """By how the book uses it: a title on it, a surname and a given name the tagger calls a person's (林如海; not 荣国府),
    or speech after a fifth of its uses (雨村道, whatever his name ends in), a person; a place name's ending (府, 园,
    城) or mostly after 在, 到, 从, a place; else by the tagger's tags (``nr`` a person, ``ns`` a place), else a term."""
    person, place = _chinese_evidence(list(found))
    tags = [row[4].partition("\t")[0] for row in found]
    shape, times = Counter(tags).most_common(1)[0]
    if shape in SHAPES and times * 2 > len(tags):  # by its shape, or as the book marked it
        return {coined_zh.PERSON: "person", coined_zh.PLACE: "place"}.get(shape, "term")
    people = sum(t.startswith("nr") for t in tags) * 2 >= len(found)
    surface = found[0][2]
    full_name = len(surface) == 3 and surface[0] in SURNAMES and surface[-1] not in PLACE_ENDINGS and people
    speaks = sum(row[5] in names_zh.SPEECH for row in found)
    if (
        any(row[2].endswith(tuple(TITLE_WORDS)) for row in found)
        or full_name
        or (speaks >= 3 and speaks * 5 >= len(found))
    ):
        return "person"
    ending = sum(row[2][-1] in PLACE_ENDINGS for row in found)
    if person > place + ending:
        return "person"
    if ending * 2 >= len(found) or place > person or tags.count("ns") * 2 >= len(found):
        return "place"
    return "person" if people else "term"


def segment_texts(library: Library, book_id: int, ordinals: list[int]) -> dict[int, str]:
    """The texts of these segments, read in a few queries (not one per mention)."""
    return text_reads.texts_at(library.conn, book_id, ordinals)


def sentences_of(texts: dict[int, str], book_id: int, mentions: tuple[Mention, ...], limit: int) -> list[Citation]:
    """The sentences around the first mentions (each once, at most ``limit``), as citations of the book's words:
    what introduces an entry, and what the AI is sent to describe it."""
    found: list[Citation] = []
    for mention in mentions:
        text = texts.get(mention.ordinal)
        if len(found) == limit or text is None:
            break
        at = mention.locator
        span = next(((a, b) for a, b in sentence_spans(text) if a <= (at.offset or 0) < b), None)
        if span is None or any(c.start == Locator(at.section, at.segment, span[0]) for c in found):
            continue
        start, end = Locator(at.section, at.segment, span[0]), Locator(at.section, at.segment, span[1])
        found.append(Citation(book_id, 0, start, end, text[span[0] : span[1]]))
    return found
