"""X-Ray against every hand-made gold list: precision, recall, kinds and entries from outside the story, one table.

    python -m bench.xray_gold [--json] [--books dracula,alice] [--misses]

The lists: Dracula, Pride and Prejudice and 红楼梦's first five chapters from ``../shared/data/xray-gold`` (made
there, with their own README), and Alice and 呐喊 from ``bench/gold`` (made for issue 38). Each book is read to its
end (红楼梦 to the end of 第五回) and scored by the rules of the shared ``score.py``: an entry is right when its
name or one of its variants is one of an entity's forms, or such a form with a leading title taken off when that
leaves one entity; recall counts the entities found; kinds are judged on entries matched to one entity. Besides
those: ``twice`` counts entries for an entity an earlier entry already took (one entity, two entries), and
``outside`` the entries first met in a section that is not the story (the pages a publisher adds: title page,
imprint, colophon, licence, lists of other books), which must be 0.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import Quire
from core.inside import inside

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
HERE = Path(__file__).parent / "gold"
TITLES = ("Mr. ", "Mrs. ", "Miss ", "Dr. ", "Lady ", "Sir ", "Colonel ", "Captain ", "Lord ", "Professor ", "Count ",
          "Madam ", "Mr ", "Mrs ", "Dr ")  # fmt: skip
# What the lists' makers counted as outside the story (the spine items of Standard Ebooks' books, by file name).
OUTSIDE = ("titlepage", "imprint", "colophon", "uncopyright", "halftitlepage", "dedication", "endnotes", "loi")


@dataclass(frozen=True)
class Gold:
    key: str
    book: Path
    gold: Path
    until: str | None = None  # read up to the start of the contents row with this title (None: the whole book)


GOLDS = (
    Gold("alice", SHARED / "books/en/epubjs-alice.epub", HERE / "alice.tsv"),
    Gold("dracula", SHARED / "books/en/standardebooks-dracula.epub", SHARED / "xray-gold/dracula.tsv"),
    Gold("pride", SHARED / "books/en/standardebooks-pride-and-prejudice.epub",
         SHARED / "xray-gold/pride-and-prejudice.tsv"),
    Gold("nahan", SHARED / "books/formats/luxun-nahan.azw3", HERE / "nahan.tsv"),
    Gold("hongloumeng", SHARED / "books/zh/hongloumeng_120.md", SHARED / "xray-gold/hongloumeng-ch1-5.tsv", "第六回"),
)  # fmt: skip
GOALS = {"en": (0.90, 0.85, 0.90), "zh": (0.70, 0.70, 0.85)}  # issue 57: precision, recall, kinds


def read_gold(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def score(entries: list[dict[str, Any]], gold: list[dict[str, str]]) -> dict[str, Any]:
    """The shared ``score.py``'s precision, recall and kinds, with ``twice`` and the entries it judged wrong."""
    forms: dict[str, dict[str, str]] = {}
    for g in gold:
        for form in [g["name"], *(a for a in g["aliases"].split("|") if a)]:
            forms[form] = g
    stripped: dict[str, set[str]] = {}
    for form, g in list(forms.items()):
        for title in TITLES:
            if form.startswith(title):
                stripped.setdefault(form[len(title) :], set()).add(g["name"])
    ambiguous = set()
    for form, owners in stripped.items():
        if form not in forms and len(owners) == 1:
            forms[form] = next(g for g in gold if g["name"] in owners)
        elif form not in forms:
            ambiguous.add(form)
    hit = kinds = kinds_n = twice = 0
    found: set[str] = set()
    junk: list[str] = []
    wrong_kind: list[str] = []
    for e in entries:
        names = [e["name"], *e["variants"]]
        g = next((forms[n] for n in names if n in forms), None)
        if g is None:
            if any(n in ambiguous for n in names):
                hit += 1
            else:
                junk.append(e["name"])
            continue
        hit += 1
        twice += g["name"] in found
        found.add(g["name"])
        kinds_n += 1
        kinds += e["kind"] == g["kind"]
        if e["kind"] != g["kind"]:
            wrong_kind.append(f"{e['name']} ({e['kind']}, not {g['kind']})")
    return {
        "entries": len(entries),
        "precision": round(hit / max(1, len(entries)), 3),
        "recall": round(len(found) / len(gold), 3),
        "kinds": round(kinds / max(1, kinds_n), 3),
        "twice": twice,
        "junk": junk,
        "missed": [g["name"] for g in gold if g["name"] not in found],
        "wrong_kind": wrong_kind,
    }


def measure(item: Gold) -> dict[str, Any]:
    """Import the book into a new library, place the reader at the list's end, and score its X-Ray there."""
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        try:
            book = quire.import_paths([item.book])[0].book
            assert book is not None, item.book
            end = book.segment_count
            if item.until is not None:
                start = next(r.locator for r in quire.text.toc(book.id) if r.title.startswith(item.until))
                end = quire.text.ordinal_of(book.id, start)
            quire.save_position(book.id, quire.text.segments(book.id, end - 1, 1)[0].locator)
            started = time.perf_counter()
            entries = quire.companion.xray(book.id)
            seconds = time.perf_counter() - started
            conn = inside(quire).library.conn
            outside = {
                idx
                for idx, href in conn.execute("SELECT idx, href FROM sections WHERE book_id = ?", (book.id,))
                if any(word in href.lower() for word in OUTSIDE)
            }
            found = score([e.to_dict(places=False) for e in entries], read_gold(item.gold))
            found["outside"] = [e.name for e in entries if e.first.locator.section in outside]
        finally:
            quire.close()
    language = "zh" if item.key in ("nahan", "hongloumeng") else "en"
    return {"book": item.key, "language": language, "seconds": round(seconds, 2), **found}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", help="a comma-separated subset: " + ",".join(g.key for g in GOLDS))
    parser.add_argument("--misses", action="store_true", help="also print what each list got wrong")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    chosen = args.books.split(",") if args.books else [g.key for g in GOLDS]
    rows = [measure(g) for g in GOLDS if g.key in chosen]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    print("| list | entries | precision | recall | kinds | twice | outside the story | goal (P / R / K) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        goal = " / ".join(f"{g:.2f}" for g in GOALS[r["language"]])
        print(f"| {r['book']} | {r['entries']} | {r['precision']:.3f} | {r['recall']:.3f} | {r['kinds']:.3f} | "
              f"{r['twice']} | {len(r['outside'])} | {goal} |")  # fmt: skip
    if args.misses:
        for r in rows:
            print(f"\n{r['book']}:\n  not names: {r['junk']}\n  missed: {r['missed']}\n  kinds: {r['wrong_kind']}"
                  f"\n  outside: {r['outside']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
