"""X-Ray: the people, places and terms a book has named up to a place, each with its mentions so far.

The fence is in the data: a book's capitalised runs are found once (``scan``, stored per segment), and an X-Ray
for a place reads only the mentions at or before it. Which runs are names, how variants merge, the counts, the
first mention and the sentences that introduce each entry are all decided from those mentions alone, so nothing
past the place can show, not even as a longer variant of a name already met.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from core.agent.citations import Citation
from core.books.locator import Locator
from core.companion.names import TITLES, has_title, name_key, name_mentions
from core.library import Library
from core.rag.sentences import sentence_spans

SCAN_VERSION = 1  # a better finder raises it, and books are scanned again when next asked
MIN_MENTIONS = 2  # a name needs this many mentions before the place (one of them not opening a sentence)
INTRODUCING = 2  # sentences quoted to introduce an entry: its first mentions'
PLACE_WORDS = frozenset(("in", "at", "to", "from", "into", "near", "through", "towards", "toward", "across"))
BARE_TITLES = frozenset(("mr", "mrs", "ms", "dr", "st", "sir", "capt", "rev", "madam", "mister"))  # never a name alone
SPEECH = frozenset(("said", "says", "asked", "cried", "replied", "answered", "thought", "whispered", "shouted"))


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


def scan(library: Library, book_id: int) -> int:
    """Find every capitalised run of a book's text and store it (once per finder version); how many were found."""
    done = library.conn.execute("SELECT version FROM name_scans WHERE book_id = ?", (book_id,)).fetchone()
    if done is not None and done[0] == SCAN_VERSION:
        return -1
    rows = []
    for ordinal, text in library.conn.execute(
        "SELECT ordinal, text FROM segments WHERE book_id = ? AND kind NOT IN ('heading', 'image') ORDER BY ordinal",
        (book_id,),
    ):
        rows += [(book_id, ordinal, m.start, m.name, int(m.at_start), m.before, m.after) for m in name_mentions(text)]
    with library.transaction() as conn:
        conn.execute("DELETE FROM name_mentions WHERE book_id = ?", (book_id,))
        conn.executemany("INSERT INTO name_mentions VALUES (?,?,?,?,?,?,?)", rows)
        conn.execute("INSERT OR REPLACE INTO name_scans VALUES (?, ?)", (book_id, SCAN_VERSION))
    return len(rows)


def xray(library: Library, book_id: int, bound: int | None) -> list[XrayEntry]:
    """The entries named at or before the segment at ordinal ``bound`` (None: the whole book), most mentioned
    first. Reads nothing past the bound."""
    scan(library, book_id)
    limit = bound if bound is not None else 1 << 62
    rows = library.conn.execute(
        "SELECT m.ordinal, m.start, m.name, m.at_start, m.before, m.after, g.section_idx, g.idx FROM name_mentions m "
        "JOIN segments g ON g.book_id = m.book_id AND g.ordinal = m.ordinal "
        "WHERE m.book_id = ? AND m.ordinal <= ? ORDER BY m.ordinal, m.start",
        (book_id, limit),
    ).fetchall()
    by_key: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for row in rows:
        by_key[name_key(row[2])].append(tuple(row))
    # A name: mentioned often enough, at least once where a capital is not just a sentence's first word.
    names = {k for k, found in by_key.items() if len(found) >= MIN_MENTIONS and any(not r[3] for r in found)}
    names -= {k for k in names if k in BARE_TITLES}
    entries = [_entry(group, by_key) for group in _merge(names, by_key).values()]
    texts = segment_texts(library, book_id, [m.ordinal for e in entries for m in e.places[:INTRODUCING]])
    entries = [
        replace(e, introduced=tuple(" ".join(c.quote.split()) for c in sentences_of(texts, book_id, e.places, INTRODUCING)))
        for e in entries
    ]  # fmt: skip
    entries.sort(key=lambda e: (-e.mentions, e.first.ordinal))
    return entries


def _merge(names: set[str], by_key: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[str]]:
    """Group a one-word name with the one longer name it ends ("Holmes" with "Sherlock Holmes", "Queen" with "Queen
    of Hearts"); a word that several longer names end, or a title, stays on its own."""
    longer = [k for k in names if " " in k]
    groups: dict[str, list[str]] = {k: [k] for k in names if " " in k}
    for key in sorted(k for k in names if " " not in k):
        owners = [k for k in longer if k.split(" ")[0 if key in TITLES else -1] == key]
        if len(owners) == 1:
            groups[owners[0]].append(key)
        else:
            groups[key] = [key]
    return groups


def _entry(keys: list[str], by_key: dict[str, list[tuple[Any, ...]]]) -> XrayEntry:
    """An entry from its names' mention rows (its introducing sentences are filled in after, read together)."""
    found = sorted((row for key in keys for row in by_key[key]), key=lambda r: (r[0], r[1]))
    surfaces = Counter(re.sub(r"['’]s$", "", row[2]) for row in found)
    common = surfaces.most_common(1)[0][1]  # the name it goes by: the fullest form used at least a quarter as often
    longest = max(surfaces, key=lambda s: (surfaces[s] * 4 >= common, len(name_key(s).split()), surfaces[s]))
    titled = any(has_title(row[2]) or row[4] in TITLES for row in found)
    speech = sum(row[4] in SPEECH or row[5] in SPEECH for row in found)
    place = sum(row[4] in PLACE_WORDS for row in found)
    kind = "person" if titled or speech else "place" if place * 2 >= len(found) else "term"
    places = tuple(Mention(r[0], Locator(r[6], r[7], r[1]), r[2]) for r in found)
    return XrayEntry(longest, kind, tuple(sorted(surfaces, key=lambda s: -surfaces[s])), len(found), places[0], (),
                     places)  # fmt: skip


def segment_texts(library: Library, book_id: int, ordinals: list[int]) -> dict[int, str]:
    """The texts of these segments, read in a few queries (not one per mention)."""
    wanted = sorted(set(ordinals))
    texts: dict[int, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        texts.update(library.conn.execute(
            f"SELECT ordinal, text FROM segments WHERE book_id = ? AND ordinal IN ({marks})", (book_id, *chunk)
        ).fetchall())  # fmt: skip
    return texts


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
