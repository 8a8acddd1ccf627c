"""The core facade: the one API the CLI and the Flet app both use."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from core.books.locator import Locator, parse_locator
from core.books.model import ReadProgress
from core.errors import QuireError
from core.koreader.progress import Kosync
from core.koreader.sidecars import KoreaderSidecars
from core.library import (
    Annotations,
    BookId,
    BookRecord,
    Library,
    Position,
    SearchHit,
)
from core.library.imports import ImportResult
from core.network_policy import NetworkPolicy
from core.parts.catalogs import Catalogs
from core.parts.chats import Chats
from core.parts.companion import Companion
from core.parts.dictionary import Dictionary
from core.parts.folders import Folders
from core.parts.models import Models
from core.parts.notes import Notes
from core.parts.open_book import OpenBook
from core.parts.readwise import Readwise
from core.parts.shelf import Shelf
from core.parts.speech import Speech
from core.parts.stats import Stats
from core.parts.sync import Sync
from core.parts.text import BookText
from core.parts.translation import Translation
from core.rag import (
    ChunkProfile,
    ChunkStore,
    Indexer,
    IndexStatus,
    ModelStore,
    Passage,
    Retriever,
    VectorStore,
)
from core.rag.chunker import DEFAULT_TARGET_TOKENS, TokenCounter, approximate_token_count
from core.rag.models import CATALOG, DEFAULT_MODEL, token_counter
from core.rag.search import SearchMode
from core.secrets import SecretStore

if TYPE_CHECKING:  # the agent's modules load LangChain: imported when the first question is asked
    from langchain_core.language_models import BaseChatModel

    from core.agent.events import AgentEvent
    from core.agent.provider_config import ProviderConfig

LIBRARY_ENV = "QUIRE_LIBRARY"


def default_library_dir(data_dir: Path) -> Path:
    """$QUIRE_LIBRARY if set, else ``<data_dir>/library`` (the client passes its platform's data folder)."""
    if os.environ.get(LIBRARY_ENV):
        return Path(os.environ[LIBRARY_ENV]).expanduser()
    return data_dir / "library"


FIRST_PAGES = 40  # a PDF longer than this opens from its first pages (about 0.6 s of pypdf) while the rest is read


class Quire:
    """Everything a client can do with the library, by book reference (id, hash prefix or title)."""

    def __init__(
        self,
        library_dir: Path | str,
        *,
        vector_backend: str = "auto",
        vector_extension: bool = True,
        wall: Callable[[], float] = time.time,
    ) -> None:
        """``wall``: the clock the reader's edits and syncs are stamped by (the system's; a test's own, moved by it)."""
        self._library = Library(Path(library_dir), vector_extension=vector_extension, wall=wall)
        self._annotations = Annotations(self._library)
        self._network = NetworkPolicy()  # local-only mode: the local_only property
        self._models = ModelStore(self._library.root / "models", self._network)
        self._chunks = ChunkStore(self._library, self._default_chunking)
        self._vectors = VectorStore(self._library, self._chunks, vector_backend)
        self._indexer = Indexer(self._library, self._chunks, self._vectors)
        self._chunking: tuple[ChunkProfile, TokenCounter] | None = None
        # The parts: each domain of the facade, by its name (quire.text.toc(book), quire.notes.highlights(book)).
        self.models = Models(self._library, self._models, self._network)
        self._retriever = Retriever(self._library, self._chunks, self._vectors, self.models.embedder, Models.languages)
        self.text = BookText(self._library, self._chunks, self._retriever, self._whole)
        self.notes = Notes(self._library, self._annotations)
        self.sync = Sync(self._library, self._annotations, self._network, self._received)
        self.chats = Chats(self._library, self._network)
        self.companion = Companion(self._library, self._annotations, self._network)
        self.dictionary = Dictionary(self._library, self._network)
        self.stats = Stats(self._library)
        self.shelf = Shelf(self._library)
        self.translation = Translation(self._library, self._annotations, self._network)
        self.speech = Speech(self._library, self._annotations)
        self.catalogs = Catalogs(self._library, self._network, self.import_paths)
        self.folders = Folders(self._library, self._annotations, self.import_paths)
        self.kosync = Kosync(self._library, self._annotations, self._network, self.text)
        self.koreader = KoreaderSidecars(self._library, self._annotations)
        self.readwise = Readwise(self._library, self._annotations, self._network)

    def _default_chunking(self) -> tuple[ChunkProfile, TokenCounter]:
        """Chunks made at import are sized in the default model's tokens (estimated without tokenizers)."""
        if self._chunking is None:
            spec = self._models.spec(DEFAULT_MODEL)
            found = token_counter(spec, self._models)
            name, count = found if found else ("approximate", approximate_token_count)
            self._chunking = (ChunkProfile(name, min(DEFAULT_TARGET_TOKENS, spec.max_tokens - 2)), count)
        return self._chunking

    def close(self) -> None:
        """Release the database."""
        self._library.close()

    # -- the library as a whole ---------------------------------------------------------------
    @property
    def folder(self) -> Path:
        """The library's folder (its database, book files and models; the app keeps its settings there)."""
        return self._library.root

    @property
    def local_only(self) -> bool:
        """Local-only mode: nothing leaves this computer (checked before every request, redirects included)."""
        return self._network.local_only

    @local_only.setter
    def local_only(self, value: bool) -> None:
        self._network.local_only = bool(value)

    @property
    def vector_backend(self) -> str:
        """How vectors are searched here: "sqlite-vec" (desktops) or "numpy" (phones, or without the extension)."""
        return self._vectors.backend

    # -- books --------------------------------------------------------------------------------
    def import_paths(
        self,
        paths: Iterable[Path | str],
        progress: Callable[[int, int, ImportResult], None] | None = None,
        reading: Callable[[str, int, int], None] | None = None,
    ) -> list[ImportResult]:
        """Import files one by one; a bad file gives an error result and the others go on.

        ``progress`` is told (files done, files in all, result) after each file; ``reading`` is told
        (path, pages read, pages in all) while a paged book (a PDF) is read.
        """
        paths = list(paths)
        results = []
        for done, path in enumerate(paths, start=1):
            pages = None if reading is None else (lambda n, total, path=path: reading(str(path), n, total))
            try:
                record, created = self._library.import_file(path, pages)
                self._imported(record, created)
                result = ImportResult(str(path), record, created)
            except QuireError as error:
                result = ImportResult(str(path), None, False, error)
            results.append(result)
            if progress:
                progress(done, len(paths), result)
        return results

    def import_bytes(
        self, data: bytes, name: str, reading: ReadProgress | None = None, *, passages: bool = True
    ) -> ImportResult:
        """Import a book given as bytes (web and mobile file pickers).

        ``reading`` is told (pages read, pages in all) while a paged book (a PDF) is read. ``passages`` False
        leaves cutting the book into the passages search and the chat read to ``quire.text.prepare`` (the app
        runs it behind the opened book: for 红楼梦 it is more than half of the import); whatever reads them first
        makes them if nothing has. So is the paragraphs' keyword index (a search writes it first if it is still
        due). It also stores a PDF of more than ``FIRST_PAGES`` pages from its first ones,
        to read at once, and leaves the rest to ``prepare`` too (``quire.text.read_in_part`` says how far it is).
        """
        try:
            first = None if passages else FIRST_PAGES
            record, created = self._library.import_bytes(data, name, reading, first_pages=first, index_now=passages)
            self._imported(record, created, passages)
            return ImportResult(name, record, created)
        except QuireError as error:
            return ImportResult(name, None, False, error)

    def _received(self, data: bytes, name: str) -> None:
        """A book another device sent through sync: imported, not recorded as this reader's import."""
        record, created = self._library.import_bytes(data, name, journal=False)
        self._imported(record, created)

    def _imported(self, record: BookRecord, created: bool, passages: bool = True) -> None:
        """After an import's commit: its chunks (a transaction of their own), and a book imported again gets back
        the notes, bookmarks, tags and place it had when it was removed (the same file: every place exists)."""
        from core.sync.records import restore

        if passages:
            self._chunks.ensure_default(record.id)
        if created and self.text.read_in_part(record.id) is None:  # a first part: restored when whole (_whole)
            restore(self._library, self._annotations, record)

    def _id(self, reference: str | int) -> BookId:
        """The book a facade entry point was named by, as an id: the one place text becomes a book (an id is only
        checked to be there; a title, a hash prefix or digits that are no id are resolved)."""
        if isinstance(reference, int):
            return self._library.book_id(reference)
        return BookId(self._library.resolve(reference).id)

    def _whole(self, book_id: int) -> None:
        """A long PDF read in part is whole now: what sync brought for its later pages (a highlight made on
        another device, which found no such place in the first part) is placed from the records sync keeps."""
        from core.sync.records import restore

        restore(self._library, self._annotations, self._library.get(book_id))

    def books(self, tag: str | None = None) -> list[BookRecord]:
        """The library, most recent first."""
        return self._library.books(tag)

    def book(self, reference: str | int) -> BookRecord:
        """One book by id, content-hash prefix or title."""
        return self._library.resolve(reference)

    def open(self, reference: str | int) -> OpenBook:
        """One book opened for reading: the reference resolved once (by id, hash prefix or title: "1984" is
        Orwell's book when no book has the id 1984), its text, places and X-Ray read by its id from then on."""
        record = self._library.resolve(reference)
        return OpenBook(record, self._library, self.text, self._annotations, self.companion, self.stats)

    def has_content(self, digest: str) -> bool:
        """Whether a book with exactly these bytes (their SHA-256) is in the library."""
        return self._library.has_content(digest)

    def edit_book(
        self, reference: str | int, *, title: str | None = None, authors: list[str] | None = None
    ) -> BookRecord:
        """Set a book's title or authors as the reader wants them (None leaves one unchanged)."""
        return self._library.edit(self._id(reference), title, authors)

    def remove(self, reference: str | int) -> BookRecord:
        """Remove a book and its file; its notes are hidden with it, and come back if it is imported again."""
        return self._library.remove(self._id(reference))

    def cover(self, reference: str | int) -> tuple[bytes, str] | None:
        """The cover image and its media type, if the book has one."""
        return self._library.cover(self._id(reference))

    # -- reading ------------------------------------------------------------------------------
    def find(
        self, reference: str | int | None, query: str, limit: int | None = 20, *, in_book_order: bool = False
    ) -> list[SearchHit]:
        """Full-text search in a book, or in the whole library when ``reference`` is None.

        Best matches first; ``in_book_order``: every matching paragraph of the book in reading order (``limit``
        None: all of them), as the reader's search panel lists them.
        """
        book_id = self._id(reference) if reference is not None else None
        return self._library.find(book_id, query, limit, in_book_order=in_book_order)

    def save_position(
        self,
        reference: str | int,
        locator: str | Locator,
        read_seconds: float = 0.0,
        *,
        reading: bool = True,
        read_chars: int | None = None,
    ) -> Position:
        """Remember where the reader is (the current place).

        ``reading`` (a page turn, scrolling, ``quire position BOOK LOC``) also raises the furthest place read
        when this is past it; a jump (contents, search hit, citation) passes False and leaves it. ``read_seconds``
        and ``read_chars`` are the time and the text of what was read since the last save (the reader's speed
        comes from them); without ``read_chars``, the paragraphs a reading move passed count.
        """
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        book_id = self._id(reference)
        return self._annotations.save_position(book_id, locator, read_seconds, reading=reading, read_chars=read_chars)

    def set_furthest(self, reference: str | int, locator: str | Locator | None = None) -> Position:
        """Move the furthest place read back on purpose ("I haven't read past here"); None: to the current place."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._annotations.set_furthest(self._id(reference), locator)

    def position(self, reference: str | int) -> Position | None:
        """Where the reader left the book, and the furthest they have read (the spoiler bound)."""
        return self._annotations.position(self._id(reference))

    def positions(self) -> dict[int, Position]:
        """Every opened book's position by book id, read at once (the library screen's)."""
        return self._annotations.positions()

    # -- tags ---------------------------------------------------------------------------------
    def tag(self, reference: str | int, tag: str) -> None:
        """Tag a book."""
        self._annotations.tag(self._id(reference), tag)

    def tags(self) -> list[str]:
        """Every tag in the library, sorted."""
        return self._annotations.all_tags()

    # -- retrieval ----------------------------------------------------------------------------
    def index(
        self,
        reference: str | int,
        embedder: str | None = None,
        progress: Callable[[IndexStatus], None] | None = None,
        cancel: threading.Event | None = None,
        download_progress: Callable[[int, int | None], None] | None = None,
    ) -> IndexStatus:
        """Embed a book's chunks (resuming any earlier run), nearest to the reader's position first."""
        book = self.book(reference)
        self.text.complete(book.id)  # a long PDF read in part: its passages are cut from the whole of it
        name = embedder or self.models.choose(book.id)[0]
        if name in CATALOG and not self.models.is_available(name):
            self.models.fetch(name, progress=download_progress, cancel=cancel)  # first use: download it
        position = self._annotations.position(book.id)
        return self._indexer.run(
            book.id,
            self.models.embedder(name),
            near_ordinal=position.ordinal if position else 0,
            progress=progress,
            cancel=cancel,
        )

    def index_status(self, reference: str | int) -> IndexStatus | None:
        """How far a book's indexing went (None: never started; keyword search works regardless)."""
        return self._indexer.status(self._id(reference))

    def search(
        self,
        reference: str | int | None,
        query: str,
        *,
        mode: SearchMode = "hybrid",
        k: int = 10,
        before: str | Locator | int | None = None,
        sections: tuple[int, int] | None = None,
    ) -> list[Passage]:
        """Passages for a query in a book (or the library).

        ``before`` is the spoiler bound, inclusive: a locator, or a place in reading order (a global ordinal,
        as ``Position.ordinal`` gives it).
        """
        book_id = self._id(reference) if reference is not None else None
        if book_id is not None:
            self._chunks.ensure_default(book_id)  # an import cut between its two steps left none
        max_ordinal = None
        if before is not None:
            if book_id is None:
                raise QuireError("a spoiler bound (before) needs a book")
            if isinstance(before, int):
                max_ordinal = before
            else:
                locator = parse_locator(before) if isinstance(before, str) else before
                max_ordinal = self._library.ordinal_of(book_id, locator)
        return self._retriever.search(
            query, book_id=book_id, mode=mode, k=k, max_ordinal=max_ordinal, sections=sections
        )

    # -- chat ---------------------------------------------------------------------------------
    def search_library(
        self, query: str, *, mode: SearchMode = "hybrid", k: int = 10, spoilers: bool = False
    ) -> list[Passage]:
        """Passages for a query in every book, each book fenced at its own furthest place (``spoilers``: not).

        A book never opened has nothing read, so with the fence nothing of it is found."""
        fence = None
        if not spoilers:
            fence = {book_id: p.furthest_ordinal for book_id, p in self.positions().items()}
        return self._retriever.search(query, mode=mode, k=k, fence=fence)

    def ask(
        self,
        reference: str | int | None,
        question: str,
        *,
        thread_id: int | None = None,
        provider: ProviderConfig | None = None,
        model: BaseChatModel | None = None,
        spoilers: bool = False,
        secrets: SecretStore | None = None,
        selection: str = "",
        recap: bool = False,
    ) -> Generator[AgentEvent, None, None]:
        """Answer a question about a book (None: the library) as a stream of events, saved to a thread.

        With no provider and no model the answer comes from search alone (offline). ``selection`` is the
        passage the reader selected, offered to the agent as a tool. The question and the answer (even a
        stopped one) are stored when the stream ends or is closed.
        """
        from core.agent.conversation import Question, ask

        book_id = self._id(reference) if reference is not None else None
        asked = Question(book_id, question, thread_id, provider, model, spoilers, secrets, selection, recap)
        return ask(self, self.chats.store(), self._network, asked)
