"""A book's stored text as the reader and the agent read it: contents, segments, sections, pages and images."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.books.locator import Locator, parse_locator
from core.books.model import ReadProgress
from core.errors import QuireError
from core.library import Library, SegmentRecord, TocRow, in_part, paragraph_index, printed_pages
from core.rag import ChunkStore, Passage, Retriever

if TYPE_CHECKING:
    from core.agent.citations import Citation


class BookText:
    """``quire.text``: read a book by place (locator or ordinal), section, or printed page."""

    def __init__(
        self,
        library: Library,
        chunks: ChunkStore,
        retriever: Retriever,
        whole: Callable[[int], None] = lambda book_id: None,
    ) -> None:
        self._library = library
        self._chunks = chunks
        self._retriever = retriever
        self._whole = whole  # told the id of a book read in part that is whole now
        self._completing = threading.Lock()  # one reading of a PDF's rest at a time (an import's, an open's)
        self._reading: dict[int, tuple[int, int]] = {}  # book -> (pages of its rest read so far, pages in all)

    def _id(self, book: int) -> int:
        return self._library.book_id(book)

    def toc(self, book: int) -> list[TocRow]:
        """The book's table of contents."""
        return self._library.toc(self._id(book))

    def show(self, book: int, locator: str | Locator, count: int = 1) -> list[SegmentRecord]:
        """The segment at a locator and the ``count - 1`` that follow it."""
        book = self._id(book)
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        first = self._library.segment(book, locator)
        return self._library.segments(book, first.ordinal, max(1, count))

    def segments(self, book: int, start_ordinal: int, count: int) -> list[SegmentRecord]:
        """``count`` segments in reading order from a global ordinal (a page of the book)."""
        return self._library.segments(self._id(book), max(0, start_ordinal), max(1, count))

    def ordinal_of(self, book: int, locator: str | Locator) -> int:
        """The global ordinal (place in reading order) of the segment a locator points at."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._library.ordinal_of(self._id(book), locator)

    def section_titles(self, book: int) -> dict[int, str]:
        """Each section's title by its number (the chapter a locator is in)."""
        return {row["idx"]: row["title"] for row in self._library.sections(self._id(book))}

    def section(self, book: int, section: int) -> list[SegmentRecord]:
        """Every segment of one section."""
        return self._library.section_segments(self._id(book), section)

    def image(self, book: int, src: str) -> bytes | None:
        """An image of the book by its source path (None when the book has no such image)."""
        return self._library.image(self._id(book), src)

    # -- a PDF's printed pages ------------------------------------------------------------------
    def printed_pages(self, book: int) -> int:
        """How many pages a text PDF's page view can draw (0: not a text PDF, or no renderer on this device)."""
        record = self._library.get(book)
        if record.format != "pdf" or record.char_count == 0:
            return 0  # not a PDF, or a scanned one, which shows its pages as its text already
        from core.books.pdf_pages import page_count

        try:
            return page_count(self._library.file_path(record.id))
        except QuireError:  # the stored file is missing: the text still reads
            return 0

    def page_image(self, book: int, page: int) -> bytes | None:
        """A PDF page (from 0) drawn as a PNG picture, or None where pages cannot be drawn."""
        from core.books.pdf_pages import page_src

        return self.image(book, page_src(page))

    def printed_label(self, book: int, page: int) -> str | None:
        """What a PDF page (from 0) calls itself, as printed ("13", "xii"); None when unknown."""
        return printed_pages.printed_label(self._library.conn, self._id(book), page)

    def page_of(self, book: int, ordinal: int) -> int:
        """The PDF page (from 0) that the segment at ``ordinal`` starts on (0 when unknown)."""
        return printed_pages.page_of(self._library.conn, self._id(book), ordinal) or 0

    def page_start(self, book: int, page: int) -> SegmentRecord | None:
        """The first segment of text on a PDF page (from 0), or None for a page without text."""
        book = self._id(book)
        ordinal = printed_pages.page_start(self._library.conn, book, page)
        return self._library.segments(book, ordinal, 1)[0] if ordinal is not None else None

    # -- a long PDF read in part ----------------------------------------------------------------
    def read_in_part(self, book: int) -> tuple[int, int] | None:
        """(pages read, pages in all) of a long PDF whose first pages are in while the rest is read; else None."""
        return in_part.read_in_part(self._library, self._id(book))

    def reading_progress(self, book: int) -> tuple[int, int] | None:
        """(pages read, pages in all) of a long PDF whose rest is being read now in this process; else None."""
        return self._reading.get(self._id(book))

    def complete(self, book: int, progress: ReadProgress | None = None) -> bool:
        """Read the rest of a long PDF stored from its first pages (``progress``: pages read, pages in all), and
        store the whole in its place; True when it did. The reader's place, bookmarks and highlights keep
        pointing at the same words. A second caller waits for the first and then finds nothing to do."""
        book = self._id(book)

        def reading(pages: int, total: int) -> None:
            self._reading[book] = (pages, total)
            if progress is not None:
                progress(pages, total)

        with self._completing:
            try:
                completed = in_part.complete(self._library, book, [self._chunks.on_new_text], reading)
            finally:
                self._reading.pop(book, None)
        if completed:
            self._whole(book)
        return completed

    # -- passages, as the agent and the benchmarks read them -----------------------------------
    def prepare(self, book: int) -> bool:
        """Write the paragraphs' keyword index if it is due, read the rest of a long PDF stored in part, then cut
        the book into the passages its search and the chat read, if it has none yet (an import that left them
        for later, or one cut short), or count their keyword statistics or store an indexed book's sentences if
        they lack them (a library from before those); True when it did any. Safe beside reading: the work runs
        outside the write transaction that stores it."""
        book = self._id(book)
        indexed = paragraph_index.write_due(self._library, book) > 0
        completed = self.complete(book)
        cut = self._chunks.ensure_default(book) or self._chunks.ensure_terms(book)
        return self._chunks.ensure_windows(book, indexed_only=True) > 0 or cut or completed or indexed

    def section_passages(self, book: int, section: int, k: int, max_ordinal: int | None) -> list[Passage]:
        """Up to ``k`` passages spread evenly through one section, none past ``max_ordinal`` (the spoiler bound)."""
        book = self._id(book)
        self._chunks.ensure_default(book)
        ids = self._chunks.ids_in_section(book, section, max_ordinal)
        picked = ids[:: max(1, len(ids) // max(1, k))][:k]
        return self._retriever.passages([(chunk_id, 0.0) for chunk_id in picked])

    def verify_quote(self, passage: Passage, number: int, quote: str) -> Citation:
        """Pin a quote from a found passage to exact locators; CitationError when the words are not there."""
        from core.agent.citations import resolve_citation

        return resolve_citation(self._chunks, passage, number, quote)

    def passage_texts(self, book: int) -> list[str]:
        """The text of each of a book's passages (its chunks for the default model), in reading order."""
        book = self._id(book)
        self._chunks.ensure_default(book)
        return [chunk.text for chunk in self._chunks.chunks(book)]
