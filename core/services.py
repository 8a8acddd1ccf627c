"""The core facade: the one API the CLI and the Flet app both use."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.books.locator import Locator, parse_locator
from core.books.model import ReadProgress
from core.errors import ModelUnavailableError, QuireError
from core.export import export_json, export_markdown
from core.library import (
    Annotations,
    Bookmark,
    BookRecord,
    Highlight,
    Library,
    Position,
    SearchHit,
    SegmentRecord,
    TocRow,
)
from core.network_policy import NetworkPolicy
from core.rag import (
    ChunkProfile,
    ChunkStore,
    Embedder,
    Indexer,
    IndexStatus,
    ModelStore,
    Passage,
    Retriever,
    VectorStore,
)
from core.rag.chunker import DEFAULT_TARGET_TOKENS, TokenCounter, approximate_token_count
from core.rag.models import CATALOG, DEFAULT_MODEL, choose_model, token_counter
from core.rag.remote import REMOTE_EMBEDDERS
from core.secrets import SecretStore

if TYPE_CHECKING:  # the agent's modules load LangChain: imported when the first question is asked
    from langchain_core.language_models import BaseChatModel

    from core.agent.citations import Citation
    from core.agent.events import AgentEvent
    from core.agent.message import Message
    from core.agent.provider_config import ProviderConfig
    from core.agent.threads import ChatStore

LIBRARY_ENV = "QUIRE_LIBRARY"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What happened to one file of an import: a book (new or already there) or an error."""

    source: str
    book: BookRecord | None
    created: bool
    error: QuireError | None = None  # typed, so that each client words it in its own way and language

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "book": self.book.to_dict() if self.book else None,
            "created": self.created,
            "error": str(self.error) if self.error else None,
            "error_type": type(self.error).__name__ if self.error else None,
        }


def default_library_dir(data_dir: Path) -> Path:
    """$QUIRE_LIBRARY if set, else ``<data_dir>/library`` (the client passes its platform's data folder)."""
    if os.environ.get(LIBRARY_ENV):
        return Path(os.environ[LIBRARY_ENV]).expanduser()
    return data_dir / "library"


class Quire:
    """Everything a client can do with the library, by book reference (id, hash prefix or title)."""

    def __init__(self, library_dir: Path | str, *, vector_backend: str = "auto", vector_extension: bool = True) -> None:
        self._library = Library(Path(library_dir), vector_extension=vector_extension)
        self._annotations = Annotations(self._library)
        self._network = NetworkPolicy()  # local-only mode: the local_only property
        self._models = ModelStore(self._library.root / "models", self._network)
        self._chunks = ChunkStore(self._library, self._default_chunking)
        self._vectors = VectorStore(self._library, self._chunks, vector_backend)
        self._retriever = Retriever(self._library, self._chunks, self._vectors, self.embedder, self._model_languages)
        self._indexer = Indexer(self._library, self._chunks, self._vectors)
        self._remote_embedders: dict[str, Embedder] = {}
        self._chunking: tuple[ChunkProfile, TokenCounter] | None = None
        self._chats: ChatStore | None = None

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

    def import_bytes(self, data: bytes, name: str, reading: ReadProgress | None = None) -> ImportResult:
        """Import a book given as bytes (web and mobile file pickers).

        ``reading`` is told (pages read, pages in all) while a paged book (a PDF) is read.
        """
        try:
            record, created = self._library.import_bytes(data, name, reading)
            self._imported(record, created)
            return ImportResult(name, record, created)
        except QuireError as error:
            return ImportResult(name, None, False, error)

    def _received(self, data: bytes, name: str) -> None:
        """A book another device sent through sync: imported, not recorded as this reader's import."""
        record, created = self._library.import_bytes(data, name, journal=False)
        self._imported(record, created)

    def _imported(self, record: BookRecord, created: bool) -> None:
        """After an import's commit: its chunks (a transaction of their own), and a book imported again gets back
        the notes, bookmarks, tags and place it had when it was removed (the same file: every place exists)."""
        from core.sync.records import restore

        self._chunks.ensure_default(record.id)
        if created:
            restore(self._library, self._annotations, record)

    def books(self, tag: str | None = None) -> list[BookRecord]:
        """The library, most recent first."""
        return self._library.books(tag)

    def book(self, reference: str | int) -> BookRecord:
        """One book by id, content-hash prefix or title."""
        return self._library.resolve(reference)

    def has_content(self, digest: str) -> bool:
        """Whether a book with exactly these bytes (their SHA-256) is in the library."""
        return self._library.has_content(digest)

    def edit_book(
        self, reference: str | int, *, title: str | None = None, authors: list[str] | None = None
    ) -> BookRecord:
        """Set a book's title or authors as the reader wants them (None leaves one unchanged)."""
        return self._library.edit(self.book(reference).id, title, authors)

    def remove(self, reference: str | int) -> BookRecord:
        """Remove a book and its file; its notes are hidden with it, and come back if it is imported again."""
        return self._library.remove(self.book(reference).id)

    def cover(self, reference: str | int) -> tuple[bytes, str] | None:
        """The cover image and its media type, if the book has one."""
        return self._library.cover(self.book(reference).id)

    # -- reading ------------------------------------------------------------------------------
    def toc(self, reference: str | int) -> list[TocRow]:
        """The book's table of contents."""
        return self._library.toc(self.book(reference).id)

    def show(self, reference: str | int, locator: str | Locator, count: int = 1) -> list[SegmentRecord]:
        """The segment at a locator and the ``count - 1`` that follow it."""
        book = self.book(reference)
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        first = self._library.segment(book.id, locator)
        return self._library.segments(book.id, first.ordinal, max(1, count))

    def segments(self, reference: str | int, start_ordinal: int, count: int) -> list[SegmentRecord]:
        """``count`` segments in reading order from a global ordinal (a page of the book)."""
        return self._library.segments(self.book(reference).id, max(0, start_ordinal), max(1, count))

    def ordinal_of(self, reference: str | int, locator: str | Locator) -> int:
        """The global ordinal (place in reading order) of the segment a locator points at."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._library.ordinal_of(self.book(reference).id, locator)

    def printed_pages(self, reference: str | int) -> int:
        """How many pages a text PDF's page view can draw (0: not a text PDF, or no renderer on this device)."""
        book = self.book(reference)
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
        return self._library.printed_label(self.book(reference).id, page)

    def page_of(self, reference: str | int, ordinal: int) -> int:
        """The PDF page (from 0) that the segment at ``ordinal`` starts on (0 when unknown)."""
        return self._library.page_of(self.book(reference).id, ordinal) or 0

    def page_start(self, reference: str | int, page: int) -> SegmentRecord | None:
        """The first segment of text on a PDF page (from 0), or None for a page without text."""
        book = self.book(reference)
        ordinal = self._library.page_start(book.id, page)
        return self._library.segments(book.id, ordinal, 1)[0] if ordinal is not None else None

    def image(self, reference: str | int, src: str) -> bytes | None:
        """An image of the book by its source path (None when the book has no such image)."""
        return self._library.image(self.book(reference).id, src)

    def section_titles(self, reference: str | int) -> dict[int, str]:
        """Each section's title by its number (the chapter a locator is in)."""
        return {row["idx"]: row["title"] for row in self._library.sections(self.book(reference).id)}

    def section(self, reference: str | int, section: int) -> list[SegmentRecord]:
        """Every segment of one section."""
        return self._library.section_segments(self.book(reference).id, section)

    def find(
        self, reference: str | int | None, query: str, limit: int | None = 20, *, in_book_order: bool = False
    ) -> list[SearchHit]:
        """Full-text search in a book, or in the whole library when ``reference`` is None.

        Best matches first; ``in_book_order``: every matching paragraph of the book in reading order (``limit``
        None: all of them), as the reader's search panel lists them.
        """
        book_id = self.book(reference).id if reference is not None else None
        return self._library.find(book_id, query, limit, in_book_order=in_book_order)

    def save_position(
        self, reference: str | int, locator: str | Locator, read_seconds: float = 0.0, *, reading: bool = True
    ) -> Position:
        """Remember where the reader is (the current place).

        ``reading`` (a page turn, scrolling, ``quire position BOOK LOC``) also raises the furthest place read
        when this is past it; a jump (contents, search hit, citation) passes False and leaves it.
        """
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._annotations.save_position(self.book(reference).id, locator, read_seconds, reading=reading)

    def set_furthest(self, reference: str | int, locator: str | Locator | None = None) -> Position:
        """Move the furthest place read back on purpose ("I haven't read past here"); None: to the current place."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self._annotations.set_furthest(self.book(reference).id, locator)

    def position(self, reference: str | int) -> Position | None:
        """Where the reader left the book, and the furthest they have read (the spoiler bound)."""
        return self._annotations.position(self.book(reference).id)

    def positions(self) -> dict[int, Position]:
        """Every opened book's position by book id, read at once (the library screen's)."""
        return self._annotations.positions()

    # -- annotations --------------------------------------------------------------------------
    def add_bookmark(self, reference: str | int, locator: str, label: str = "") -> Bookmark:
        """Bookmark a locator."""
        return self._annotations.add_bookmark(self.book(reference).id, parse_locator(locator), label)

    def bookmarks(self, reference: str | int) -> list[Bookmark]:
        """A book's bookmarks."""
        return self._annotations.bookmarks(self.book(reference).id)

    def add_highlight(
        self, reference: str | int, start: str, end: str | None = None, color: str = "yellow", note: str = ""
    ) -> Highlight:
        """Highlight from ``start`` to ``end`` (the whole start segment when ``end`` is omitted)."""
        book = self.book(reference)
        first = parse_locator(start)
        last = parse_locator(end) if end else first.segment_locator
        return self._annotations.add_highlight(book.id, first, last, color, note)

    def highlights(self, reference: str | int | None = None) -> list[Highlight]:
        """Highlights of one book, or of the whole library."""
        return self._annotations.highlights(self.book(reference).id if reference is not None else None)

    def update_highlight(self, highlight_id: int, *, note: str | None = None, color: str | None = None) -> Highlight:
        """Change a highlight's note or colour."""
        return self._annotations.update_highlight(highlight_id, note=note, color=color)

    def remove_highlight(self, highlight_id: int) -> None:
        """Delete a highlight and its note."""
        self._annotations.remove_highlight(highlight_id)

    def remove_bookmark(self, bookmark_id: int) -> None:
        """Delete a bookmark."""
        self._annotations.remove_bookmark(bookmark_id)

    def tag(self, reference: str | int, tag: str) -> None:
        """Tag a book."""
        self._annotations.tag(self.book(reference).id, tag)

    def tags(self) -> list[str]:
        """Every tag in the library, sorted."""
        return self._annotations.all_tags()

    # -- sync -----------------------------------------------------------------------------------
    def sync_setup(
        self,
        target: str,
        user: str = "",
        password: str | None = None,
        secrets: SecretStore | None = None,
        *,
        book_files: bool = True,
        max_book_mb: int = 200,
        remember_password: bool = True,
    ) -> dict[str, Any]:
        """Choose where to sync (a folder or a WebDAV URL), check it, create its folders; the password goes to
        ``secrets`` (``remember_password``), never to the library. Book files larger than ``max_book_mb`` stay on
        their device. A folder, or a server without a login, needs no secret: the secret store is not asked."""
        from core.sync import open_target

        login = "://" in target and bool(user)
        if login and password is not None and remember_password and secrets is not None:
            secrets.set(_sync_secret(target), password)
        if login and password is None and secrets is not None:
            password = secrets.get(_sync_secret(target))
        opened = open_target(target, user, password or "", local_only=self.local_only)
        opened.prepare()
        with self._library.transaction() as conn:
            settings = (("target", target), ("user", user), ("book_files", "1" if book_files else "0"),
                        ("max_book_mb", str(max(1, max_book_mb))))  # fmt: skip
            for name, value in settings:
                conn.execute("INSERT OR REPLACE INTO sync_meta VALUES (?, ?)", (name, value))
        return self.sync_status(secrets, password)

    def sync_is_set_up(self) -> bool:
        """Whether this library has a sync target (one small read: asked on every book opened and closed)."""
        return self._library.conn.execute("SELECT 1 FROM sync_meta WHERE name = 'target'").fetchone() is not None

    def _syncer(self, secrets: SecretStore | None, password: str | None = None) -> Any:
        """The syncer for the target set up; ``password`` (given) wins over the one in ``secrets``."""
        from core.errors import SyncError
        from core.sync import Syncer, open_target

        meta = dict(self._library.conn.execute("SELECT name, value FROM sync_meta").fetchall())
        if "target" not in meta:
            raise SyncError("sync is not set up: choose a folder or a WebDAV server first (quire sync setup)")
        login = "://" in meta["target"] and bool(meta.get("user"))
        if login and password is None and secrets is not None:
            password = secrets.get(_sync_secret(meta["target"]))
        target = open_target(meta["target"], meta.get("user", ""), password or "", local_only=self.local_only)
        return Syncer(self._library, self._annotations, target, import_bytes=self._received,
                      book_files=meta.get("book_files", "1") == "1",
                      max_book_bytes=int(meta.get("max_book_mb", "200")) * 1024 * 1024)  # fmt: skip

    def sync(self, secrets: SecretStore | None = None, password: str | None = None) -> dict[str, Any]:
        """Send this library's changes and apply the other devices'; the report says what moved."""
        report: dict[str, Any] = self._syncer(secrets, password).run().to_dict()
        return report

    def sync_status(self, secrets: SecretStore | None = None, password: str | None = None) -> dict[str, Any]:
        """Where this library syncs, this device's name, what waits to be sent and the last sync's report."""
        status: dict[str, Any] = self._syncer(secrets, password).status()
        return status

    def export(self, reference: str | int, format_name: str = "md") -> str:
        """Highlights, notes and bookmarks of a book as Markdown ('md') or JSON ('json')."""
        book = self.book(reference)
        highlights = self._annotations.highlights(book.id)
        bookmarks = self._annotations.bookmarks(book.id)
        if format_name == "json":
            return export_json(book, highlights, bookmarks)
        if format_name != "md":
            raise QuireError(f"unknown export format '{format_name}': use md or json")
        return export_markdown(book, highlights, bookmarks, self.section_titles(book.id))

    # -- retrieval ----------------------------------------------------------------------------
    @staticmethod
    def _model_languages(name: str) -> tuple[str, ...]:
        """Languages a model is good at ("*": many, or unknown for a remote model)."""
        return CATALOG[name].languages if name in CATALOG else ("*",)

    def embedder(self, name: str) -> Embedder:
        """An embedder by name: a registered remote endpoint, or an on-device catalog model."""
        if name in self._remote_embedders:
            return self._remote_embedders[name]
        if name.partition(":")[0] in REMOTE_EMBEDDERS:
            raise ModelUnavailableError(
                f"this book was indexed with the remote model '{name}', which is not set up here: "
                "set that endpoint up again, or index the book with an on-device model"
            )
        return self._models.load(name)

    def fetch_model(
        self,
        name: str,
        progress: Callable[[int, int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """Download an on-device model's files (checked by hash), unless they are here already."""
        self._models.fetch(name, progress=progress, cancel=cancel)

    def release_models(self) -> int:
        """Free the memory of the on-device models (they load again when next needed); how many were loaded."""
        return self._models.release()

    def use_remote_embedder(self, spec: str, base_url: str, api_key: str | None = None) -> str:
        """Register a remote embedder from ``openai:MODEL`` or ``ollama:MODEL``; return its name."""
        from core.rag.remote import OllamaEmbedder, OpenAIEmbedder

        kind, _, model = spec.partition(":")
        classes = {"openai": OpenAIEmbedder, "ollama": OllamaEmbedder}
        if kind not in classes or not model:
            raise QuireError(f"'{spec}' is not a remote embedder: write openai:MODEL or ollama:MODEL")
        self._network.check(base_url, f"the {kind} embedding endpoint")
        embedder = classes[kind](model, base_url=base_url, api_key=api_key, policy=self._network)
        self._remote_embedders[embedder.name] = embedder
        return embedder.name

    def choose_embedder(self, reference: str | int) -> tuple[str, str]:
        """The embedding model a book gets (by its language, among those available) and why."""
        book = self.book(reference)
        name, reason = choose_model(book.language, self._models.available())
        if name is None:
            raise ModelUnavailableError(reason)
        return name, reason

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
        name = embedder or self.choose_embedder(book.id)[0]
        if name in CATALOG and not self._models.is_available(name):
            self._models.fetch(name, progress=download_progress, cancel=cancel)  # first use: download it
        position = self._annotations.position(book.id)
        return self._indexer.run(
            book.id,
            self.embedder(name),
            near_ordinal=position.ordinal if position else 0,
            progress=progress,
            cancel=cancel,
        )

    def index_status(self, reference: str | int) -> IndexStatus | None:
        """How far a book's indexing went (None: never started; keyword search works regardless)."""
        return self._indexer.status(self.book(reference).id)

    def search(
        self,
        reference: str | int | None,
        query: str,
        *,
        mode: str = "hybrid",
        k: int = 10,
        before: str | Locator | int | None = None,
        sections: tuple[int, int] | None = None,
    ) -> list[Passage]:
        """Passages for a query in a book (or the library).

        ``before`` is the spoiler bound, inclusive: a locator, or a place in reading order (a global ordinal,
        as ``Position.ordinal`` gives it).
        """
        book_id = self.book(reference).id if reference is not None else None
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

    def section_passages(self, reference: str | int, section: int, k: int, max_ordinal: int | None) -> list[Passage]:
        """Up to ``k`` passages spread evenly through one section, none past ``max_ordinal`` (the spoiler bound)."""
        book = self.book(reference)
        self._chunks.ensure_default(book.id)
        ids = self._chunks.ids_in_section(book.id, section, max_ordinal)
        picked = ids[:: max(1, len(ids) // max(1, k))][:k]
        return self._retriever.passages([(chunk_id, 0.0) for chunk_id in picked])

    def verify_quote(self, passage: Passage, number: int, quote: str) -> Citation:
        """Pin a quote from a found passage to exact locators; CitationError when the words are not there."""
        from core.agent.citations import resolve_citation

        return resolve_citation(self._chunks, passage, number, quote)

    def passage_texts(self, reference: str | int) -> list[str]:
        """The text of each of a book's passages (its chunks for the default model), in reading order."""
        book = self.book(reference)
        self._chunks.ensure_default(book.id)
        return [chunk.text for chunk in self._chunks.chunks(book.id)]

    def models_status(self) -> list[dict[str, Any]]:
        """The embedding models Quire knows, and whether each can run here now."""
        return [
            {"name": spec.name, "languages": list(spec.languages), "dimension": spec.dimension,
             "available": self._models.is_available(spec.name)}
            for spec in CATALOG.values()
        ]  # fmt: skip

    # -- chat ---------------------------------------------------------------------------------
    def _chat_store(self) -> ChatStore:
        from core.agent.threads import ChatStore  # LangChain loads with the first chat, not with the library

        if self._chats is None:
            self._chats = ChatStore(self._library)
        return self._chats

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
    ) -> Generator[AgentEvent, None, None]:
        """Answer a question about a book (None: the library) as a stream of events, saved to a thread.

        With no provider and no model the answer comes from search alone (offline). ``selection`` is the
        passage the reader selected, offered to the agent as a tool. The question and the answer (even a
        stopped one) are stored when the stream ends or is closed.
        """
        from core.agent.conversation import Question, ask

        book_id = self.book(reference).id if reference is not None else None
        asked = Question(book_id, question, thread_id, provider, model, spoilers, secrets, selection)
        return ask(self, self._chat_store(), self._network, asked)

    def check_provider(self, config: ProviderConfig, secrets: SecretStore | None = None) -> str:
        """Try an AI provider's endpoint: a one-line success message, or ProviderError / LocalOnlyError."""
        from core.agent.connection import check_connection

        return check_connection(config, secrets, self._network)

    def chat_threads(self, reference: str | int | None) -> list[dict[str, Any]]:
        """The conversations about a book (None: about the library), most recent first."""
        book_id = self.book(reference).id if reference is not None else None
        return self._chat_store().threads(book_id)

    def chat_messages(self, thread_id: int) -> list[Message]:
        """A conversation's messages, each as its stored parts in the order they streamed."""
        return self._chat_store().messages(thread_id)

    def rename_thread(self, thread_id: int, title: str) -> None:
        """Give a conversation a new title."""
        self._chat_store().rename(thread_id, title)

    def delete_thread(self, thread_id: int) -> None:
        """Remove a conversation and its messages."""
        self._chat_store().delete(thread_id)

    def drop_last_exchange(self, thread_id: int) -> str | None:
        """Remove a conversation's last question and answer (to ask again); the question, or None."""
        return self._chat_store().drop_last_exchange(thread_id)


def _sync_secret(target: str) -> str:
    """The secret store's name for a sync target's password."""
    return f"quire-sync:{target}"
