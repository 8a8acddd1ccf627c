"""The core facade: the one API the CLI and the Flet app both use."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from core.books.locator import Locator, parse_locator
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

LIBRARY_ENV = "QUIRE_LIBRARY"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What happened to one file of an import: a book (new or already there) or an error."""

    source: str
    book: BookRecord | None
    created: bool
    error: str | None = None

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "book": self.book.to_dict() if self.book else None,
            "created": self.created,
            "error": self.error,
        }


def default_library_dir(data_dir: Path | None = None) -> Path:
    """$QUIRE_LIBRARY if set, else ``<platform data dir>/library``."""
    if os.environ.get(LIBRARY_ENV):
        return Path(os.environ[LIBRARY_ENV]).expanduser()
    if data_dir is None:
        from platform_adapters import current_platform

        data_dir = current_platform().paths.data_dir()
    return data_dir / "library"


class Quire:
    """Everything a client can do with the library, by book reference (id, hash prefix or title)."""

    def __init__(
        self, library_dir: Path | str | None = None, *, vector_backend: str = "auto", vector_extension: bool = True
    ) -> None:
        self.library = Library(
            Path(library_dir) if library_dir else default_library_dir(), vector_extension=vector_extension
        )
        self.annotations = Annotations(self.library)
        self.network = NetworkPolicy()  # local-only mode: set network.local_only
        self.models = ModelStore(self.library.root / "models", self.network)
        self.chunks = ChunkStore(self.library, self._default_chunking)
        self.vectors = VectorStore(self.library, self.chunks, vector_backend)
        self.retriever = Retriever(self.library, self.chunks, self.vectors, self.embedder, self._model_languages)
        self.indexer = Indexer(self.library, self.chunks, self.vectors)
        self.remote_embedders: dict[str, Embedder] = {}
        self._chunking: tuple[ChunkProfile, TokenCounter] | None = None

    def _default_chunking(self) -> tuple[ChunkProfile, TokenCounter]:
        """Chunks made at import are sized in the default model's tokens (estimated without tokenizers)."""
        if self._chunking is None:
            spec = self.models.spec(DEFAULT_MODEL)
            found = token_counter(spec, self.models)
            name, count = found if found else ("approximate", approximate_token_count)
            self._chunking = (ChunkProfile(name, min(DEFAULT_TARGET_TOKENS, spec.max_tokens - 2)), count)
        return self._chunking

    def close(self) -> None:
        """Release the database."""
        self.library.close()

    # -- books --------------------------------------------------------------------------------
    def import_paths(
        self, paths: Iterable[Path | str], progress: Callable[[int, int, ImportResult], None] | None = None
    ) -> list[ImportResult]:
        """Import files one by one; a bad file gives an error result and the others go on."""
        paths = list(paths)
        results = []
        for done, path in enumerate(paths, start=1):
            try:
                record, created = self.library.import_file(path)
                self.chunks.ensure_default(record.id)  # after the import's commit, in a transaction of its own
                result = ImportResult(str(path), record, created)
            except QuireError as error:
                result = ImportResult(str(path), None, False, str(error))
            results.append(result)
            if progress:
                progress(done, len(paths), result)
        return results

    def import_bytes(self, data: bytes, name: str) -> ImportResult:
        """Import a book given as bytes (web and mobile file pickers)."""
        try:
            record, created = self.library.import_bytes(data, name)
            self.chunks.ensure_default(record.id)
            return ImportResult(name, record, created)
        except QuireError as error:
            return ImportResult(name, None, False, str(error))

    def books(self, tag: str | None = None) -> list[BookRecord]:
        """The library, most recent first."""
        return self.library.books(tag)

    def book(self, reference: str | int) -> BookRecord:
        """One book by id, content-hash prefix or title."""
        return self.library.resolve(reference)

    def has_content(self, digest: str) -> bool:
        """Whether a book with exactly these bytes (their SHA-256) is in the library."""
        return self.library.has_content(digest)

    def remove(self, reference: str | int) -> BookRecord:
        """Remove a book, its annotations and its file."""
        return self.library.remove(self.book(reference).id)

    def cover(self, reference: str | int) -> tuple[bytes, str] | None:
        """The cover image and its media type, if the book has one."""
        return self.library.cover(self.book(reference).id)

    # -- reading ------------------------------------------------------------------------------
    def toc(self, reference: str | int) -> list[TocRow]:
        """The book's table of contents."""
        return self.library.toc(self.book(reference).id)

    def show(self, reference: str | int, locator: str | Locator, count: int = 1) -> list[SegmentRecord]:
        """The segment at a locator and the ``count - 1`` that follow it."""
        book = self.book(reference)
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        first = self.library.segment(book.id, locator)
        return self.library.segments(book.id, first.ordinal, max(1, count))

    def section(self, reference: str | int, section: int) -> list[SegmentRecord]:
        """Every segment of one section."""
        return self.library.section_segments(self.book(reference).id, section)

    def find(self, reference: str | int | None, query: str, limit: int = 20) -> list[SearchHit]:
        """Full-text search in a book, or in the whole library when ``reference`` is None."""
        book_id = self.book(reference).id if reference is not None else None
        return self.library.find(book_id, query, limit)

    def save_position(self, reference: str | int, locator: str | Locator, read_seconds: float = 0.0) -> Position:
        """Remember where the reader is."""
        locator = parse_locator(locator) if isinstance(locator, str) else locator
        return self.annotations.save_position(self.book(reference).id, locator, read_seconds)

    def position(self, reference: str | int) -> Position | None:
        """Where the reader left the book."""
        return self.annotations.position(self.book(reference).id)

    # -- annotations --------------------------------------------------------------------------
    def add_bookmark(self, reference: str | int, locator: str, label: str = "") -> Bookmark:
        """Bookmark a locator."""
        return self.annotations.add_bookmark(self.book(reference).id, parse_locator(locator), label)

    def bookmarks(self, reference: str | int) -> list[Bookmark]:
        """A book's bookmarks."""
        return self.annotations.bookmarks(self.book(reference).id)

    def add_highlight(
        self, reference: str | int, start: str, end: str | None = None, color: str = "yellow", note: str = ""
    ) -> Highlight:
        """Highlight from ``start`` to ``end`` (the whole start segment when ``end`` is omitted)."""
        book = self.book(reference)
        first = parse_locator(start)
        last = parse_locator(end) if end else first.segment_locator
        return self.annotations.add_highlight(book.id, first, last, color, note)

    def highlights(self, reference: str | int | None = None) -> list[Highlight]:
        """Highlights of one book, or of the whole library."""
        return self.annotations.highlights(self.book(reference).id if reference is not None else None)

    def update_highlight(self, highlight_id: int, *, note: str | None = None, color: str | None = None) -> Highlight:
        """Change a highlight's note or colour."""
        return self.annotations.update_highlight(highlight_id, note=note, color=color)

    def remove_highlight(self, highlight_id: int) -> None:
        """Delete a highlight and its note."""
        self.annotations.remove_highlight(highlight_id)

    def remove_bookmark(self, bookmark_id: int) -> None:
        """Delete a bookmark."""
        self.annotations.remove_bookmark(bookmark_id)

    def tag(self, reference: str | int, tag: str) -> None:
        """Tag a book."""
        self.annotations.tag(self.book(reference).id, tag)

    def tags(self) -> list[str]:
        """Every tag in the library, sorted."""
        return self.annotations.all_tags()

    def export(self, reference: str | int, format_name: str = "md") -> str:
        """Highlights, notes and bookmarks of a book as Markdown ('md') or JSON ('json')."""
        book = self.book(reference)
        highlights = self.annotations.highlights(book.id)
        bookmarks = self.annotations.bookmarks(book.id)
        if format_name == "json":
            return export_json(book, highlights, bookmarks)
        if format_name != "md":
            raise QuireError(f"unknown export format '{format_name}': use md or json")
        sections = {row["idx"]: row["title"] for row in self.library.sections(book.id)}
        return export_markdown(book, highlights, bookmarks, sections)

    # -- retrieval ----------------------------------------------------------------------------
    @staticmethod
    def _model_languages(name: str) -> tuple[str, ...]:
        """Languages a model is good at ("*": many, or unknown for a remote model)."""
        return CATALOG[name].languages if name in CATALOG else ("*",)

    def embedder(self, name: str) -> Embedder:
        """An embedder by name: a registered remote endpoint, or an on-device catalog model."""
        if name in self.remote_embedders:
            return self.remote_embedders[name]
        if name.partition(":")[0] in ("openai", "ollama"):
            raise ModelUnavailableError(
                f"this book was indexed with the remote model '{name}', which is not set up here: "
                "choose it in Settings (or pass --embedder and --base-url), or index the book with an on-device model"
            )
        return self.models.load(name)

    def release_models(self) -> int:
        """Free the memory of the on-device models (they load again when next needed); how many were loaded."""
        return self.models.release()

    def use_remote_embedder(self, spec: str, base_url: str, api_key: str | None = None) -> str:
        """Register a remote embedder from ``openai:MODEL`` or ``ollama:MODEL``; return its name."""
        from core.rag.remote import OllamaEmbedder, OpenAIEmbedder

        kind, _, model = spec.partition(":")
        classes = {"openai": OpenAIEmbedder, "ollama": OllamaEmbedder}
        if kind not in classes or not model:
            raise QuireError(f"'{spec}' is not a remote embedder: write openai:MODEL or ollama:MODEL")
        self.network.check(base_url, f"the {kind} embedding endpoint")
        embedder = classes[kind](model, base_url=base_url, api_key=api_key, policy=self.network)
        self.remote_embedders[embedder.name] = embedder
        return embedder.name

    def choose_embedder(self, reference: str | int) -> tuple[str, str]:
        """The embedding model a book gets (by its language, among those available) and why."""
        book = self.book(reference)
        name, reason = choose_model(book.language, self.models.available())
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
        if name in CATALOG and not self.models.is_available(name):
            self.models.fetch(name, progress=download_progress, cancel=cancel)  # first use: download it
        position = self.annotations.position(book.id)
        return self.indexer.run(
            book.id,
            self.embedder(name),
            near_ordinal=position.ordinal if position else 0,
            progress=progress,
            cancel=cancel,
        )

    def index_status(self, reference: str | int) -> IndexStatus | None:
        """How far a book's indexing went (None: never started; keyword search works regardless)."""
        return self.indexer.status(self.book(reference).id)

    def search(
        self,
        reference: str | int | None,
        query: str,
        *,
        mode: str = "hybrid",
        k: int = 10,
        before: str | Locator | None = None,
        sections: tuple[int, int] | None = None,
    ) -> list[Passage]:
        """Passages for a query in a book (or the library); ``before`` is the spoiler bound, inclusive."""
        book_id = self.book(reference).id if reference is not None else None
        if book_id is not None:
            self.chunks.ensure_default(book_id)  # an import cut between its two steps left none
        max_ordinal = None
        if before is not None:
            if book_id is None:
                raise QuireError("a spoiler bound (before) needs a book")
            locator = parse_locator(before) if isinstance(before, str) else before
            max_ordinal = self.library.ordinal_of(book_id, locator)
        return self.retriever.search(query, book_id=book_id, mode=mode, k=k, max_ordinal=max_ordinal, sections=sections)

    def models_status(self) -> list[dict]:
        """The embedding models Quire knows, and whether each can run here now."""
        return [
            {"name": spec.name, "languages": list(spec.languages), "dimension": spec.dimension,
             "available": self.models.is_available(spec.name)}
            for spec in CATALOG.values()
        ]  # fmt: skip
