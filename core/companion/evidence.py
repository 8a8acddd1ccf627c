"""What a book's own use says of an English capitalised run: whether it is a name, where it starts, and its kind.

Every judgement here reads the mentions before the reader's place (and the words of that same text), never a list
of the names of any book. A run that opens a sentence keeps its first word only when the book also writes the
whole run mid-sentence ("Van Helsing", not "Later Holmes"); "Seward’s Diary" is Seward's when the book names Seward
on his own more often; a word the book writes in lowercase more often than capitalised mid-sentence is a common
word ("Thing", "Death", "Friend"), not a name; one surname that the book gives to a man and a woman ("Mr. Bennet",
"Mrs. Bennet") is two people. The kind comes from the company each mention keeps: what a person does (speaks, is
spoken to, has a face and a wife, is called Mr.), what a place is (where one goes to, comes from, lives at, the
town of, ... Street).

The short lists here are English grammar (prepositions, verbs of speech and motion, titles, a body's and a
household's nouns, the words that end a place's name), the same for every book.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter, defaultdict
from typing import NamedTuple

from core.companion.names import FIRM, NOT_NAMES, TITLES, name_key


class Row(NamedTuple):
    """One stored mention: where, the run as written, whether it opens a sentence, and the text either side."""

    ordinal: int
    start: int
    name: str
    at_start: bool
    before: str
    after: str
    section: int
    segment: int
    common: int


# Titles that say a person's sex and state: one surname under two of these classes is two people.
_SEXES = {
    **dict.fromkeys(("mr", "mister", "sir", "lord", "master", "monsieur", "herr", "signor", "senor", "don"), "m"),
    **dict.fromkeys(("mrs", "lady", "madam", "madame", "dame", "frau", "signora", "senora"), "f"),
    **dict.fromkeys(("miss", "ms", "mademoiselle", "mlle", "fraulein", "signorina", "senorita"), "u"),
}
SEX_TITLE = {"m": "Mr.", "f": "Mrs.", "u": "Miss"}
SPEECH_VERBS = r"said|says|say|asked|asks|cried|cries|replied|answered|thought|whispered|shouted|exclaimed|added|"
SPEECH_VERBS += r"continued|went on|began|muttered|murmured|repeated|returned|observed|remarked|interrupted"
_SPEECH_AFTER = re.compile(rf"^[’'”\"]?\s*,?\s*(?:{SPEECH_VERBS})\b", re.I)
_SPEECH_BEFORE = re.compile(rf"\b(?:{SPEECH_VERBS})\s+(?:the\s+)?$", re.I)  # "said the Lory"
# What a being does right after its name ("Alice had", "Quincey nodded", "the Dormouse shook itself").
_DOES = re.compile(
    r"^\s+(?:(?:had|has|would|could|should|will|shall|did|does|must|might)\s+(?:not\s+|never\s+|just\s+|also\s+)?"
    r"(?:been\s+)?[a-z]+|(?:shook|nodded|smiled|laughed|sighed|sobbed|wept|frowned|looked|stared|glanced|knew|felt|"
    r"wanted|wished|hoped|remembered|forgot|thought|saw|heard|turned|took|gave|got|told|spoke|wrote|read|sat|stood|"
    r"rose|ran|walked|went|came|seemed|tried|made|put|held|kissed|bowed|began|kept|let|left|died|lay|slept|woke|"
    r"listened|answered|agreed|whispered|himself|herself|who|whom|whose|and\s+I|and\s+he|and\s+she)\b)"
)
# A possessive before what only a being has ("Lucy’s face", "Mr. Bennet’s wife").
_HAS = re.compile(
    r"^\s+(?:own\s+)?(?:face|eyes|eye|hand|hands|arm|arms|head|heart|mind|voice|lips|mouth|hair|cheek|cheeks|brow|"
    r"forehead|neck|throat|feet|foot|shoulder|shoulders|wife|husband|mother|father|sister|sisters|brother|brothers|"
    r"daughter|daughters|son|sons|uncle|aunt|cousin|friend|friends|family|children|child|servant|servants|letter|"
    r"letters|manner|manners|character|temper|fate|life|death|health|name|opinion|feelings|love|marriage|death|"
    r"diary|journal|room|bedside|side|wishes|sake|regard|affection|attentions|behaviour|behavior|conduct)\b",
    re.I,
)
# Spoken to: "“Jonathan,” she said", "Oh, Lucy!", "my dear Mina".
_CALLED_BEFORE = re.compile(r"(?:[“\"‘]|\b(?:oh|dear|my|poor|thank\s+you|no|yes)\W*)$", re.I)
_CALLED_AFTER = re.compile(r"^[,!?]")
_SIGNED = re.compile(r"\bsigned\s+(?:by\s+)?[“\"‘]?$", re.I)  # "a receipt signed “Immanuel Hildesheim”": a person
# A degree or an honour after the name, as a letter is signed ("Patrick Hennessey, M.D."): a person.
_DEGREE_AFTER = re.compile(r"^,?\s*(?:M\.\s?D|Ph\.\s?D|M\.\s?A|B\.\s?A|Esq|F\.\s?R\.\s?S|Q\.\s?C|K\.\s?C)\.?(?![a-z])")
_IN = r"in|at|from|into|near|through|towards?|across|via|beyond|outside|inside|within|around|throughout|reached|"
_IN += r"reach|reaching|leave|leaving|left|visit|visited|visiting|quit|quitted|approached|entered|leaves|nearer|"
_IN += r"over|behind|beneath|below"
_PLACE_BEFORE = re.compile(rf"\b(?:{_IN})\s+(?:the\s+)?$", re.I)
_MOTION = r"go|goes|going|went|gone|come|comes|coming|came|return|returned|returning|back|way|journey|road|train|"
_MOTION += r"drive|drove|driven|travel|travelled|traveled|sent|send|moved|removed|get|got|hurried|hastened|set\s+out|"
_MOTION += r"started|off|walk|walked|ride|rode|sail|sailed|sailing|bound|carried|taken|took|fly|flew|escape|escaped"
_TO_PLACE = re.compile(rf"\b(?:{_MOTION})\s+(?:[a-z]+\s+)?to\s+(?:the\s+)?$", re.I)
_ALONG = re.compile(r"\b(?:up|down|along)\s+the\s+$", re.I)  # "up the Esk", "along the Strand": a river, a road
# "Attila, whose blood": a relative pronoun for people after the name (a place takes "which" or "where").
_WHO = re.compile(r"^,?\s+(?:who|whom|whose)\b")
# A capital "The" inside a sentence before the name: the title of a paper, a book or a ship ("from The Dailygraph").
_TITLED_THE = re.compile(r"(?:[a-z,;]|[a-z][’'])\s+The\s+$")
_OF_PLACE = re.compile(
    r"\b(?:stream|waters|source|town|city|village|county|country|province|kingdom|capital|streets|port|harbour|harbor|outskirts|"
    r"neighbourhood|neighborhood|coast|shores|banks|mouth|north|south|east|west|part|parts|side|middle|heart|"
    r"road|way|direction|inhabitants|people|hills|mountains|valley|plains|borders|district|parish)\s+of\s+(?:the\s+)?$",
    re.I,
)
# The words a place's name ends or starts with ("Baker Street", "Castle Dracula", "King’s Cross").
_PLACE_LAST = frozenset(
    [
        "street",
        "road",
        "lane",
        "square",
        "park",
        "house",
        "hall",
        "castle",
        "court",
        "place",
        "hill",
        "hills",
        "cliff",
        "heath",
        "pass",
        "river",
        "sea",
        "ocean",
        "bay",
        "island",
        "isle",
        "islands",
        "mountains",
        "mountain",
        "abbey",
        "church",
        "chapel",
        "cathedral",
        "bridge",
        "gate",
        "gardens",
        "garden",
        "crescent",
        "terrace",
        "row",
        "inn",
        "hotel",
        "station",
        "cross",
        "end",
        "common",
        "wood",
        "woods",
        "forest",
        "lake",
        "valley",
        "harbour",
        "harbor",
        "port",
        "mount",
        "land",
        "shire",
        "town",
        "city",
        "village",
        "pier",
        "wharf",
        "museum",
        "lodge",
        "parsonage",
        "manor",
        "farm",
        "green",
        "fields",
        "field",
        "moor",
        "downs",
        "marsh",
        "palace",
        "tower",
        "square",
        "avenue",
        "gulf",
        "strait",
        "straits",
        "channel",
        "cape",
        "point",
        "head",
        "coast",
        "desert",
        "plain",
        "plains",
        "county",
        "district",
    ]
)
_PLACE_FIRST = frozenset(("castle", "mount", "lake", "port", "fort", "cape", "isle", "loch", "glen", "saint", "st"))
KIND_SAMPLE = 48  # mentions read for an entry's kind, spread over all of them
_ARTICLE = re.compile(r"\b(?:the|a|an)\s+$", re.I)
_POSSESSIVE = re.compile(r"['’]s?\s")


def resplit(rows: list[Row], proper: frozenset[str] = frozenset()) -> list[Row]:
    """Runs that open a sentence, kept whole by the finder, lose their first word unless the book writes the whole
    run mid-sentence somewhere before the place too ("Van Helsing" stays; "Later Holmes" is "Holmes"), or that word
    is one of ``proper``: words the book never writes in lowercase (a telegram's "Rufus Smith, Lloyd’s, London")."""
    written_mid = {
        name_key(r.name) for r in rows if not r.at_start or r.name.split(" ")[0].rstrip(".").lower() in TITLES
    }
    out = []
    for r in rows:
        words = r.name.split(" ")
        first = words[0].rstrip(".").lower()
        whole = name_key(r.name) in written_mid or place_name(r.name) or first in proper  # "Green Park" too
        if r.at_start and len(words) > 1 and (first in TITLES or first in proper):
            r = r._replace(at_start=False)  # "Mr. Neville St. Clair", "Rufus Smith": a name's capitals, not grammar
        elif r.at_start and len(words) > 1 and not whole:
            cut = len(words[0]) + 1
            r = r._replace(name=r.name[cut:], start=r.start + cut, at_start=False, before=r.before + r.name[:cut])
        out.append(r)
    return out


def opening_words(rows: list[Row]) -> set[str]:
    """The first words (lowercase) that ``resplit`` may keep on a run opening a sentence, whose lowercase use in the
    book then decides it: the run is two capitalised words or more ("Presently the Rabbit" is not), written so at
    least twice (a telegram's header, "Rufus Smith, Lloyd’s, London"), and its first word is no title, no small
    word and no adverb ("Presently", "Suddenly")."""
    runs = Counter(r.name for r in rows if r.at_start and " " in r.name)
    found = set()
    for run, count in runs.items():
        words = run.split(" ")
        first = words[0].lower()
        if (
            count >= 2 and words[1][:1].isupper() and first.isalpha() and len(first) > 2
            and first not in TITLES and first not in NOT_NAMES and not first.endswith("ly")
        ):  # fmt: skip
            found.add(first)
    return found


def possessive_head(name: str) -> tuple[str, str] | None:
    """A run with a possessive inside it, cut there: ("Seward’s", " Diary"); None for one without, or a place's
    name built so ("St. Mary’s Church")."""
    found = _POSSESSIVE.search(name)
    if found is None or found.end() >= len(name) or place_name(name):
        return None
    return name[: found.end() - 1], name[found.end() - 1 :]


def possessive_owner(name: str, names: set[str]) -> tuple[str, str] | None:
    """For "Seward’s Diary": ("Seward’s", " Diary") when the part before the possessive is a name the book uses on
    its own ("King’s Cross" stays whole where "King" is no name)."""
    cut = possessive_head(name)
    return cut if cut is not None and name_key(cut[0]) in names else None


def lowercase_counts(texts: list[str], words: set[str]) -> Counter[str]:
    """How often each of ``words`` (lowercase) is written in lowercase in these texts."""
    counts: Counter[str] = Counter()
    if not words:
        return counts
    for text in texts:
        counts.update(w for w in re.findall(r"\b[a-z]+\b", text) if w in words)
    return counts


def common_word(key: str, rows: list[Row], lowercase: Counter[str]) -> bool:
    """Whether a one-word run is a common word the book capitalises now and then ("Thing", "Death"): written in
    lowercase more often than capitalised mid-sentence. A run with a title is a name whatever its word."""
    if " " in key or any(has_title(r.name) for r in rows):
        return False
    capitalised = sum(not r.at_start for r in rows)
    return lowercase[key] > capitalised


def common_phrase(key: str, rows: list[Row], lowercase: Counter[str]) -> bool:
    """Whether a run of several words is a phrase a title capitalised ("Why the Chimes Rang, and Other Stories"
    in a list of books): each word the book writes in lowercase more often than the run is written, no
    mention after "the" (the Happy Prince, the Snow Queen are characters so called), and nothing a person or a
    place keeps company with."""
    words = key.split(" ")
    if (
        len(words) < 2
        or any(has_title(r.name) for r in rows)
        or mostly_after_article(rows)
        or any(_ARTICLE.search(r.before) for r in rows)
    ):
        return False
    if not all(lowercase[w] > len(rows) for w in words):
        return False
    return kind_of(rows) == "unknown"


def has_title(name: str) -> bool:
    """Whether a run starts with a title and holds a name after it ("Mr. Bennet", not "King’s Cross")."""
    words = name.replace(".", " ").split()
    titled = len(words) > 1 and words[0].lower() in TITLES and not re.search(r"['’]s?$", words[0])
    return titled and not place_name(name)  # "St. Mary’s Church", "King’s Cross"


def sex_of(name: str) -> str | None:
    """The class of a run's title: "m" (Mr., Sir), "f" (Mrs., Lady) or "u" (Miss), None for none or a rank."""
    words = name.replace(".", " ").split()
    return _SEXES.get(words[0].lower()) if len(words) > 1 else None


def split_by_sex(key: str, rows: list[Row]) -> dict[str, list[Row]] | None:
    """One surname the book gives under two or more of Mr./Mrs./Miss (each at least twice): a group per class, the
    untitled mentions going with the class named most. None when the book gives it one person."""
    by_sex: dict[str, list[Row]] = defaultdict(list)
    untitled: list[Row] = []
    for r in rows:
        sex = sex_of(r.name) if name_key(r.name) == key else None
        (by_sex[sex] if sex else untitled).append(r)
    classes = [s for s, found in by_sex.items() if len(found) >= 2]
    if len(classes) < 2:
        return None
    biggest = max(classes, key=lambda s: len(by_sex[s]))
    groups = {f"{s}:{key}": by_sex[s] for s in classes}
    groups[f"{biggest}:{key}"] += untitled + [r for s, found in by_sex.items() if s not in classes for r in found]
    return groups


def place_name(name: str) -> bool:
    """Whether a run is built like a place's name ("Baker Street", "Castle Dracula", "St. Mary’s Church")."""
    words = [w for w in re.sub(r"['’]s\b", "", name).replace(".", " ").split() if w]
    if len(words) < 2:
        return False
    return words[-1].lower() in _PLACE_LAST or words[0].lower() in _PLACE_FIRST - {"saint", "st"}


def _sample(rows: list[Row]) -> list[Row]:
    """Up to KIND_SAMPLE mentions, chosen by their own words (a checksum of the text either side), not by their
    place in the list: one mention more or less (an EPUB and the same book as FB2) changes one mention of the
    sample, where every n-th mention changed them all (the Pequod was a place in one and a person in the other)."""
    if len(rows) <= KIND_SAMPLE:
        return rows
    return sorted(rows, key=lambda r: zlib.crc32(f"{r.before[-24:]}|{r.name}|{r.after[:24]}".encode()))[:KIND_SAMPLE]


def kind_of(rows: list[Row]) -> str:
    """Person, place or term, by the company its mentions keep (see the module's docstring)."""
    if any(FIRM.fullmatch(r.name) for r in rows):
        return "term"  # a firm ("Carter, Paterson & Co."), whatever it does
    if any(place_name(r.name) for r in rows) and not any(has_title(r.name) for r in rows):
        return "place"
    if sum(bool(_TITLED_THE.search(r.before)) for r in rows) * 2 >= len(rows):
        return "term"
    person = place = 0
    for r in _sample(rows):
        if has_title(r.name):
            person += 2
            continue
        before, after = r.before, r.after
        possessive = re.search(r"['’]s?$", r.name) is not None
        if (
            _SPEECH_AFTER.match(after)
            or _SPEECH_BEFORE.search(before)
            or (possessive and _HAS.match(after))
            or (not possessive and (_DOES.match(after) or _WHO.match(after)))
            or (_CALLED_AFTER.match(after) and _CALLED_BEFORE.search(before))
            or _SIGNED.search(before)
        ):
            person += 1
        if _DEGREE_AFTER.match(after):
            person += 2  # as a title before it counts
        if (
            _PLACE_BEFORE.search(before)
            or _TO_PLACE.search(before)
            or _OF_PLACE.search(before)
            or _ALONG.search(before)
        ):
            place += 1
    if place > person:
        return "place"
    if person:
        return "person"
    return "unknown"  # decided with the other entries (``core.companion.xray``)


def mostly_after_article(rows: list[Row]) -> bool:
    """Whether most mentions follow "the" or "a" ("the Demeter", "the Queen")."""
    return sum(bool(_ARTICLE.search(r.before)) for r in rows) * 2 > len(rows)


def titled_owner(title: str, rows: list[Row], names: set[str]) -> str | None:
    """The name the book writes after this title ("Count" for "Count Dracula"): the one it gives, or the one given
    three times in four when it gives others too ("Count de Ville" once or twice)."""
    owners = Counter(name_key(r.name) for r in rows if r.name.split(" ")[0].rstrip(".").lower() == title)
    owners = Counter({k: n for k, n in owners.items() if k in names and k != title})
    if not owners:
        return None
    owner, count = owners.most_common(1)[0]
    return owner if count * 4 >= sum(owners.values()) * 3 else None


def peoples(names: set[str], by_key: dict[str, list[Row]]) -> set[str]:
    """A word the book writes both alone and with a plural "s", neither ever after a title: a people and its
    adjective ("Slovak", "Slovaks"), not a family (the Bennets are Mr. and Mrs. Bennet's)."""
    found = set()
    for key in names:
        plural = key + "s"
        if " " in key or plural not in names:
            continue
        if not any(has_title(r.name) for r in by_key[key] + by_key[plural]):
            found |= {key, plural}
    return found


# Not an X-Ray entry whatever the book: the deity and the hereafter, feasts, the compass's points, abbreviations
# that stand beside names ("& Co.", "the Hon.", "Messrs."), as the gold lists' makers also left them out.
_NEVER = frozenset(
    [
        "god",
        "gods",
        "heaven",
        "hell",
        "devil",
        "satan",
        "lucifer",
        "almighty",
        "providence",
        "judgment",
        "judgement",
        "doomsday",
        "hereafter",
        "christmas",
        "easter",
        "michaelmas",
        "whitsun",
        "whitsuntide",
        "lent",
        "candlemas",
        "midsummer",
        "martinmas",
        "lammas",
        "north",
        "south",
        "east",
        "west",
        "northern",
        "southern",
        "eastern",
        "western",
        "co",
        "hon",
        "messrs",
        "sirs",
        "esq",
        "gott",
    ]
)


def not_a_name(key: str) -> bool:
    """Whether a key is grammar or a word of the kinds X-Ray leaves out, not a name: a pronoun, a weekday,
    "Chapter", God or Heaven, a feast, a point of the compass ("Almighty God", "Day of Judgment": all its words)."""
    words = [w for w in key.replace("-", " ").split() if w not in ("of", "the", "day")]
    return key in NOT_NAMES or (bool(words) and all(w in _NEVER or w in NOT_NAMES for w in words))
