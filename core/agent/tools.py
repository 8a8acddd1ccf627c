"""The book tools the agent may call. Every tool that reads book text stays before the spoiler bound.

Tools check their own preconditions and arguments and answer with short sentences the model can act
on. Book text reaches the model wrapped as untrusted data (``<book_text>``), never as instructions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from langchain_core.tools import BaseTool, StructuredTool

from core.agent.citations import Citation
from core.errors import CitationError, QuireError
from core.rag.search import MODES, Passage

if TYPE_CHECKING:
    from core.library import SegmentRecord, TocRow
    from core.services import Quire

_TAG_NAME = re.compile(r"book\s*_\s*text|(?<=[</])\s*book\W{0,3}text")  # the tag's name, or a look-alike in a tag
PAGE_CHARACTERS = 3000
MAX_PASSAGES = 10


def _tag_name_spans(text: str) -> list[tuple[int, int]]:
    """Where ``book_text`` is written in ``text``, in any case, width or spacing, or split by invisible characters."""
    folded, origin = [], []  # the text as a model may read it, and where each folded character came from
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue  # zero-width and other format characters are invisible to a reader
        for piece in unicodedata.normalize("NFKC", char).casefold():
            folded.append(piece)
            origin.append(index)
    found = _TAG_NAME.finditer("".join(folded))
    return [(origin[m.start()], origin[m.end() - 1] + 1) for m in found]


def untrusted(text: str, inline: bool = False) -> str:
    """Book-derived text as data: inside <book_text> tags that nothing in the text can open or close."""
    spans = _tag_name_spans(text)
    for start, end in reversed(spans):
        text = text[:start] + "book-text" + text[end:]
    if inline:
        return f"<book_text>{' '.join(text.split())}</book_text>"
    return f"<book_text>\n{text}\n</book_text>"


def language_code(code: str) -> str:
    """A book's language tag as the model sees it: letters, digits and hyphens only (it comes from the book)."""
    return re.sub(r"[^A-Za-z0-9-]", "", code)[:35] or "unknown"


class ToolState(NamedTuple):
    """What decides which tools are offered: read once per model call."""

    book_open: bool
    indexed: bool
    selected: bool


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One agent tool: the ``ReadingSession`` method that runs it, when it is offered, what it is for.

    ``artifact``: the method returns (text for the model, a value for Quire) and the value rides on the tool
    message (``cite`` and its verified Citation).
    """

    name: str
    purpose: str  # library, reading, searching, citing
    offered: Callable[[ToolState], bool]
    artifact: bool = False


def _always(state: ToolState) -> bool:
    return True


def _book_open(state: ToolState) -> bool:
    return state.book_open


def _selected(state: ToolState) -> bool:
    return state.book_open and state.selected


def _indexed(state: ToolState) -> bool:
    return state.book_open and state.indexed


def _not_indexed(state: ToolState) -> bool:
    return state.book_open and not state.indexed


# Every tool, once: adding one is a method on ReadingSession and a line here.
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("list_books", "library", _always),
    ToolSpec("reading_progress", "library", _always),
    ToolSpec("search_notes", "library", _always),
    ToolSpec("table_of_contents", "reading", _book_open),
    ToolSpec("read_chapter", "reading", _book_open),
    ToolSpec("current_chapter", "reading", _book_open),
    ToolSpec("around_position", "reading", _book_open),
    ToolSpec("selected_text", "reading", _selected),
    ToolSpec("search_book", "searching", _indexed),
    ToolSpec("keyword_search", "searching", _not_indexed),  # until the book is indexed for meaning
    ToolSpec("chapter_passages", "searching", _indexed),
    ToolSpec("find_quotes", "searching", _indexed),
    ToolSpec("compare_sections", "searching", _indexed),
    ToolSpec("cite", "citing", _book_open, artifact=True),
)


@dataclass
class ReadingSession:
    """What the agent may see in one conversation: the open book, the bound, what it has cited."""

    quire: Quire
    book_id: int | None
    spoilers_allowed: bool = False
    selection: str = ""  # the passage the reader selected in the reader, if any
    passages: dict[int, Passage] = field(default_factory=dict)

    @property
    def bound(self) -> int | None:
        """The last segment ordinal the reader has reached (None: no bound)."""
        if self.spoilers_allowed or self.book_id is None:
            return None
        position = self.quire.position(self.book_id)
        return position.ordinal if position else -1

    @property
    def book(self) -> int:
        """The open book (the tools that read it are offered only when one is open)."""
        if self.book_id is None:
            raise QuireError("no book is open")
        return self.book_id

    @property
    def indexed(self) -> bool:
        status = self.quire.index_status(self.book_id) if self.book_id is not None else None
        return bool(status and status.done)

    def available_tools(self) -> set[str]:
        """The tools that make sense now (the middleware offers only these to the model)."""
        state = ToolState(self.book_id is not None, self.book_id is not None and self.indexed, bool(self.selection))
        return {spec.name for spec in TOOLS if spec.offered(state)}

    # -- the tools ----------------------------------------------------------------------------
    def list_books(self) -> str:
        """List the books in the reader's library."""
        books = self.quire.books()
        if not books:
            return "The library is empty."
        return "\n".join(
            f"{b.id}: {untrusted(b.title, inline=True)} by {untrusted(', '.join(b.authors) or '?', inline=True)} "
            f"({language_code(b.language)})"
            for b in books
        )

    def reading_progress(self) -> str:
        """How far the reader has read in the open book."""
        if self.book_id is None:
            return "No book is open."
        position = self.quire.position(self.book_id)
        if position is None:
            return "The reader has not started this book."
        section = self.quire.show(self.book_id, position.locator.segment_locator)[0].section_title
        return (
            f"The reader is {position.percent:.0f}% through the book, in the chapter {untrusted(section, inline=True)}."
        )

    def table_of_contents(self) -> str:
        """The open book's table of contents, numbered; read_chapter takes those numbers."""
        rows = self._toc()
        if not rows:
            return "This book has no table of contents."
        bound = self.bound  # once: the reader's place does not move while the contents are listed
        shown = [
            f"{i}. {'  ' * r.depth}{untrusted(r.title, inline=True)}"
            for i, r in enumerate(rows, start=1)
            if self._reached(r, bound)
        ]
        hidden = len(rows) - len(shown)
        later = f"\n({hidden} later entries are hidden: the reader has not reached them.)" if hidden else ""
        return ("\n".join(shown) or "The reader has not reached any chapter yet.") + later

    def read_chapter(self, entry: int, page: int = 1) -> str:
        """Read a chapter by its number in the table of contents, one page (about 3,000 characters) at a time."""
        rows = self._toc()
        if not 1 <= entry <= len(rows):
            return f"No entry {entry}: this book's table of contents has {len(rows)} entries."
        if page < 1:
            return "Pages start at 1."
        row = rows[entry - 1]
        if row.locator is None:
            return f"Entry {entry} does not point into the book's text."
        if not self._reached(row, self.bound):
            return "The reader has not reached this chapter yet, so it cannot be read (spoiler protection)."
        segments = self.quire.section(self.book, row.locator.section)
        bound = self.bound
        visible = [s for s in segments if bound is None or s.ordinal <= bound]
        if not visible:
            return "The reader has not reached this chapter yet, so it cannot be read (spoiler protection)."
        pages: list[list[SegmentRecord]] = []
        current: list[SegmentRecord] = []
        size = 0
        for segment in visible:
            if current and size + len(segment.text) > PAGE_CHARACTERS:
                pages.append(current)
                current, size = [], 0
            current.append(segment)
            size += len(segment.text)
        pages.append(current)
        if page > len(pages):
            return f"Entry {entry} has {len(pages)} page(s) the reader may see."
        text = "\n".join(f"({s.locator}) {s.text}" for s in pages[page - 1])
        cut = (
            " It continues past the reader's position, which is hidden."
            if len(visible) < len(segments) and page == len(pages)
            else ""
        )
        return f"{untrusted(row.title, inline=True)}, page {page} of {len(pages)}.{cut}\n{untrusted(text)}"

    def _search(self, query: str, mode: str, k: int) -> str:
        if not query.strip():
            return "Give a query: a few words or a question."
        if mode not in MODES:
            return f"mode must be one of {', '.join(MODES)}."
        k = max(1, min(k, MAX_PASSAGES))
        bound = self.bound
        if bound == -1:
            return "The reader has not started this book, so nothing may be searched yet (spoiler protection)."
        before = None
        if bound is not None:
            before = self.quire.segments(self.book, bound, 1)[0].locator
        passages = self.quire.search(self.book_id, query, mode=mode, k=k, before=before)
        if not passages:
            return "Nothing in the part of the book the reader can see matches."
        return "\n\n".join(self._number(p, p.section_title) for p in passages)

    def search_book(self, query: str, mode: str = "hybrid", k: int = 6) -> str:
        """Search the open book (keyword + meaning). Returns numbered passages to cite."""
        return self._search(query, mode, k)

    def keyword_search(self, query: str, k: int = 6) -> str:
        """Search the open book by its words (it is not indexed for meaning yet). Returns numbered passages."""
        return self._search(query, "keyword", k)

    def cite(self, passage: int, quote: str) -> tuple[str, Citation | None]:
        """Cite a few exact words from a numbered passage; Quire checks them against the book."""
        if passage not in self.passages:
            return f"There is no passage [{passage}]: search first, then cite a number from the results.", None
        try:
            citation = self.quire.verify_quote(self.passages[passage], passage, quote)
        except CitationError as error:
            return f"Citation refused: {error}.", None
        return f"Citation [{passage}] verified at {citation.start}.", citation  # the citation rides with the result

    def search_notes(self, query: str) -> str:
        """Search the reader's own highlights and notes (in the open book, or all books)."""
        words = [w.lower() for w in query.split() if w.strip()]
        if not words:
            return "Give a few words to look for."
        found = [
            h for h in self.quire.highlights(self.book_id) if any(w in (h.text + " " + h.note).lower() for w in words)
        ]
        if not found:
            return "No highlight or note matches."
        return "\n".join(
            f"- ({h.start}) [{h.color}] {untrusted(h.text)} note: {h.note or '(none)'}" for h in found[:20]
        )

    def current_chapter(self, page: int = 1) -> str:
        """Read the chapter the reader is in, up to where they are, a page at a time."""
        position = self.quire.position(self.book)
        if position is None:
            return "The reader has not started this book."
        rows = self._toc()
        entries = [
            i for i, r in enumerate(rows, start=1) if r.locator and r.locator.section == position.locator.section
        ]
        if not entries:
            return "The reader's chapter is not in the table of contents; use around_position."
        return self.read_chapter(entries[0], page)

    def around_position(self, paragraphs: int = 6) -> str:
        """The paragraphs just before (and at) the reader's position: what they are reading now."""
        position = self.quire.position(self.book)
        if position is None:
            return "The reader has not started this book."
        count = max(1, min(paragraphs, 20))
        start = max(0, position.ordinal - count + 1)
        segments = self.quire.segments(self.book, start, position.ordinal - start + 1)
        return untrusted("\n".join(f"({s.locator}) {s.text}" for s in segments))

    def selected_text(self) -> str:
        """The passage the reader has selected, to explain or discuss."""
        return untrusted(self.selection) if self.selection else "The reader has not selected anything."

    def chapter_passages(self, entry: int, k: int = 8) -> str:
        """Passages spread through one chapter (by table-of-contents number), to summarise it."""
        rows = self._toc()
        locator = rows[entry - 1].locator if 1 <= entry <= len(rows) else None
        if locator is None:
            return f"No entry {entry}: this book's table of contents has {len(rows)} entries."
        if not self._reached(rows[entry - 1], self.bound):
            return "The reader has not reached this chapter yet (spoiler protection)."
        section = locator.section
        k = max(1, min(k, MAX_PASSAGES))
        passages = self.quire.section_passages(self.book, section, k, self.bound)
        if not passages:
            return "The reader has not reached this chapter yet (spoiler protection)."
        return "\n\n".join(self._number(p, rows[entry - 1].title) for p in passages)

    def find_quotes(self, topic: str, k: int = 6) -> str:
        """Exact lines about a topic (keyword search), numbered, ready to quote and cite."""
        return self._search(topic, "keyword", k)

    def compare_sections(self, entry_a: int, entry_b: int, aspect: str) -> str:
        """Passages about one aspect from two chapters (table-of-contents numbers), side by side."""
        rows = self._toc()
        out = []
        for entry in (entry_a, entry_b):
            locator = rows[entry - 1].locator if 1 <= entry <= len(rows) else None
            if locator is None:
                return f"No entry {entry}: this book's table of contents has {len(rows)} entries."
            if not self._reached(rows[entry - 1], self.bound):
                out.append(f"Entry {entry}: (nothing the reader may see; they have not reached it)")
                continue
            section = locator.section
            bound = self.bound
            before = self.quire.segments(self.book, bound, 1)[0].locator if bound is not None else None
            passages = self.quire.search(self.book_id, aspect, k=3, before=before, sections=(section, section))
            out.append(f"From {untrusted(rows[entry - 1].title, inline=True)}:")
            out += [self._number(p, p.section_title) for p in passages] or ["(nothing the reader may see)"]
        return "\n\n".join(out)

    def _number(self, passage: Passage, title: str) -> str:
        number = len(self.passages) + 1
        self.passages[number] = passage
        return f"[{number}] ({passage.start}) in {untrusted(title, inline=True)}:\n{untrusted(passage.text)}"

    def _reached(self, row: TocRow, bound: int | None) -> bool:
        """Whether a contents entry starts at or before ``bound``, the reader's place (its title is no spoiler then)."""
        if bound is None:
            return True
        if row.locator is None:
            return False
        try:
            return self.quire.ordinal_of(self.book, row.locator) <= bound
        except QuireError:  # an entry that points nowhere in the text
            return False

    def _toc(self) -> list[TocRow]:
        return self.quire.toc(self.book)

    def tools(self) -> list[BaseTool]:
        """Every registered tool, as a LangChain tool (the middleware filters them per call).

        This is the one place tools meet LangChain; an artifact tool's value (cite's Citation) travels on its
        tool message, so the runner reads it from the result instead of polling the session.
        """
        tools: list[BaseTool] = []
        for spec in TOOLS:
            function = getattr(self, spec.name)
            tools.append(
                StructuredTool.from_function(
                    function,
                    name=spec.name,
                    description=function.__doc__,
                    response_format="content_and_artifact" if spec.artifact else "content",
                )
            )
        return tools
