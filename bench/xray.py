"""X-Ray, measured: recall and precision against name lists written for two shared books, at several places.

    python -m bench.xray [--places 0.25,0.5,1.0] [--json]

For each book and place: recall (the listed names met before the place that X-Ray shows), precision (the share of
its first 30 entries, what a reader sees first, that are on the list: people, places, ships and terms a reader
would look up), how many listed names lie only past the place (X-Ray must not show them, and does not: checked),
the time to find the book's names once, and the time to show X-Ray for a place (goal: under 300 ms).
The lists were written from the books before the finder was tuned on them, then completed once with real names the
first list forgot (Moby-Dick: Yojo, Quohog, Tarshish, Euroclydon, Ramadan, Quaker, Christian, English, American).
English only: the finder does not know Chinese names yet.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from core import Quire
from core.inside import inside

BOOKS = Path("../shared/data/books")
GOLD = {
    "en/epubjs-alice.epub": """Alice; White Rabbit; Dinah; Mouse; Dodo; Duck; Lory; Eaglet; William the Conqueror; Bill;
        Pat; Mary Ann; Caterpillar; Pigeon; Duchess; Cheshire Cat; Fish-Footman; Frog-Footman; Hatter; March Hare;
        Dormouse; Queen of Hearts; King of Hearts; Knave of Hearts; Caucus-race; English; French""",
    "en/idpf-moby-dick.epub": """Ishmael; Queequeg; Ahab; Starbuck; Stubb; Flask; Tashtego; Daggoo; Fedallah; Parsee;
        Pip; Peleg; Bildad; Father Mapple; Elijah; Bulkington; Perth; Dough-Boy; Fleece; Gabriel; Boomer; Bunger;
        Derick De Deer; Steelkilt; Radney; Lakeman; Aunt Charity; Moby Dick; White Whale; Pequod; Jeroboam; Rachel;
        Samuel Enderby; Bachelor; Delight; Rose-Bud; Town-Ho; Nantucket; Nantucketer; New Bedford; Sag Harbor;
        Manhattoes; Pacific; Atlantic; Japan; Cape Horn; Indian Ocean; Greenland; England; America; Jonah; God;
        Leviathan; Sperm Whale; Right Whale; Spouter-Inn; Try Pots; Whaleman's Chapel; Coffin; Hussey; Indian;
        Lima; Yojo; Quohog; Tarshish; Euroclydon; Ramadan; Quaker; Christian; English; American""",
}
TOP = 30


def _keys(name: str) -> set[str]:
    """How a listed name may show: whole, by its last word (a title or a first name left off), or, for "X of Y",
    by X ("Queen of Hearts": the Queen)."""
    key = name.casefold()
    words = key.split()
    return {key, words[-1]} | ({words[0]} if len(words) > 2 and words[1] == "of" else set())


def _matches(gold: str, entry_keys: set[str]) -> bool:
    return bool(_keys(gold) & entry_keys) or gold.casefold() in entry_keys


def _entry_keys(entry) -> set[str]:
    found = set()
    for variant in entry.variants:
        key = re.sub(r"['’]s$", "", variant).casefold()
        found |= {key, key.split()[-1]}
    return found


def measure(path: Path, gold: list[str], places: list[float]) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        book = quire.import_paths([path])[0].book
        assert book is not None
        started = time.perf_counter()
        quire.companion.xray(book.id, spoilers=True)  # the book's names are found once
        build = time.perf_counter() - started
        conn = inside(quire).library.conn
        texts = conn.execute("SELECT ordinal, text FROM segments WHERE book_id = ? ORDER BY ordinal", (book.id,))
        first: dict[str, int] = {}
        for ordinal, text in texts:
            for name in gold:
                if name not in first and re.search(rf"\b{re.escape(name)}", text):
                    first[name] = ordinal
        for fraction in places:
            bound = max(0, int(fraction * book.segment_count) - 1)
            quire.save_position(book.id, quire.text.segments(book.id, bound, 1)[0].locator)
            timings = []
            for _ in range(5):
                began = time.perf_counter()
                entries = quire.companion.xray(book.id)
                timings.append(time.perf_counter() - began)
            keys = [_entry_keys(e) for e in entries]
            met = [g for g in gold if first.get(g, 1 << 60) <= bound]
            later = [g for g in gold if g in first and first[g] > bound]
            found = [g for g in met if any(_matches(g, k) for k in keys)]
            top = keys[:TOP]
            right = [k for k in top if any(_matches(g, k) for g in gold)]
            shown_later = [g for g in later if any(g.casefold() in k for k in keys)]
            rows.append({
                "book": path.name, "place": fraction, "entries": len(entries),
                "recall": round(len(found) / max(1, len(met)), 3), "listed_met": len(met),
                "precision_top": round(len(right) / max(1, len(top)), 3),
                "listed_only_later": len(later), "shown_from_later": shown_later,
                "missed": [g for g in met if g not in found][:8],
                "build_s": round(build, 3), "show_ms": round(statistics.median(timings) * 1000, 1),
            })  # fmt: skip
        quire.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--places", default="0.25,0.5,1.0")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    places = [float(p) for p in args.places.split(",")]
    rows = []
    for name, listed in GOLD.items():
        gold = sorted({g.strip() for g in listed.split(";") if g.strip()})
        rows += measure(BOOKS / name, gold, places)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for r in rows:
        print(f"{r['book']:28} @{r['place']:.0%}  recall {r['recall']:.3f} ({r['listed_met']} listed met)  "
              f"precision top {TOP} {r['precision_top']:.3f}  listed only later {r['listed_only_later']} "
              f"(shown {len(r['shown_from_later'])})  find {r['build_s']:.2f} s  show {r['show_ms']:.0f} ms")  # fmt: skip
        if r["missed"]:
            print(f"    missed: {', '.join(r['missed'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
