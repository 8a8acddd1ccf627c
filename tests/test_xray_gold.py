"""X-Ray against a hand-made list of a book's names (issue 38): precision, recall and the kinds, printed and held.

The list is every person, creature, place and named thing that Alice's Adventures in Wonderland (the edition in
../shared, chapters 1 to 8 and 11 to 12) names at least twice: what a reader expects X-Ray to list at its end. It
was written from the book, not from X-Ray's output; X-Ray's rules were written from other books (the issue's
story collection and Children's Literature), so these numbers are held out from them.

    python -m pytest tests/test_xray_gold.py -s     # prints precision, recall and kind accuracy
"""

from __future__ import annotations

import pytest
from conftest import book_path

from core.services import Quire

pytestmark = pytest.mark.storage

# name -> (kind, other names it goes by in the book)
ALICE: dict[str, tuple[str, tuple[str, ...]]] = {
    "Alice": ("person", ()),
    "White Rabbit": ("person", ("Rabbit",)),
    "Queen of Hearts": ("person", ("Queen",)),
    "King": ("person", ("King of Hearts",)),
    "Mouse": ("person", ()),
    "Duchess": ("person", ()),
    "Caterpillar": ("person", ()),
    "Hatter": ("person", ()),
    "March Hare": ("person", ("Hare",)),
    "Dodo": ("person", ()),
    "Cheshire Cat": ("person", ("Cat",)),
    "Dormouse": ("person", ()),
    "Dinah": ("person", ()),
    "Bill": ("person", ()),
    "Pigeon": ("person", ()),
    "Mary Ann": ("person", ("Ann",)),
    "Knave of Hearts": ("person", ("Knave",)),
    "Duck": ("person", ()),
    "Pat": ("person", ()),
    "Lory": ("person", ()),
    "Eaglet": ("person", ()),
    "Fish-Footman": ("person", ("Footman",)),
    "William the Conqueror": ("person", ("William",)),
    "Fury": ("person", ()),
    "Five": ("person", ()),
    "Caucus-race": ("term", ()),
}
# Floors just under what was measured (issue 38: 0.960, 0.923 and 0.792; before its rules, 0.800, 0.923 and 0.667):
# a change that loses names or lets titles and nationalities back in fails here.
PRECISION, RECALL, KINDS = 0.95, 0.90, 0.75


def score(entries, gold: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[float, float, float, list[str]]:
    """(precision, recall, kind accuracy, what went wrong): an entry is right when one of its names is a gold name
    or one of its other names, and no earlier entry took that gold name (a second entry for one name is wrong)."""
    aliases = {alias.casefold(): name for name, (_, others) in gold.items() for alias in (name, *others)}
    matched: dict[str, str] = {}
    wrong = []
    for entry in entries:
        names = [entry.name, *entry.variants]
        found = next((aliases[n.casefold()] for n in names if n.casefold() in aliases), None)
        if found is None or found in matched:
            wrong.append(f"not a name, or twice: {entry.name}")
            continue
        matched[found] = entry.kind
    wrong += [f"missing: {name}" for name in gold if name not in matched]
    wrong += [f"kind: {name} is a {kind}" for name, kind in matched.items() if kind != gold[name][0]]
    kinds = sum(kind == gold[name][0] for name, kind in matched.items()) / max(1, len(matched))
    return len(matched) / max(1, len(entries)), len(matched) / len(gold), kinds, wrong


def test_alice_at_its_end_lists_its_names_and_little_else(quire: Quire) -> None:
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = quire.companion.xray(book.id)
    precision, recall, kinds, wrong = score(entries, ALICE)
    print(f"\nAlice: {len(entries)} entries, precision {precision:.3f}, recall {recall:.3f}, kinds {kinds:.3f}")
    print("\n".join(wrong))
    assert precision >= PRECISION and recall >= RECALL and kinds >= KINDS, wrong
