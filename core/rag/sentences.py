"""Sentences inside found passages, ranked by how well each answers a question (the offline answer quotes them).

A sentence scores by the question's words it holds, each weighted by how rare it is among the candidate
sentences (an IDF over this small set, so "the" counts for nothing and "pink" for a lot), a part of those only
the sentence before it holds (its subject is often named there: "…King Shin-no-Shiko. He built…"), plus a prior
for the rank of its passage. English words are folded and lightly stemmed; Chinese and Japanese runs count as
character bigrams, as the full-text index does. Weights are chosen on FairytaleQA train (``bench.answers``).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.books.textutil import CJK_RUN, abbreviation_stop
from core.library.fts import STOPWORDS, fold

# A sentence ends at . ! ? (and the CJK ones) with any closing quotes or brackets, or at a line break.
_END = re.compile(r"[.!?。！？；;…]+[\"'”’」』）)\]]*(?=\s|$|[^\w\"'“‘「『（(])|\n+")
_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_CLAUSE = re.compile(r"[,;:，；：、]\s*|\s+[—–]+\s*|\(|\)")
LONG = 320  # characters: a longer quote is narrowed to the clauses that hold the question's words (FTQ train)
LEAD_IN = 150  # characters more a quote may take to begin at the sentence a pronoun points back to
# A sentence that opens pointing back ("She was one of the prettiest children…") is quoted with the one before it,
# which names what it points to ("…a little Princess named Gold-Tree."): +1.6 points on FairytaleQA train.
_POINTS_BACK = re.compile(
    r"[\"“‘']?(?:He|She|It|They|His|Her|Its|Their|Him|Them|This|That|These|Those|There|Then|So|But|And)\b"
)
_SUFFIXES = ("ingly", "edly", "ing", "ed", "ies", "es", "ly", "s")


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each signal counts; tuned on FairytaleQA train, reported on its validation split and CMRC 2018."""

    passage_prior: float = 0.15  # added for the first passage, decaying as 1 / rank
    min_words: int = 4  # shorter sentences are weighed down (a bare "Yes." or a heading)
    previous: float = 0.3  # the question's words only in the sentence before count this much ("He built…")
    reply: float = 0.6  # ...and this much when that sentence asks a question or ends on a cue ("Her address?")
    asking: float = 0.6  # a sentence that itself asks is rarely the answer: its score is multiplied by this
    meaning: float = 0.0  # the sentence's cosine with the question (the on-device model), where one is given


WEIGHTS = Weights()


@dataclass(frozen=True, slots=True)
class Sentence:
    passage: int  # index of the passage it is in
    start: int  # character offsets inside that passage's text
    end: int
    text: str
    score: float
    overlap: float  # the share of the question's (weighted) words it holds, 0..1
    reply: bool = False  # the paragraph answering a question asked in the one before it (quoted as it is)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, stripped of surrounding blanks."""
    spans, start = [], 0
    for match in _END.finditer(text):
        if abbreviation_stop(text, match.start()) and "\n" not in match.group():
            continue  # "Mr. Holmes": the sentence goes on
        spans.append((start, match.end()))
        start = match.end()
    spans.append((start, len(text)))
    found = []
    for a, b in spans:
        piece = text[a:b]
        left = len(piece) - len(piece.lstrip())
        right = len(piece.rstrip())
        if right > left:
            found.append((a + left, a + right))
    return found


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A light English stemmer (rabbits/rabbit, looked/look); hand-written because the porter stemmer we have
    lives inside SQLite's tokenizer, and this only needs to make a question's words meet a sentence's. Kept for
    the last 65,536 words (a book's vocabulary: its words come back in every passage scored)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


# Words that only say what kind of answer is wanted: they are not looked for in the sentences.
_QUESTION_WORDS = frozenset(("much", "many", "long", "old", "far", "often", "kind", "happen", "happened"))
_ZH_QUESTION_PAIRS = frozenset(("什么", "多少", "怎么", "怎样", "哪里", "哪儿", "哪个", "为什", "如何", "是谁", "多久"))


def asked_terms(question: str) -> set[str]:
    """The words of a question that a sentence answering it would hold (not "how much", 多少 and the like)."""
    return {t for t in terms(question) if t not in _QUESTION_WORDS and t not in _ZH_QUESTION_PAIRS}


def term_list(text: str) -> list[str]:
    """The words a question and a sentence are compared by, in order with repeats: stemmed English words without
    function words, CJK bigrams (a lone CJK character stands for itself)."""
    folded = fold(text)
    found: list[str] = []
    position = 0
    for run in CJK_RUN.finditer(folded):
        found += [_stem(w) for w in _WORD.findall(folded[position : run.start()]) if w not in STOPWORDS]
        chars = run.group()
        found += [chars[i : i + 2] for i in range(len(chars) - 1)] or [chars]
        position = run.end()
    found += [_stem(w) for w in _WORD.findall(folded[position:]) if w not in STOPWORDS]
    return [t for t in found if len(t) > 1 or not t.isascii()]  # no "s" of a possessive, no "t" of a "don't"


def terms(text: str) -> set[str]:
    """The distinct words of :func:`term_list`."""
    return set(term_list(text))


def _length(text: str) -> int:
    """Words in a sentence (a CJK character counts as half a word)."""
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return len(_WORD.findall(CJK_RUN.sub(" ", text))) + cjk // 2


def narrow(text: str, question: str, limit: int = LONG) -> tuple[int, int]:
    """Within a long sentence, the run of clauses (at most ``limit`` characters where it can) holding most of the
    question's words; the whole sentence when it is short. Offsets into ``text``."""
    if len(text) <= limit:
        return 0, len(text)
    asked = terms(question)
    cuts = [0, *(m.end() for m in _CLAUSE.finditer(text)), len(text)]
    clauses = [(a, b) for a, b in itertools.pairwise(cuts) if text[a:b].strip()]
    best, best_score = (0, len(text)), -1.0
    for i in range(len(clauses)):
        for j in range(i, len(clauses)):
            a, b = clauses[i][0], clauses[j][1]
            if b - a > limit and j > i:
                break
            held = len(asked & terms(text[a:b]))
            score = held - (b - a) / 10_000  # most words, then the shorter run
            if score > best_score:
                best, best_score = (a, b), score
    a, b = best
    piece = text[a:b]
    a += len(piece) - len(piece.lstrip())
    b = a + len(piece.strip().rstrip(",;:，；：、—–("))
    return a, b


def quote_span(passage: str, sentence: Sentence, question: str) -> tuple[int, int]:
    """What to quote for a ranked sentence: it and the sentence after it in the same paragraph when the two fit
    in ``LONG`` characters (the answer to "why" or "what happened" often comes just after the words of the
    question: +10 points on FairytaleQA train), with the sentence before it when it opens with a pronoun (within
    ``LEAD_IN`` characters more), narrowed to its best clauses when longer. Offsets in ``passage``.
    """
    a, b = sentence.start, sentence.end
    if sentence.reply:
        return a, b  # the reply paragraph's opening, already within LONG
    spans = sentence_spans(passage)
    following = next(((x, y) for x, y in spans if x >= b), None)
    if following is not None and following[1] - a <= LONG and "\n" not in passage[b : following[0]]:
        b = following[1]
    limit = LONG
    previous = next(((x, y) for x, y in reversed(spans) if y <= a), None)
    if (
        previous is not None
        and _POINTS_BACK.match(passage, a)
        and "\n" not in passage[previous[1] : a]
        and b - previous[0] <= LONG + LEAD_IN
    ):
        a = previous[0]
        limit = max(LONG, b - a)
    x, y = narrow(passage[a:b], question, limit)
    return a + x, a + y


_QUESTION_MARKS = ("?", "？")


def _last_mark(sentence: str) -> str:
    """The sentence's last character inside its closing quotes and brackets."""
    return sentence.rstrip(" \"'”’」』)")[-1:]


def asks(sentence: str) -> bool:
    """Whether a sentence asks something or announces what follows ("Her address?", "…as follows:"): the next
    one answers it."""
    return _last_mark(sentence) in (*_QUESTION_MARKS, ":", "：")


def overlapping(one: Sentence, other: Sentence) -> bool:
    """Whether two ranked candidates share text (a reply and a sentence in it)."""
    return one.passage == other.passage and one.start < other.end and other.start < one.end


def _replies(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(start, end, the asking sentence's index) of each paragraph that follows a sentence asking something or
    ending on a cue: its opening sentences, within ``LONG`` characters (at least its first one)."""
    found = []
    for i, (a, b) in enumerate(spans[:-1]):
        start = spans[i + 1][0]
        if not asks(text[a:b]) or "\n" not in text[b:start]:
            continue
        end = spans[i + 1][1]
        for x, y in spans[i + 2 :]:
            if "\n" in text[end:x] or y - start > LONG:
                break
            end = y
        found.append((start, end, i))
    return found


def rank_sentences(
    question: str,
    passages: list[str],
    weights: Weights = WEIGHTS,
    similarity: Callable[[list[str]], Sequence[float]] | None = None,
) -> list[Sentence]:
    """Every sentence of the passages (in rank order), best answer first; with ``weights.reply``, also each reply
    to a question asked in dialogue ("Her address?" and the paragraph after it), as one candidate. ``similarity``
    gives each candidate's closeness in meaning to the question (cosines from the on-device model), counted at
    ``weights.meaning``."""
    asked = asked_terms(question) or terms(question)
    # (passage, start, end, text, its words, the words of the sentence before it or of the question it answers,
    # whether it is a reply)
    candidates: list[tuple[int, int, int, str, set[str], set[str], bool]] = []
    for index, text in enumerate(passages):
        spans = sentence_spans(text)
        words = [terms(text[a:b]) for a, b in spans]
        for i, (a, b) in enumerate(spans):
            candidates.append((index, a, b, text[a:b], words[i], words[i - 1] if i else set(), False))
        if weights.reply:
            for a, b, i in _replies(text, spans):
                candidates.append((index, a, b, text[a:b], terms(text[a:b]), words[i], True))
    if not candidates or not asked:
        return []
    meaning: Sequence[float] = [0.0] * len(candidates)
    if similarity is not None and weights.meaning:
        meaning = similarity([c[3] for c in candidates])
    sentences = [c for c in candidates if not c[6]]  # a reply repeats sentences: they are counted once
    count = len(sentences)
    frequency = {t: sum(1 for c in sentences if t in c[4]) for t in asked}
    idf = {t: math.log(1 + count / (1 + n)) for t, n in frequency.items()}
    # fsum: a set's order follows the process's string hashes, and a plain sum's last bit with it; a share exactly
    # at the answering threshold (0.25) was answered in one run and not in the next.
    total = math.fsum(idf.values()) or 1.0
    ranked = []
    for (index, a, b, text, held, before, reply), close in zip(candidates, meaning, strict=True):
        overlap = math.fsum(idf[t] for t in asked & held) / total
        carried = math.fsum(idf[t] for t in (asked & before) - held) / total
        if reply:  # a reply is short by nature ("Bingley."): the words of the question it answers count too
            overlap = min(1.0, overlap + weights.reply * carried)
            score = overlap
        else:
            short = min(1.0, _length(text) / max(1, weights.min_words))
            score = (overlap + weights.previous * carried) * short
            if _last_mark(text) in _QUESTION_MARKS:
                score *= weights.asking
        score += weights.passage_prior / (1 + index) + weights.meaning * close
        ranked.append(Sentence(index, a, b, text, score, overlap, reply))
    ranked.sort(key=lambda s: (-s.score, s.passage, not s.reply, s.start))  # a reply before its question
    return ranked


_CAPITAL = re.compile(r"[A-Z]")


def label_line(passage: str, sentence: Sentence) -> bool:
    """Whether a sentence is in a line of its own written as a title: every word capitalised but the small ones, two
    capitals at least, no speech ("Dr. Seward’s Diary.", "Letter from Dr. Seward to Arthur Holmwood.", "Telegram
    from Arthur Holmwood to Quincey P. Morris"). Such a line names what follows (a diary's entry, a letter) and never
    answers; a reply said alone ("“Bingley.”") is speech, and stays."""
    start = passage.rfind("\n", 0, sentence.start) + 1
    end = passage.find("\n", sentence.end)
    line = passage[start : len(passage) if end < 0 else end]
    if re.search(r"[\"“”‘「」『』]", line) or CJK_RUN.search(line):
        return False
    words = _WORD.findall(line)
    if not 2 <= len(words) <= 16:
        return False
    capitals = [w for w in words if _CAPITAL.match(w)]
    rest = [w for w in words if not _CAPITAL.match(w) and not w.isdigit()]
    return len(capitals) >= 2 and all(fold(w) in STOPWORDS or len(w) == 1 for w in rest)
