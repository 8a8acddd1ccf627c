"""The reading companion by book: X-Ray and the story so far, up to the furthest place read (or the whole book)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.agent.events import AgentEvent, fence_receipt, with_fence
from core.companion import corrections
from core.companion.corrections import Correction
from core.companion.names_zh import available as chinese_names_available
from core.companion.recap import RecapChapter, Recaps, recap_events
from core.companion.summaries import Summaries
from core.companion.xray import XrayEntry, added_entry, needs_scan, xray
from core.errors import QuireError
from core.library import Annotations, Library
from core.network_policy import NetworkPolicy
from core.secrets import SecretStore

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.agent.provider_config import ProviderConfig
    from core.companion.describe import Description


class Companion:
    """``quire.companion``: what the book has told the reader so far."""

    def __init__(self, library: Library, annotations: Annotations, network: NetworkPolicy) -> None:
        self._library = library
        self._annotations = annotations
        self._network = network
        self._recaps = Recaps(library)
        self._summaries = Summaries(library, self._recaps)

    def _fence(self, book: int, spoilers: bool) -> tuple[int, int | None]:
        """The book and the last place in reading order the companion may read: the furthest place read (-1:
        nothing read yet), or None with ``spoilers`` (the whole book)."""
        book = self._library.book_id(book)
        if spoilers:
            return book, None
        position = self._annotations.position(book)
        return book, position.furthest_ordinal if position is not None else -1

    def xray(self, book: int, *, spoilers: bool = False) -> list[XrayEntry]:
        """The people, places and terms named up to the furthest place read, most mentioned first."""
        return self._xray(*self._fence(book, spoilers))

    @property
    def finds_chinese_names(self) -> bool:
        """Whether X-Ray finds Chinese names on this device (a computer: jieba is not built for phones)."""
        return chinese_names_available()

    def reads_names(self, book: int) -> bool:
        """Whether X-Ray reads this book's names: English and Chinese, not yet Japanese (its paragraphs, written with
        kana, are skipped: the Chinese tagger took its words for names)."""
        language = str(self._library.book_value(self._library.book_id(book), "language") or "")
        return language.split("-")[0].lower() != "ja"

    def xray_needs_scan(self, book: int, *, spoilers: bool = False) -> bool:
        """Whether the next X-Ray must first find names in text read since the last (seconds for a Chinese novel:
        worth a progress note and a background thread)."""
        book, bound = self._fence(book, spoilers)
        return (bound is None or bound >= 0) and needs_scan(self._library, book, bound)

    def _xray(self, book: int, bound: int | None) -> list[XrayEntry]:
        """X-Ray up to ``bound`` as the reader corrected it (no name past the bound, added ones included)."""
        if bound is not None and bound < 0:
            return []
        said = corrections.corrections_of(self._library.conn, self._content_hash(book))
        found = xray(self._library, book, bound)
        return corrections.corrected(found, said, lambda name: added_entry(self._library, book, name, bound))

    def correct(
        self,
        book: int,
        name: str,
        *,
        hide: bool | None = None,
        into: str | None = None,
        rename: str | None = None,
        kind: str | None = None,
        add: bool | None = None,
    ) -> Correction:
        """Correct X-Ray on one name: hide its entry, merge it into ``into``'s, show it as ``rename``, give it a
        ``kind`` (person, place or term), or ``add`` it (a name X-Ray missed). What is not given stays as the reader
        said before. Kept for the book (through a new import of it) and synced to the reader's other devices;
        XrayCorrectionError when it cannot be kept."""
        book = self._library.book_id(book)
        content_hash = self._content_hash(book)
        with self._library.transaction() as tx:
            before = {corrections.key_of(c.name): c for c in corrections.corrections_of(tx, content_hash)}
            said = before.get(corrections.key_of(name), Correction(name))
            correction = corrections.checked(
                Correction(
                    name,
                    said.hide if hide is None else hide,
                    said.into if into is None else into,
                    said.rename if rename is None else rename,
                    said.kind if kind is None else kind,
                    said.add if add is None else add,
                )
            )
            corrections.keep(tx, content_hash, correction)
        return correction

    def corrections(self, book: int) -> list[Correction]:
        """What the reader has said of the book's X-Ray, one correction per name."""
        return corrections.corrections_of(self._library.conn, self._content_hash(self._library.book_id(book)))

    def forget_correction(self, book: int, name: str) -> bool:
        """Take back everything the reader said of a name (here and on the other devices); whether there was any."""
        book = self._library.book_id(book)
        with self._library.transaction() as tx:
            return corrections.forget(tx, self._content_hash(book), name)

    def _content_hash(self, book: int) -> str:
        return str(self._library.book_value(book, "content_hash"))

    def recap(self, book: int, *, spoilers: bool = False) -> list[RecapChapter]:
        """The story so far: each chapter read, in its own key sentences (the latest ones fuller), each cited."""
        book, bound = self._fence(book, spoilers)
        return [] if bound is not None and bound < 0 else self._recaps.recap(book, bound)

    def recap_events(
        self,
        book: int,
        *,
        spoilers: bool = False,
        model: BaseChatModel | None = None,
        model_key: str = "",
    ) -> Iterator[AgentEvent]:
        """The story so far as an answer's events (text, citations, done), as ``quire ask`` streams them: each
        chapter's key sentences offline, or with ``model`` each chapter summarised by it from those sentences (kept
        under ``model_key``); provider failures propagate from the iterator."""
        book, bound = self._fence(book, spoilers)
        receipt = None if spoilers else fence_receipt(self._annotations.position(book))
        if model is not None:
            return with_fence(self._summaries.events(book, bound, model, model_key), receipt)
        started = bound is None or bound >= 0
        return with_fence(recap_events(self._recaps.recap(book, bound) if started else [], started), receipt)

    def describe(
        self,
        book: int,
        provider: ProviderConfig | None = None,
        *,
        secrets: SecretStore | None = None,
        model: BaseChatModel | None = None,
        spoilers: bool = False,
    ) -> dict[str, Description]:
        """One line per X-Ray entry by the AI provider (or ``model``), from the sentences before the place only,
        each citing them; ProviderError or LocalOnlyError when the provider cannot be asked."""
        from core.agent.providers import make_chat_model
        from core.companion.describe import describe

        book, bound = self._fence(book, spoilers)
        entries = self._xray(book, bound)
        if not entries:
            return {}
        if model is None:
            if provider is None:
                raise QuireError("describing the names needs an AI provider: set one up in Settings")
            model = make_chat_model(provider, secrets, self._network)
        return describe(self._library, book, entries, model)
