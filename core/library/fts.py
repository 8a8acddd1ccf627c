"""Full-text search text for SQLite FTS5 that works for Chinese and English alike.

FTS5's unicode61 tokenizer splits English into words but treats a run of Chinese characters as one
token, and its trigram tokenizer cannot match two-character words. So CJK runs are indexed as
overlapping bigrams plus the run's last character, and queries are rewritten the same way.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.books.textutil import CJK_RUN

# The keyword index of passages: Porter stems on Unicode words, diacritics folded (migrations, core/rag/chunk_terms.py).
CHUNK_TOKENIZER = "porter unicode61 remove_diacritics 2"
_WORD = re.compile(r"\w+", re.UNICODE)
_FROM_CJK = re.compile("[\u2e80-\U0010ffff]")  # where the traditional-to-simplified table starts


def _bigrams(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


@lru_cache(maxsize=1)
def _simplified() -> dict[int, str]:
    """Traditional → simplified Chinese, character by character, from OpenCC's table (the package's data file).

    Character by character (not OpenCC's phrase conversion), so that a folded text keeps its length and a
    match's offsets still point into the original; for finding words that is what matters.
    """
    import opencc  # opencc-python-reimplemented: its dictionaries as data files, pure Python

    path = Path(opencc.__file__).parent / "dictionary" / "TSCharacters.txt"
    table: dict[int, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        traditional, _, simplified = line.partition("\t")
        first = simplified.split(" ")[0]
        if len(traditional) == 1 and len(first) == 1:
            table[ord(traditional)] = first
    return table


def fold(text: str) -> str:
    """The form text is searched in: compatibility-normalised, case-folded, Chinese in simplified characters.

    Full-width ＡＢＣ１２ match ABC12, ﬁ matches fi, and 黛玉 finds 黛玉 in a traditional-character edition (and a
    traditional query finds simplified text).
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    # The table's characters are all CJK (from U+2E80 up): a text without any keeps its letters, and skipping
    # ``translate`` there (a dictionary lookup per character) took importing Moby-Dick from 0.93 s to 0.82 s.
    return folded.translate(_simplified()) if _FROM_CJK.search(folded) else folded


_NON_WORD = re.compile(r"[^\w]+")


def heading_form(text: str) -> str:
    """Text as a heading is compared with a line of the book: folded, its punctuation and spacing dropped ("Chapter
    1. Loomings." and "chapter 1 loomings" are one)."""
    return " ".join(_NON_WORD.sub(" ", fold(text)).split())


@lru_cache(maxsize=1 << 16)
def _fold_char(char: str) -> str:
    return fold(char)


def _fold_with_map(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` character by character and, for each folded character, the index of the original one.

    Characters are folded through a cache (a book has a few thousand distinct ones): a search that draws
    snippets for 1,375 mentions of 黛玉 folded 190,000 characters one call at a time.
    """
    pieces = list(map(_fold_char, text))
    if all(len(piece) == 1 for piece in pieces):  # the common case: one character for one
        return "".join(pieces), list(range(len(text)))
    origin: list[int] = []
    for index, piece in enumerate(pieces):
        origin.extend([index] * len(piece))
    return "".join(pieces), origin


def index_text(text: str) -> str:
    """The text stored in the FTS index: folded, CJK runs as bigrams (and a trailing unigram)."""
    return CJK_RUN.sub(lambda m: " " + " ".join(_bigrams(m.group())) + " ", fold(text))


def query_terms(query: str) -> list[str]:
    """The terms of a user query: CJK runs and words, in order, folded, without duplicates."""
    query = fold(query)
    terms: list[str] = []
    position = 0
    for match in CJK_RUN.finditer(query):
        terms += _WORD.findall(query[position : match.start()])
        terms.append(match.group())
        position = match.end()
    terms += _WORD.findall(query[position:])
    return list(dict.fromkeys(terms))  # each term once, in the order given


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression requiring every term; None when the query has no searchable term."""
    parts = []
    for term in query_terms(query):
        if CJK_RUN.fullmatch(term):
            parts.append(_quote(term) + "*" if len(term) == 1 else _quote(" ".join(_bigrams(term)[:-1])))
        else:
            parts.append(_quote(term))
    return " AND ".join(parts) if parts else None


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def any_terms(query: str) -> list[tuple[str, bool]]:
    """The terms ranked retrieval looks for, each once, with whether it is a prefix: a CJK run's bigrams (a lone
    character as the prefix of its pairs), and words other than common English function words."""
    terms: list[tuple[str, bool]] = []
    for term in query_terms(query):
        if CJK_RUN.fullmatch(term):
            terms += [(term, True)] if len(term) == 1 else [(b, False) for b in _bigrams(term)[:-1]]
        elif term not in STOPWORDS:
            terms.append((term, False))
    return list(dict.fromkeys(terms))


def match_any_expression(query: str) -> str | None:
    """An FTS5 expression matching any query term (for ranked retrieval of natural questions).

    CJK runs contribute each of their bigrams; common English function words are dropped.
    """
    tokens = [_quote(term) + ("*" if prefix else "") for term, prefix in any_terms(query)]
    return " OR ".join(tokens) if tokens else None


@dataclass(frozen=True, slots=True)
class Snippet:
    """A window of a segment's text around the first match, with the matched ranges marked."""

    text: str
    marks: tuple[tuple[int, int], ...]  # ranges inside ``text``
    offset: int  # where the first match starts inside the segment
    spans: tuple[tuple[int, int], ...] = ()  # every match in the whole segment (not overlapping), in order

    def highlighted(self, before: str = "**", after: str = "**") -> str:
        """The snippet with each match wrapped in markers (Markdown bold by default)."""
        out, last = [], 0
        for start, end in self.marks:
            out += [self.text[last:start], before, self.text[start:end], after]
            last = end
        out.append(self.text[last:])
        return "".join(out)


def make_snippet(text: str, query: str, width: int = 60) -> Snippet:
    """Cut a snippet of about ``2 * width`` characters around the first occurrence of a query term."""
    folded, origin = _fold_with_map(text)
    found = sorted(
        (origin[m.start()], origin[m.end() - 1] + 1)
        for term in query_terms(query)
        for m in re.finditer(re.escape(term), folded)
    )
    first = found[0][0] if found else 0
    start = max(0, first - width)
    end = min(len(text), first + width)
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    spans: list[tuple[int, int]] = []
    for s, e in found:
        if spans and s < spans[-1][1]:
            if e > spans[-1][1]:
                spans[-1] = (spans[-1][0], e)  # overlapping terms: one mark over both
            continue
        spans.append((s, e))
    marks = tuple(
        (s - start + len(prefix), e - start + len(prefix)) for s, e in spans if s >= start and e <= end
    )  # inside the window
    return Snippet(prefix + text[start:end] + suffix, marks, first, tuple(spans))
