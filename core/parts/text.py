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

    def _id(self, reference: str | int) -> int:
        return self._library.book_id(reference)

    def toc(self, reference: str | int) -> list[TocRow]:
        """The book's table of contents."""
        return self._library.toc(self._id(reference))

    def show(self, reference: str | int, locator: str | Locator, count: int = 1) -> list[SegmentRecord]:
        """The segment at a locator and the ``count - 1`` that follow it."""
        book = self._id(reference)
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        first = self._library.segment(book, locator)
        return self._library.segments(book, first.ordinal, max(1, count))

    def segments(self, reference: str | int, start_ordinal: int, count: int) -> list[SegmentRecord]:
        """``count`` segments in reading order from a global ordinal (a page of the book)."""
        return self._library.segments(self._id(reference), max(0, start_ordinal), max(1, count))

    def ordinal_of(self, reference: str | int, locator: str | Locator) -> int:
        """The global ordinal (place in reading order) of the segment a locator points at."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._library.ordinal_of(self._id(reference), locator)

    def section_titles(self, reference: str | int) -> dict[int, str]:
        """Each section's title by its number (the chapter a locator is in)."""
        return {row["idx"]: row["title"] for row in self._library.sections(self._id(reference))}

    def section(self, reference: str | int, section: int) -> list[SegmentRecord]:
        """Every segment of one section."""
        return self._library.section_segments(self._id(reference), section)

    def image(self, reference: str | int, src: str) -> bytes | None:
        """An image of the book by its source path (None when the book has no such image)."""
        return self._library.image(self._id(reference), src)

    # -- a PDF's printed pages ------------------------------------------------------------------
    def printed_pages(self, reference: str | int) -> int:
        """How many pages a text PDF's page view can draw (0: not a text PDF, or no renderer on this device)."""
        book = self._library.resolve(reference)
        if book.format != "pdf" or book.char_count == 0:
            return 0  # not a PDF, or a scanned one, which shows its pages as its text already
        from core.books.pdf_pages import page_count

        try:
            return page_count(self._library.file_path(book.id))
        except QuireError:  # the stored file is missing: the text still reads
            return 0

    def page_image(self, reference: str | int, page: int) -> bytes | None:
        """A PDF page (from 0) drawn as a PNG picture, or None where pages cannot be drawn."""
        from core.books.pdf_pages import page_src

        return self.image(reference, page_src(page))

    def printed_label(self, reference: str | int, page: int) -> str | None:
        """What a PDF page (from 0) calls itself, as printed ("13", "xii"); None when unknown."""
        return printed_pages.printed_label(self._library.conn, self._id(reference), page)

    def page_of(self, reference: str | int, ordinal: int) -> int:
        """The PDF page (from 0) that the segment at ``ordinal`` starts on (0 when unknown)."""
        return printed_pages.page_of(self._library.conn, self._id(reference), ordinal) or 0

    def page_start(self, reference: str | int, page: int) -> SegmentRecord | None:
        """The first segment of text on a PDF page (from 0), or None for a page without text."""
        book = self._id(reference)
        ordinal = printed_pages.page_start(self._library.conn, book, page)
        return self._library.segments(book, ordinal, 1)[0] if ordinal is not None else None

    # -- a long PDF read in part ----------------------------------------------------------------
    def read_in_part(self, reference: str | int) -> tuple[int, int] | None:
        """(pages read, pages in all) of a long PDF whose first pages are in while the rest is read; else None."""
        return in_part.read_in_part(self._library, self._id(reference))

    def reading_progress(self, reference: str | int) -> tuple[int, int] | None:
        """(pages read, pages in all) of a long PDF whose rest is being read now in this process; else None."""
        return self._reading.get(self._id(reference))

    def complete(self, reference: str | int, progress: ReadProgress | None = None) -> bool:
        """Read the rest of a long PDF stored from its first pages (``progress``: pages read, pages in all), and
        store the whole in its place; True when it did. The reader's place, bookmarks and highlights keep
        pointing at the same words. A second caller waits for the first and then finds nothing to do."""
        book = self._id(reference)

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
    def prepare(self, reference: str | int) -> bool:
        """Write the paragraphs' keyword index if it is due, read the rest of a long PDF stored in part, then cut
        the book into the passages its search and the chat read, if it has none yet (an import that left them
        for later, or one cut short), or count their keyword statistics or store an indexed book's sentences if
        they lack them (a library from before those); True when it did any. Safe beside reading: the work runs
        outside the write transaction that stores it."""
        book = self._id(reference)
        indexed = paragraph_index.write_due(self._library, book) > 0
        completed = self.complete(book)
        cut = self._chunks.ensure_default(book) or self._chunks.ensure_terms(book)
        return self._chunks.ensure_windows(book, indexed_only=True) > 0 or cut or completed or indexed

    def section_passages(self, reference: str | int, section: int, k: int, max_ordinal: int | None) -> list[Passage]:
        """Up to ``k`` passages spread evenly through one section, none past ``max_ordinal`` (the spoiler bound)."""
        book = self._id(reference)
        self._chunks.ensure_default(book)
        ids = self._chunks.ids_in_section(book, section, max_ordinal)
        picked = ids[:: max(1, len(ids) // max(1, k))][:k]
        return self._retriever.passages([(chunk_id, 0.0) for chunk_id in picked])

    def verify_quote(self, passage: Passage, number: int, quote: str) -> Citation:
        """Pin a quote from a found passage to exact locators; CitationError when the words are not there."""
        from core.agent.citations import resolve_citation

        return resolve_citation(self._chunks, passage, number, quote)

    def passage_texts(self, reference: str | int) -> list[str]:
        """The text of each of a book's passages (its chunks for the default model), in reading order."""
        book = self._id(reference)
        self._chunks.ensure_default(book)
        return [chunk.text for chunk in self._chunks.chunks(book)]
