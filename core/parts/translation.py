"""Translation by book: a paragraph into the reader's language through the AI provider, kept once translated."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.books.locator import Locator, parse_locator
from core.errors import QuireError
from core.library import Annotations, Library, text_reads
from core.network_policy import NetworkPolicy
from core.secrets import SecretStore
from core.translation.store import keep, kept
from core.translation.translate import default_target, translate

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.agent.provider_config import ProviderConfig


class Translation:
    """``quire.translation``: paragraphs translated by the AI provider (or ``model``), kept per language and model."""

    def __init__(self, library: Library, annotations: Annotations, network: NetworkPolicy) -> None:
        self._library = library
        self._annotations = annotations
        self._network = network

    def target(self, book: int, ui_language: str) -> str:
        """The language a book's paragraphs go into by default: the UI's, or English for a book already in it."""
        return default_target(self._library.get(book).language, ui_language)

    def paragraph(
        self,
        book: int,
        locator: str | Locator,
        to: str,
        provider: ProviderConfig | None = None,
        secrets: SecretStore | None = None,
        *,
        model: BaseChatModel | None = None,
        on_text: Callable[[str], object] | None = None,
        stop: threading.Event | None = None,
    ) -> str:
        """The paragraph at ``locator`` in language ``to``: kept from before, or asked of the provider (sent the
        paragraph only; in local-only mode only a provider on this computer). ProviderError, LocalOnlyError.

        ``on_text`` is told the translation so far as it comes; ``stop``, once set, ends it there: what came is
        returned, and not kept (a translation cut short is asked for whole the next time)."""
        from core.agent.providers import make_chat_model

        book = self._library.book_id(book)
        place = parse_locator(locator) if isinstance(locator, str) else locator
        ordinal, _ = self._annotations.place(book, place)
        text = text_reads.texts_at(self._library.conn, book, [ordinal]).get(ordinal)
        if text is None or not text.strip():
            raise QuireError(f"there is no text to translate at {place}")
        if provider is not None:
            key = provider.model
        elif model is not None:
            key = type(model).__name__
        else:
            raise QuireError("translating needs an AI provider: set one up in Settings")
        found = kept(self._library, book, ordinal, to, key)
        if found is not None:
            return found
        if model is None:
            assert provider is not None  # one of the two, checked above
            model = make_chat_model(provider, secrets, self._network)
        translated = translate(model, text, to, on_text, stop)
        if translated and not (stop is not None and stop.is_set()):
            keep(self._library, book, ordinal, to, key, translated)
        return translated
