"""Text fidelity of a converted book against its EPUB: word-level similarity of each chapter, chapters found.

    python -m bench.fidelity --data ../shared/data/books [--json]

The shared ``formats/`` folder holds calibre conversions of the EPUBs beside it (see its README). Each converted
file is read by Quire's own reader and compared with the EPUB read the same way: chapters are paired by their
titles (folded); a chapter's similarity is difflib's ratio over its words (folded, punctuation kept apart);
"missing" are the EPUB's chapters not found, "extra" the converted file's chapters that the EPUB does not have.
Also run by ``bench.ingest`` (its fidelity table).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from core.inside import CJK_RUN, Book, parse_book

# (converted file in formats/, its source under the data folder)
PAIRS = {
    "epubjs-alice.pdf": "en/epubjs-alice.epub",
    "idpf-moby-dick.pdf": "en/idpf-moby-dick.epub",
    "luxun-nahan.pdf": "zh/luxun_nahan.txt",
    "epubjs-alice.azw3": "en/epubjs-alice.epub",
    "idpf-moby-dick.azw3": "en/idpf-moby-dick.epub",
    "luxun-nahan.azw3": "zh/luxun_nahan.txt",
    "epubjs-alice.mobi": "en/epubjs-alice.epub",
    "idpf-moby-dick.mobi": "en/idpf-moby-dick.epub",
    "epubjs-alice.fb2": "en/epubjs-alice.epub",
    "idpf-moby-dick.fb2": "en/idpf-moby-dick.epub",
}
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


@dataclass
class Fidelity:
    file: str
    source: str
    similarity: float  # the chapters' word-level similarity (difflib ratio) weighted by length; missing ones 0
    chapter_mean: float  # the mean over the chapters found
    chapter_min: float
    worst: str  # the chapter with the lowest similarity
    chapters: int  # the source's chapters
    found: int
    missing: list[str]
    extra: list[str]


def words(text: str) -> list[str]:
    """Folded words and punctuation marks; CJK text one character at a time."""
    text = CJK_RUN.sub(lambda m: " ".join(m.group()), text.casefold())
    return _TOKEN.findall(text)


def _fold_title(title: str) -> str:
    return " ".join(words(title))


def _chapters(book: Book) -> dict[str, list[str]]:
    """Chapter title -> its words, for the sections the contents name (a section without an entry joins the one
    before it)."""
    named = {}

    def walk(entries) -> None:
        for entry in entries:
            if entry.locator is not None:
                named.setdefault(entry.locator.section, entry.title)
            walk(entry.children)

    walk(book.toc)
    chapters: dict[str, list[str]] = {}
    current = None
    for index, section in enumerate(book.sections):
        if index in named:
            current = _fold_title(named[index])
            chapters.setdefault(current, [])
        if current is not None:
            chapters[current] += [w for s in section.segments if s.kind != "image" for w in words(s.text)]
    return chapters


def _ratio(a: list[str], b: list[str]) -> float:
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def compare(converted: Path, source: Path) -> Fidelity:
    """How faithfully Quire reads ``converted`` compared with ``source``."""
    theirs = parse_book(converted.read_bytes(), converted.name)
    ours = parse_book(source.read_bytes(), source.name)
    want, got = _chapters(ours), _chapters(theirs)
    paired = [(title, want[title], got[title]) for title in want if title in got and want[title]]
    ratios = [_ratio(a, b) for _, a, b in paired]
    # The whole text's similarity: the chapters' ratios weighted by their length, a chapter not found counting 0
    # (one difflib ratio over a whole book takes minutes).
    weights = {title: len(want[title]) for title in want}
    whole = sum(r * weights[t] for (t, _, _), r in zip(paired, ratios, strict=True)) / max(1, sum(weights.values()))
    return Fidelity(
        converted.name, source.as_posix().split("/books/")[-1], round(whole, 4),
        round(sum(ratios) / len(ratios), 4) if ratios else 0.0, round(min(ratios), 4) if ratios else 0.0,
        min(zip(ratios, (t for t, _, _ in paired), strict=True), default=(0.0, ""))[1],
        len([t for t in want if want[t]]), len(paired), [t for t in want if t not in got and want[t]],
        [t for t in got if t not in want],
    )  # fmt: skip


def run(data: Path, only: str = "") -> list[Fidelity]:
    return [
        compare(data / "formats" / name, data / source)
        for name, source in PAIRS.items()
        if (data / "formats" / name).exists() and only in name
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/books"), help="the books folder")
    parser.add_argument("--only", default="", help="only the files whose names hold this (e.g. .pdf)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.data, args.only)
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2, ensure_ascii=False))
        return 0
    print(f"{'file':<22} {'similarity':>10} {'chapters':>9} {'mean':>6} {'min':>6}  missing / extra")
    for r in rows:
        print(f"{r.file:<22} {r.similarity:>10.4f} {r.found:>4}/{r.chapters:<4} {r.chapter_mean:>6.3f} "
              f"{r.chapter_min:>6.3f}  {r.missing[:3]} / {r.extra[:3]}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
