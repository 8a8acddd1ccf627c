"""Offline answers on two whole novels, read partway: does the first quote hold the answer, and is the unread held back?

    python -m bench.novel_qa [--data ../shared/data/qa/en/novel-qa] [--books ../shared/data/books/en] [--misses]
    options: --json

The novel QA set (Dracula and Pride and Prejudice, Standard Ebooks; see its README) asks the kind of questions a
reader asks partway through a book, many answered by a reply in dialogue, the sentence after a cue or a paraphrase.
Each novel is imported through the real pipeline; for each question the reading place is put at the end of the
chapter the reader has just finished (``asked_after_chapter``, the spoiler bound) and the question is answered by
``answer_offline`` exactly as the app does with no AI provider, spoiler protection on, keyword search (the books are
not indexed). Scored on the 60 questions whose answer was read: the first quote holds the answer, any quote does,
the passages the answer read do (its ceiling), the share answered and how often the first quote holds it then. On
the 20 whose answer comes in a later chapter: the share held back (not given as an answer), and leaks (a quote
holding the answer: none may, the fence forbids it). An answer is looked for as ``bench.answers.holds`` does (case,
spaces and punctuation ignored).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from bench.answers import holds
from core import Quire
from core.inside import CANDIDATES, answer_offline

DATA = Path("../shared/data/qa/en/novel-qa")
BOOKS = Path("../shared/data/books/en")
_CHAPTER = re.compile(r"chapter-(\d+)\.xhtml$")
_OPF = "{http://www.idpf.org/2007/opf}"


@dataclass(frozen=True)
class Asked:
    book: str
    question: str
    answer: str
    chapter: int  # where the answer is
    after: int  # the chapter the reader has just finished


def load(data: Path, name: str) -> list[Asked]:
    with (data / name).open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [Asked(r["book"], r["question"], r["answer"], r["chapter"], r["asked_after_chapter"]) for r in rows]


def chapter_sections(epub: Path) -> dict[int, int]:
    """Chapter number (of ``chapter-N.xhtml``) -> its place in the spine, which is the library's section."""
    with zipfile.ZipFile(epub) as archive:
        container = ElementTree.fromstring(archive.read("META-INF/container.xml"))
        opf_path = next(e.attrib["full-path"] for e in container.iter() if e.tag.endswith("rootfile"))
        package = ElementTree.fromstring(archive.read(opf_path))
    hrefs = {item.attrib["id"]: item.attrib["href"] for item in package.iter(f"{_OPF}item")}
    spine = [hrefs[ref.attrib["idref"]] for ref in package.iter(f"{_OPF}itemref")]
    return {int(m.group(1)): index for index, href in enumerate(spine) if (m := _CHAPTER.search(href))}


def run(data: Path, books: Path) -> dict:
    read = load(data, "novel-qa.jsonl")
    not_yet = load(data, "novel-qa-notyet.jsonl")
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        ids, sections = {}, {}
        for name in sorted({a.book for a in read + not_yet}):
            ids[name] = quire.import_paths([books / name])[0].book.id
            sections[name] = chapter_sections(books / name)
        for asked, answerable in [(a, True) for a in read] + [(a, False) for a in not_yet]:
            book = ids[asked.book]
            end = quire.text.section(book, sections[asked.book][asked.after])[-1].locator
            quire.save_position(book, end, reading=False)
            quire.set_furthest(book, end)
            answer = answer_offline(quire, book, asked.question)
            quotes = [c.quote for c in answer.citations]
            read_part = quire.search(book, asked.question, k=CANDIDATES, before=quire.text.ordinal_of(book, end))
            rows.append({
                "book": asked.book.removeprefix("standardebooks-").removesuffix(".epub"),
                "question": asked.question, "answer": asked.answer, "answerable": answerable,
                "answered": answer.answered, "notice": answer.notice,
                "first": bool(quotes) and holds(quotes[0], [asked.answer]),
                "any": any(holds(q, [asked.answer]) for q in quotes),
                "passages": any(holds(p.text, [asked.answer]) for p in read_part),
                "quote": quotes[0] if quotes else "",
            })  # fmt: skip
        quire.close()
    return {"seconds": round(time.perf_counter() - started, 1), **summary(rows), "rows": rows}


def summary(rows: list[dict]) -> dict:
    """The scores over the answerable questions and the not-yet ones, for both novels and each."""
    found: dict = {}
    for book in ("all", *sorted({r["book"] for r in rows})):
        mine = [r for r in rows if book in ("all", r["book"])]
        read = [r for r in mine if r["answerable"]]
        later = [r for r in mine if not r["answerable"]]
        answered = [r for r in read if r["answered"]]
        found[book] = {
            "questions": len(read),
            "first_quote_holds_answer": round(sum(r["first"] for r in read) / max(1, len(read)), 3),
            "any_quote_holds_answer": round(sum(r["any"] for r in read) / max(1, len(read)), 3),
            "passages_hold_answer": round(sum(r["passages"] for r in read) / max(1, len(read)), 3),
            "answered": round(len(answered) / max(1, len(read)), 3),
            "first_holds_when_answered": round(sum(r["first"] for r in answered) / max(1, len(answered)), 3),
            "not_yet": len(later),
            "not_yet_held_back": round(sum(not r["answered"] for r in later) / max(1, len(later)), 3),
            "not_yet_leaked": sum(r["any"] for r in later),
        }
    return {"scores": found}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the novel QA folder (its two JSONL files)")
    parser.add_argument("--books", type=Path, default=BOOKS, help="the folder with the two EPUBs")
    parser.add_argument("--misses", action="store_true", help="list the answerable questions whose first quote missed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (args.data / "novel-qa.jsonl").exists():
        sys.exit(f"bench.novel_qa needs the novel QA set: {args.data} (lay ../shared beside the clone)")
    report = run(args.data, args.books)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(f"novel QA, offline answers with spoiler protection, keyword search ({report['seconds']} s)")
    print("| books | questions | first quote | any quote | passages read | answered | first when answered | "
          "not yet held back | leaks |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for book, s in report["scores"].items():
        print(f"| {book} | {s['questions']} + {s['not_yet']} | {s['first_quote_holds_answer']:.3f} | "
              f"{s['any_quote_holds_answer']:.3f} | {s['passages_hold_answer']:.3f} | {s['answered']:.3f} | {s['first_holds_when_answered']:.3f} | "
              f"{s['not_yet_held_back']:.3f} | {s['not_yet_leaked']} |")  # fmt: skip
    if args.misses:
        for row in report["rows"]:
            if row["answerable"] and not row["first"]:
                found = "in the passages" if row["passages"] else "not in the passages"
                print(f"- {row['book']}: {row['question']} [{row['answer']}, {found}] -> {row['quote'][:140]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
