"""Spoiler leaks: does any path that returns book text to the reader or the model show what lies past the fence?

    python -m bench.spoilers [--data ../shared/data/books] [--places 0.1,0.3,0.6] [--probes 5] [--json]

Every book with text in the folder (English and Chinese, every format) is imported and read up to several places.
At each place the probes are what the book has not told the reader yet: words that first appear past the furthest
place (names, mostly; for Chinese, character pairs) and the sentences there. Questions about them are asked
through every path that returns book text:

- ``offline``: answers with no AI provider (quoted sentences and their citations);
- ``search``: bounded passage search, keyword and hybrid (what the agent's searches call);
- ``sections``: passages spread through each chapter (``chapter_passages``, ``compare_sections``);
- ``tools``: every agent tool called directly, every chapter of the contents read, the notes searched (a highlight
  past the place, with a note, is made first);
- ``agent``: a scripted model that calls each tool and receives everything the agent sends it (the system prompt,
  the book's contents, every tool result);
- ``quotes``: quote checks: a sentence from past the place, cited against the passages found, must be refused;
- ``xray``: the X-Ray at the place (every entry's name, variants, introducing sentences and mentions), and each
  mention's place checked against the bound;
- ``recap``: the story so far at the place (its text and every citation, each checked against the bound);
- ``summaries``: the story so far by the AI: everything sent to a scripted model that summarises each chapter
  (kept chapters are not sent again), and the shown summaries' citations, each checked against the bound;
- ``whois``: "Who is this?" on each probe word (a name the book has not used yet must find no entry);
- ``describe``: X-Ray's lines by the AI: everything sent to a scripted model (the names and their sentences);
- ``memory``: a scripted model that "knows" the book (it writes a sentence from past the place, as a model that
  read the book in training would) and cites it: the citation must be refused, so no chip vouches for it.

A leak is a probe word (other than the words of the question that carried it) or a whole sentence from past the
place that reaches the model or the screen, or a quote from past the place that is accepted. In-book search (the
reader's own Ctrl+F) is left out: it may show the whole book, and marks what lies ahead. The goal is 0 on every
path; ``tests/test_spoilers.py`` runs a small version in CI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.ingest import find_books
from core import Quire, QuireError
from core.inside import ReadingSession

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fakechat import ScriptedChatModel

PATHS = ("offline", "search", "sections", "tools", "agent", "quotes", "xray", "recap", "summaries", "whois", "describe",
         "memory")  # fmt: skip
SKIPPED_FOLDERS = ("malformed",)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{5,}")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_COMMON = set(
    [
        "should",
        "would",
        "could",
        "before",
        "things",
        "little",
        "people",
        "because",
        "another",
        "through",
        "himself",
        "herself",
    ]
)
_ROOT = Path(__file__).resolve().parents[1]
# Words Quire itself writes into answers and tool results (its messages, prompts, tools' words): not the book's.
QUIRES_WORDS = {
    w.lower()
    for path in [*sorted((_ROOT / "core" / "agent").rglob("*.py")), *sorted((_ROOT / "app" / "i18n").glob("*.py"))]
    for w in _WORD.findall(path.read_text(encoding="utf-8"))
}


@dataclass
class PathResult:
    checks: int = 0
    leaks: int = 0
    examples: list[str] = field(default_factory=list)

    def saw(self, leaked: list[str], where: str) -> None:
        self.checks += 1
        if leaked:
            self.leaks += 1
            if len(self.examples) < 5:
                self.examples.append(f"{where}: {', '.join(leaked[:3])}")


class Fence:
    """What a book has and has not told the reader at one place: the probe words and sentences past it."""

    def __init__(self, texts: list[str], bound: int, told: str, probes: int) -> None:
        """``told``: what is no spoiler wherever it appears (the library's titles and authors, the names of the
        chapters reached, Quire's own words)."""
        first: dict[str, int] = {}
        after: Counter[str] = Counter()
        upper: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for ordinal, text in enumerate(texts):
            for term in _terms(text):
                first.setdefault(term, ordinal)
                if ordinal > bound:
                    after[term] += 1
            for word in _WORD.findall(text):
                key = word.lower().strip("'’-")
                total[key] += 1
                upper[key] += word[0].isupper()
        titled = set(_terms(told)) | QUIRES_WORDS
        # English: names (words the book capitalises nearly always), not words Quire's own messages may use;
        # Chinese: any pair of characters
        names = {w for w, n in total.items() if n >= 2 and upper[w] >= 0.9 * n}
        self.future = {t for t, o in first.items() if o > bound and t not in titled and (_is_cjk(t) or t in names)}
        floor = {True: 3, False: 2}  # a Chinese pair must recur more often to be a name rather than chance
        ranked = [t for t, n in after.most_common() if t in self.future and n >= floor[_is_cjk(t)]]
        self.probes = ranked[:probes]
        seen_before = {_norm(s) for text in texts[: bound + 1] for s in _sentences(text)}
        self.sentences = {_norm(s) for text in texts[bound + 1 :] for s in _sentences(text)} - seen_before
        self.bound = bound

    def leaked(self, shown: str, asked: str = "") -> list[str]:
        """The probe words and sentences past the place that ``shown`` holds (the words of ``asked`` excepted)."""
        excused = set(_terms(asked))
        words = set(_terms(shown)) - excused
        found = sorted(words & self.future)
        found += [s[:60] for s in (_norm(x) for x in _sentences(shown)) if s in self.sentences]
        return found


def _is_cjk(term: str) -> bool:
    return bool(_CJK_RUN.fullmatch(term))


def _terms(text: str) -> list[str]:
    """Words of six letters or more (lowercased, common ones left out), and pairs of Chinese characters."""
    words = [w.lower().strip("'’-") for w in _WORD.findall(text)]
    pairs = [run[i : i + 2] for run in _CJK_RUN.findall(text) for i in range(len(run) - 1)]
    return [w for w in words if w not in _COMMON] + pairs


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if len(s) >= 40]


def _norm(sentence: str) -> str:
    return " ".join(sentence.split()).lower()


def _question(term: str) -> str:
    return f"{term}是谁？发生了什么？" if _is_cjk(term) else f"Who or what is {term}, and what happens with {term}?"


def _events_text(events: list[Any]) -> str:
    return "\n".join(json.dumps(e.to_dict(), ensure_ascii=False, default=str) for e in events)


def check_place(
    quire: Quire, book: int, fraction: float, probes: int, results: dict[str, PathResult], fenced: bool = True
) -> int:
    """Read ``book`` to ``fraction`` of its paragraphs and ask every path about what lies past there.

    ``fenced`` False asks with spoilers allowed everywhere: the check of the check (it must find leaks then)."""
    record = quire.book(book)
    texts = [s.text for s in quire.text.segments(book, 0, record.segment_count)]
    bound = max(1, int(fraction * len(texts)))
    place = quire.text.segments(book, bound, 1)[0].locator
    quire.save_position(book, place)  # read up to here
    reached = {s.section_title for s in quire.text.segments(book, 0, bound + 1)}
    library = [text for b in quire.books() for text in (b.title, *b.authors)]
    fence = Fence(texts, bound, " ".join([*library, *reached]), probes)
    where = f"{record.title[:30]} @{fraction:.0%}"
    later = quire.text.segments(book, min(len(texts) - 1, bound + max(1, (len(texts) - bound) // 2)), 1)[0]
    quire.notes.add_highlight(book, str(later.locator), note="a note on a later page")  # search_notes must not show it

    session = ReadingSession(quire, book, spoilers_allowed=not fenced)
    rows = quire.text.toc(book)
    once = [session.list_books(), session.reading_progress(), session.table_of_contents(), session.current_chapter(),
            session.around_position(40), session.selected_text(), session.search_notes("later page note")]  # fmt: skip
    for entry in range(1, len(rows) + 1):
        once += [session.read_chapter(entry), session.read_chapter(entry, 2)]
    for shown in once:
        results["tools"].saw(fence.leaked(shown), where)
    sections = [session.chapter_passages(entry) for entry in range(1, len(rows) + 1)]
    sections += [session.compare_sections(1, len(rows), "who") if rows else ""]
    for shown in sections:
        results["sections"].saw(fence.leaked(shown), where)

    results["xray"].saw(_xray(quire, book, bound, fence, fenced), where)
    results["recap"].saw(_recap(quire, book, bound, fence, fenced), where)
    results["summaries"].saw(_summaries(quire, book, bound, fence, fenced), where)
    results["describe"].saw(_describe(quire, book, fence, fenced), where)
    for term in fence.probes:
        question = _question(term)
        offline = list(quire.ask(book, question, spoilers=not fenced))
        results["offline"].saw(fence.leaked(_events_text(offline), question), where)
        for mode in ("keyword", "hybrid"):
            found = quire.search(book, question, mode=mode, k=10, before=bound if fenced else None)
            results["search"].saw(fence.leaked("\n".join(p.text for p in found), question), where)
        for tool in (session.keyword_search, session.find_quotes, lambda q: session.search_book(q, "hybrid")):
            results["tools"].saw(fence.leaked(tool(question), question), where)
        results["agent"].saw(_agent(quire, book, question, fence, fenced), where)
        results["quotes"].saw(_quote(session, fence), where)
        results["whois"].saw(_who_is(quire, book, term, fence, fenced), where)
        results["memory"].saw(_memory(quire, book, question, fence, fenced), where)
    return len(fence.probes)


def _agent(quire: Quire, book: int, question: str, fence: Fence, fenced: bool) -> list[str]:
    """A scripted model calls every tool once; whatever the agent sends it (but the question) is checked."""
    calls = [("table_of_contents", {}), ("read_chapter", {"entry": 1}), ("current_chapter", {}),
             ("around_position", {"paragraphs": 20}), ("keyword_search", {"query": question}),
             ("search_book", {"query": question}), ("search_notes", {"query": "later page note"}),
             ("reading_progress", {}), ("list_books", {})]  # fmt: skip
    turns = [[("tool", name, json.dumps(args), f"c{n}")] for n, (name, args) in enumerate(calls)]
    model = ScriptedChatModel(turns=[*turns, [("text", "Done.")]])
    events = list(quire.ask(book, question, model=model, spoilers=not fenced))
    seen = [str(m.content) for messages in model.seen for m in messages if m.type != "human"]
    return fence.leaked("\n".join(seen) + _events_text(events), question)


def _xray(quire: Quire, book: int, bound: int, fence: Fence, fenced: bool) -> list[str]:
    """Everything the X-Ray panel and ``quire xray`` show at the place, and where each mention it counts lies."""
    entries = quire.companion.xray(book, spoilers=not fenced)
    shown = "\n".join(
        "\n".join([entry.name, *entry.variants, *entry.introduced, *(m.text for m in entry.places)])
        for entry in entries
    )
    later = [f"{e.name} counted at {m.ordinal}" for e in entries for m in e.places if m.ordinal > bound]
    return fence.leaked(shown) + later[:3]


def _recap(quire: Quire, book: int, bound: int, fence: Fence, fenced: bool) -> list[str]:
    """The story so far as the chat and ``quire recap`` show it, and where each quote it cites lies."""
    events = list(quire.companion.recap_events(book, spoilers=not fenced))
    cited = [e.citation for e in events if hasattr(e, "citation")]
    later = [f"quoted from {c.start}" for c in cited if quire.text.ordinal_of(book, c.start) > bound]
    return fence.leaked(_events_text(events)) + later[:3]


def _summaries(quire: Quire, book: int, bound: int, fence: Fence, fenced: bool) -> list[str]:
    """The story so far by the AI: what each chapter's summariser is sent, what is shown, and what it cites."""
    model = ScriptedChatModel(turns=[[("text", "What happens here. [1][2]")] for _ in range(2000)])
    events = list(quire.ask(book, "The story so far", model=model, spoilers=not fenced, recap=True))
    sent = "\n".join(str(m.content) for messages in model.seen for m in messages)
    cited = [e.citation for e in events if hasattr(e, "citation")]
    later = [f"cited from {c.start}" for c in cited if quire.text.ordinal_of(book, c.start) > bound]
    return fence.leaked(sent + _events_text(events)) + later[:3]


def _describe(quire: Quire, book: int, fence: Fence, fenced: bool) -> list[str]:
    """What X-Ray's "Describe them with AI" sends the model: checked as it reaches it."""
    model = ScriptedChatModel(turns=[[("text", "Nobody: not said yet")]])
    quire.companion.describe(book, model=model, spoilers=not fenced)
    return fence.leaked("\n".join(str(m.content) for messages in model.seen for m in messages))


def _who_is(quire: Quire, book: int, term: str, fence: Fence, fenced: bool) -> list[str]:
    """What "Who is this?" opens for a word (the X-Ray entry holding it as a name), shown as the panel shows it."""
    found = [e for e in quire.companion.xray(book, spoilers=not fenced) if term in {v.casefold() for v in e.variants}]
    return fence.leaked("\n".join(f"{e.name}\n{' '.join(e.introduced)}" for e in found))


def _memory(quire: Quire, book: int, question: str, fence: Fence, fenced: bool) -> list[str]:
    """A model that remembers the book: it searches, then cites a sentence from past the place as if the passage
    held it, and writes it in its answer. A leak is a citation of it that Quire verifies (a chip vouching for it)."""
    if not fence.sentences:
        return []
    later = sorted(fence.sentences, key=len)[len(fence.sentences) // 2]  # a sentence of middling length
    first = quire.search(book, question, mode="keyword", k=6, before=fence.bound if fenced else None)[:1]
    inside = [x for p in first for x in _sentences(p.text) if _norm(x) in fence.sentences]
    later = inside[0] if inside else later  # with the fence off, the remembered sentence is in passage [1]
    turns = [[("tool", "keyword_search", json.dumps({"query": question}), "m0")],
             [("tool", "cite", json.dumps({"passage": 1, "quote": later}), "m1")],
             [("text", f"I remember this: {later} [1]")]]  # fmt: skip
    events = list(quire.ask(book, question, model=ScriptedChatModel(turns=turns), spoilers=not fenced))
    cited = [e.citation for e in events if hasattr(e, "citation")]
    return [f"a remembered sentence was cited at {c.start}: {c.quote[:40]}" for c in cited
            if quire.text.ordinal_of(book, c.start) > fence.bound]  # fmt: skip


def _quote(session: ReadingSession, fence: Fence) -> list[str]:
    """A sentence from past the place, cited against the passages found so far, must never be accepted (one found
    inside a passage, if any passage holds one; else the first sentence past the place, against each)."""
    if not fence.sentences or not session.passages:
        return []
    tries = []
    for number, passage in list(session.passages.items())[:20]:
        inside = [x for x in _sentences(passage.text) if _norm(x) in fence.sentences]
        tries.append((number, inside[0] if inside else sorted(fence.sentences)[0]))
    accepted = []
    for number, sentence in tries:
        _, citation = session.cite(number, sentence)
        if citation is not None:
            accepted.append(f"quote accepted from passage {number}: {sentence[:50]}")
    return accepted


def run(data: Path, places: list[float], probes: int, limit: int | None = None, fenced: bool = True) -> dict[str, Any]:
    results = {path: PathResult() for path in PATHS}
    books, asked = [], 0
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        paths = [p for p in find_books(data) if not any(part in SKIPPED_FOLDERS for part in p.parts)]
        for path in paths[:limit]:
            [result] = quire.import_paths([path])
            if result.book is None or result.book.segment_count < 20 or not quire.text.passage_texts(result.book.id):
                continue  # not a book with text (pictures, a scanned PDF) or too short to have a "later"
            books.append(path.name)
            for fraction in places:
                try:
                    asked += check_place(quire, result.book.id, fraction, probes, results, fenced)
                except QuireError as error:  # a book that cannot be read at a place is a finding, not a crash
                    results["tools"].examples.append(f"{path.name} @{fraction:.0%}: {error}")
        quire.close()
    return {"books": books, "places": places, "probes_asked": asked,
            "paths": {name: asdict(result) for name, result in results.items()},
            "leaks": sum(r.leaks for r in results.values())}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/books"))
    parser.add_argument("--places", default="0.1,0.3,0.6", help="reading places, as fractions of each book")
    parser.add_argument("--probes", type=int, default=5, help="questions per place about what lies past it")
    parser.add_argument("--books", type=int, default=None, help="only the first N books (by path)")
    parser.add_argument("--unfenced", action="store_true", help="spoilers allowed: the check must find leaks then")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.data, [float(p) for p in args.places.split(",")], args.probes, args.books, not args.unfenced)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(f"{len(report['books'])} books, places {args.places}, {report['probes_asked']} probes asked")
        for name, result in report["paths"].items():
            print(f"{name:9} {result['checks']:6} checks  {result['leaks']:4} leaks  " + "; ".join(result["examples"]))
        print(f"leaks in all: {report['leaks']} (goal: 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
