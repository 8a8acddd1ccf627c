"""The story so far, measured: how many of each chapter's key events its recap quotes, against a baseline.

    python -m bench.recap [--json]

For two books, a short list of key events was written for each of their first ten chapters, each event as words
that a sentence telling it would hold ("rabbit watch": the White Rabbit takes a watch out of its pocket). With the
reader at the end of a chapter, that chapter is the latest one and is told in four sentences; an event is covered
when one of them holds all of its words (any one of its alternatives). Reported: the share of events covered by
the TextRank recap, and by the chapter's first four sentences (the lead, the usual baseline for summaries).
The lists were written from the books before the ranker was run on them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from core import Quire
from core.inside import LATEST, MAX_CHARS, MIN_CHARS, inside, sentence_spans

BOOKS = Path("../shared/data/books")
# For each chapter (by title): its key events; an event is alternatives separated by "|", words by spaces.
EVENTS: dict[str, dict[str, list[str]]] = {
    "en/epubjs-alice.epub": {
        "Down The Rabbit-Hole": ["rabbit watch|rabbit pocket", "rabbit-hole|falling|fell", "key|door",
                                 "drink", "eat|cake", "garden"],
        "The Pool Of Tears": ["feet high|grow|larger", "tears|pool|crying|cried", "fan|gloves", "shrinking|smaller",
                              "mouse"],
        "A Caucus-Race And A Long Tale": ["wet|dry", "caucus", "prizes|comfits", "tale|tail", "dinah|cat"],
        "The Rabbit Sends In A Little Bill": ["mary ann", "house|window|room", "bill|chimney", "pebbles|cakes",
                                              "puppy"],
        "Advice From A Caterpillar": ["caterpillar", "who are you", "father william", "mushroom", "pigeon|serpent"],
        "Pig And Pepper": ["footman|invitation", "pepper|sneez", "baby|pig", "cat grin|grin", "hatter|march hare"],
        "A Mad Tea-Party": ["tea", "raven|riddle", "watch|butter", "dormouse", "time"],
        "The Queen's Croquet Ground": ["roses|paint", "off with", "croquet|flamingo", "cat", "queen"],
        "Who Stole The Tarts?": ["tarts", "jury|trial|court", "witness|hatter", "growing|grow"],
        "Alice's Evidence": ["evidence|jury", "verses|letter", "cards|pack", "dream|sister"],
    },
    "en/idpf-moby-dick.epub": {
        "Chapter 1. Loomings.": ["ishmael", "sea|ocean|water", "sailor|passenger", "whale"],
        "Chapter 2. The Carpet-Bag.": ["new bedford", "nantucket", "inn|lodging", "coffin", "cold|night"],
        "Chapter 3. The Spouter-Inn.": ["painting|picture", "landlord", "harpooneer", "bed|blanket", "head|heads",
                                        "tomahawk|cannibal"],
        "Chapter 4. The Counterpane.": ["arm", "stepmother|chimney", "boots|hat|dress", "queequeg"],
        "Chapter 5. Breakfast.": ["breakfast", "whalemen|sheepish|bashful", "harpoon|beefsteak"],
        "Chapter 6. The Street.": ["street|streets", "cannibals|savages", "oil|houses|whale"],
        "Chapter 7. The Chapel.": ["chapel", "tablets|marble", "queequeg", "lost|death|dead"],
        "Chapter 8. The Pulpit.": ["mapple", "ladder", "pulpit|bow"],
        "Chapter 9. The Sermon.": ["jonah", "tarshish|ship", "whale|swallowed", "god", "storm|sea"],
        "Chapter 10. A Bosom Friend.": ["idol|yojo", "friend|married|heart", "pipe|smoke", "worship|pagan"],
    },
}  # fmt: skip


def covered(events: list[str], sentences: list[str]) -> int:
    """How many events one of the sentences tells (all the words of one of its alternatives)."""
    text = [s.lower() for s in sentences]
    hits = 0
    for event in events:
        options = [option.split() for option in event.split("|")]
        hits += any(all(re.search(rf"\b{re.escape(w)}", s) for w in words) for words in options for s in text)
    return hits


def measure(name: str, events: dict[str, list[str]]) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        book = quire.import_paths([BOOKS / name])[0].book
        assert book is not None
        conn = inside(quire).library.conn
        for title, listed in events.items():
            section = conn.execute(
                "SELECT idx FROM sections WHERE book_id = ? AND title = ?", (book.id, title)
            ).fetchone()
            if section is None:
                rows.append({"book": name, "chapter": title, "missing": True})
                continue
            texts = conn.execute(
                "SELECT ordinal, text FROM segments WHERE book_id = ? AND section_idx = ? AND kind NOT IN "
                "('heading', 'image') ORDER BY ordinal",
                (book.id, section[0]),
            ).fetchall()
            quire.save_position(book.id, quire.text.segments(book.id, texts[-1][0], 1)[0].locator)
            chapter = next(c for c in quire.companion.recap(book.id) if c.section == section[0])
            recap = [q.quote for q in chapter.quotes]
            lead = [t[a:b] for _, t in texts for a, b in sentence_spans(t) if MIN_CHARS <= b - a <= MAX_CHARS][:LATEST]
            rows.append({"book": name, "chapter": title, "events": len(listed), "recap": covered(listed, recap),
                         "lead": covered(listed, lead)})  # fmt: skip
        quire.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [row for name, events in EVENTS.items() for row in measure(name, events)]
    books = {}
    for name in EVENTS:
        mine = [r for r in rows if r["book"] == name and not r.get("missing")]
        total = sum(r["events"] for r in mine)
        books[name] = {"chapters": len(mine), "events": total,
                       "recap": round(sum(r["recap"] for r in mine) / max(1, total), 3),
                       "lead": round(sum(r["lead"] for r in mine) / max(1, total), 3)}  # fmt: skip
    if args.json:
        print(json.dumps({"books": books, "chapters": rows}, indent=2, ensure_ascii=False))
        return 0
    for name, summary in books.items():
        print(f"{name:28} {summary['chapters']} chapters, {summary['events']} events: recap covers "
              f"{summary['recap']:.3f}, the first {LATEST} sentences {summary['lead']:.3f}")  # fmt: skip
    for row in rows:
        if row.get("missing"):
            print(f"  {row['chapter']}: no such chapter")
    return 0


if __name__ == "__main__":
    sys.exit(main())
