"""Names as a book writes them: capitalised runs of words found in a segment's text (English and other Latin text).

Each run is kept with whether it opens a sentence (where a capital may only be grammar) and the words around it;
deciding which runs are names happens later, from the mentions before a place only (``core.companion.xray``).
Hand-written because the packaged taggers (spaCy, NLTK) bring models of hundreds of MB that phones cannot carry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.books.textutil import abbreviation_stop
from core.library.fts import STOPWORDS
from core.rag.sentences import sentence_spans

# A capitalised word (O'Brien, McGinty, Saint-Clair, Moby-Dick), and the small words a name may hold inside it.
_UPPER, _LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"  # Latin letters with their accents: "Zoölogical Gardens", "Émile"
_WORD = re.compile(
    rf"(?:Ma?c(?=[A-Z])|O['’](?=[A-Z]))?[{_UPPER}][{_LOWER}]+(?:['’-][{_UPPER}]?[{_LOWER}]+)*\b|[A-Z]\.(?=\s)"
)
# Abbreviations that a name holds inside it with their full stop ("Mr. Neville St. Clair", "St. Mary’s Church").
_ABBREVIATED = frozenset(("Mr", "Mrs", "Ms", "Dr", "St", "Ste", "Mt", "Ft", "Messrs", "Capt", "Col", "Rev", "Prof"))
_JOINERS = frozenset(("of", "de", "la", "von", "van", "du", "del", "the"))
_PARTICLES = frozenset(("de", "von", "van", "du", "del"))  # inside a longer name too ("Sir Lewis de Bourgh")
TITLES = frozenset(("mr", "mrs", "ms", "miss", "dr", "sir", "lady", "lord", "captain", "capt", "king", "queen",
                    "prince", "princess", "aunt", "uncle", "mister", "madame", "madam", "mademoiselle", "monsieur",
                    "father", "mother", "saint", "st", "ste", "professor", "colonel", "general", "major", "duke",
                    "duchess", "count", "countess", "reverend", "rev", "judge", "doctor"))  # fmt: skip
# Capitalised words that are not names on their own (a sentence's first word is often one of these).
_NOT_NAMES = """a an the and but or nor for so yet if then than when where while why how what which who whom whose this
that these those there here i i'm i'll i've i'd me my mine we us our you your he him his she her it its they them their
oh ah yes no not now well what's it's that's there's here's let let's do does did don't can't won't is was are were be
been am have has had will would shall should may might must could chapter book part volume monday tuesday wednesday
thursday friday saturday sunday january february march april may june july august september october november december
sir madam mr mrs miss dr one two three four five six seven eight nine ten first second third last next all any some
every each both few many much more most none nothing everything anything something never always only just very too
quite please thank thanks good bad dear come go get take give make look see say tell hold stop wait off on up down out
in at by with from into onto upon after before as to though although because since unless until till whether besides
however therefore thus hence indeed thou thee thy thine ye aye nay yea hath doth art tis 'tis o lo alas hark hurrah
stand"""
NOT_NAMES = frozenset(_NOT_NAMES.split()) | STOPWORDS
# Words of NOT_NAMES that may open a name all the same ("March Hare", "Mr. Darcy", "Friday Street").
_KEEP_FIRST = TITLES | frozenset(
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "first",
        "second",
        "third",
        "last",
    ]
)
# A firm: names joined by commas and an ampersand ("Carter, Paterson & Co.", "Mitchell, Sons, & Candy",
# "Billington & Son"): one name, not a name per word.
FIRM = re.compile(
    r"[A-Z][a-z]+(?:,?[ \u00a0]+(?:[A-Z][a-z]+|[A-Z]\.|Sons?))*,?[ \u00a0]+&[ \u00a0]+(?:Co\.|Sons?\b|[A-Z][a-z]+\b)"
)
CONTEXT = 48  # characters of the sentence kept either side of a mention: the evidence for its kind
_OPENING = re.compile(r"[\s\"'“‘(\[—–-]*")
_OPENS_CLAUSE = set("\"'“‘([—–-:;!?.")  # a capital right after one of these may be grammar only


@dataclass(frozen=True, slots=True)
class NameMention:
    """A capitalised run in a segment: its words as written, where, and the sentence's text either side of it (up
    to ``CONTEXT`` characters each, as written: punctuation and quotes are evidence too)."""

    start: int
    name: str
    at_start: bool  # it opens a sentence: the capital may be grammar only
    before: str
    after: str


def name_mentions(text: str) -> list[NameMention]:
    """Every capitalised run of a segment's text that could be a name (``NOT_NAMES`` alone are left out)."""
    found: list[NameMention] = []
    for a, b in sentence_spans(text):
        opening = a + _OPENING.match(text, a).end() - a  # type: ignore[union-attr]  # always matches
        words = list(_WORD.finditer(text, a, b))
        i = 0
        while i < len(words):
            firm = _firm(text, words, i, b)
            if firm is not None:  # "Carter, Paterson & Co.": one name across its commas
                found.append(firm[0])
                i = firm[1]
                continue
            first = words[i]
            run = [first]
            j = i + 1
            while j < len(words):  # the next word joins the run when only a space (or "of", "de" …) lies between
                gap = text[run[-1].end() : words[j].start()].replace("\u00a0", " ")  # "Mr.\u00a0Bennet"
                by_joiner = (
                    (len(run) == 1 or gap.strip() in _PARTICLES)
                    and gap.strip() in _JOINERS
                    and gap.startswith(" ")
                    and gap.endswith(" ")
                )
                abbreviated = gap == ". " and run[-1].group() in _ABBREVIATED  # "St. Clair"
                if gap == " " or by_joiner or abbreviated:  # "Queen of Hearts"; "Holmes of Baker Street" is two
                    run.append(words[j])
                    j += 1
                else:
                    break
            i = j
            while len(run) > 1 and _plain(run[0].group()) in NOT_NAMES and _plain(run[0].group()) not in _KEEP_FIRST:
                run = run[1:]  # "If the Deil", "Even the Almighty", "The White Rabbit": the name starts later
            opens = run[0].start() <= opening or _after_opening(text, run[0].start())
            # A run that opens a sentence is kept whole ("Van Helsing", "Later Holmes"): whether its first word
            # belongs to it is judged by the whole book (``core.companion.xray``), not by this sentence alone.
            mention = _mention(text, a, b, run, opens)
            if mention is not None:
                found.append(mention)
    return found


def _firm(text: str, words: list[re.Match[str]], i: int, b: int) -> tuple[NameMention, int] | None:
    """A firm's name starting at word ``i`` (after "Messrs."), as a mention, and the index of the word after it."""
    at = i + 1 if words[i].group() == "Messrs" and i + 1 < len(words) else i
    found = FIRM.match(text, words[at].start(), b)
    if found is None:
        return None
    end = found.end()
    after = next((j for j in range(at, len(words)) if words[j].start() >= end), len(words))
    sentence_start = max(0, found.start() - CONTEXT)
    mention = NameMention(found.start(), found.group().replace("\u00a0", " "), False, text[sentence_start : found.start()],
                          text[end : min(b, end + CONTEXT)])  # fmt: skip
    return mention, after


def _mention(text: str, a: int, b: int, run: list[re.Match[str]], at_start: bool) -> NameMention | None:
    """A run of words inside the sentence ``text[a:b]`` as a mention, or None when it holds no name."""
    start, end = run[0].start(), run[-1].end()
    name = text[start:end].replace("\u00a0", " ")  # a no-break space inside a name is a space
    if all(_plain(w) in NOT_NAMES or len(w) < 2 for w in name.split(" ")):
        return None
    return NameMention(start, name, at_start, text[max(a, start - CONTEXT) : start], text[end : min(b, end + CONTEXT)])


def _plain(word: str) -> str:
    """A word as the lists hold it: lowercase, straight apostrophe, no possessive or full stop ("That’s": "that")."""
    return re.sub(r"'s$", "", word.lower().replace("’", "'").rstrip("."))


def _after_opening(text: str, start: int) -> bool:
    """Whether a word follows an opening quote, a colon or a dash: it may start what someone says."""
    before = text[:start].rstrip()
    if before.endswith(".") and abbreviation_stop(text, len(before) - 1):
        return False  # "Mr. Holmes": the full stop ends a title, not a sentence
    return bool(before) and before[-1] in _OPENS_CLAUSE


@lru_cache(maxsize=1 << 16)
def name_key(name: str) -> str:
    """The name without its titles, casefolded: "Mr. Sherlock Holmes" and "Sherlock Holmes" share one key."""
    words = [w for w in re.sub(r"['’]s$", "", name).replace(".", " ").split() if w]
    while len(words) > 1 and words[0].lower() in TITLES and words[1].lower() not in _JOINERS:  # "Queen of Hearts"
        words = words[1:]
    if len(words) > 1 and words[0].lower() in ("the", "a", "an"):  # "The King" opening a line
        words = words[1:]
    return " ".join(words).casefold()


def has_title(name: str) -> bool:
    first = name.replace(".", " ").split()[0].lower() if name.strip() else ""
    return first in TITLES
