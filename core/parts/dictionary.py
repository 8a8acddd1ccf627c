"""The reader's dictionaries by book: import, look up offline (lemmas, Chinese words), and each book's vocabulary."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.dictionary.store import Definition, Dictionaries, DictionaryInfo, VocabularyWord
from core.library import Library
from core.network_policy import NetworkPolicy
from core.secrets import SecretStore

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.agent.provider_config import ProviderConfig


class Dictionary:
    """``quire.dictionary``: the dictionaries imported into this library, and the words looked up in each book."""

    def __init__(self, library: Library, network: NetworkPolicy) -> None:
        self._library = library
        self._network = network
        self._store = Dictionaries(library)

    def add(self, path: Path | str) -> DictionaryInfo:
        """Import a StarDict, dictd or CC-CEDICT dictionary (any of its files, or its folder)."""
        return self._store.add(Path(path))

    def all(self) -> list[DictionaryInfo]:
        """The dictionaries imported, in the order their articles are shown."""
        return self._store.all()

    def remove(self, number: int) -> None:
        self._store.remove(number)

    def define(self, text: str, book: int | None = None) -> list[Definition]:
        """The articles for a word, looked up as written, then as its lemma in the book's language (English when
        no book is named); Chinese by the longest word the text starts with."""
        language = self._library.get(book).language if book is not None else ""
        return self._store.define(text, language)

    def explain(
        self,
        word: str,
        sentence: str,
        provider: ProviderConfig | None = None,
        secrets: SecretStore | None = None,
        *,
        model: BaseChatModel | None = None,
    ) -> str:
        """ "Explain in this context": the AI provider (or ``model``) is sent the word and its sentence, nothing more
        of the book. ProviderError or LocalOnlyError when it cannot be asked."""
        from core.agent.providers import make_chat_model
        from core.dictionary.explain import explain
        from core.errors import QuireError

        if model is None:
            if provider is None:
                raise QuireError("explaining a word needs an AI provider: set one up in Settings")
            model = make_chat_model(provider, secrets, self._network)
        return explain(model, word, sentence)

    def keep(self, book: int, word: str, locator: str, sentence: str, definition: str) -> None:
        """Add a looked-up word to the book's vocabulary list, with the sentence it was read in."""
        self._store.keep(self._library.book_id(book), word, locator, sentence, definition)

    def vocabulary(self, book: int) -> list[VocabularyWord]:
        """The book's vocabulary list, oldest first."""
        return self._store.vocabulary(self._library.book_id(book))

    def forget(self, book: int, word: str) -> None:
        self._store.forget(self._library.book_id(book), word)

    def export_vocabulary(self, book: int) -> str:
        """The book's vocabulary list as Markdown: each word, its definition's first line and its sentence."""
        record = self._library.get(book)
        lines = [f"# Vocabulary: {record.title}", ""]
        for entry in self._store.vocabulary(record.id):
            first = entry.definition.strip().splitlines()[0] if entry.definition.strip() else ""
            lines.append(f"- **{entry.word}**: {first}")
            if entry.sentence:
                lines.append(f"  > {' '.join(entry.sentence.split())}")
        return "\n".join(lines) + "\n"
