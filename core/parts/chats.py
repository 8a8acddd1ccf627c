"""Conversations about a book or the library: their list, messages, titles, and trying a provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.library import Library
from core.network_policy import NetworkPolicy
from core.secrets import SecretStore

if TYPE_CHECKING:  # the agent's modules load LangChain: imported when the first chat is opened
    from core.agent.message import Message
    from core.agent.provider_config import ProviderConfig
    from core.agent.threads_store import ChatStore, ThreadInfo


class Chats:
    """``quire.chats``: the stored conversations (asking is ``Quire.ask``)."""

    def __init__(self, library: Library, network: NetworkPolicy) -> None:
        self._library = library
        self._network = network
        self._store: ChatStore | None = None

    def store(self) -> ChatStore:
        """The conversations' store (LangChain loads with the first chat, not with the library)."""
        from core.agent.threads_store import ChatStore

        if self._store is None:
            self._store = ChatStore(self._library)
        return self._store

    def threads(self, book: int | None) -> list[ThreadInfo]:
        """The conversations about a book (None: about the library), most recent first."""
        book_id = self._library.book_id(book) if book is not None else None
        return self.store().threads(book_id)

    def messages(self, thread_id: int) -> list[Message]:
        """A conversation's messages, each as its stored parts in the order they streamed."""
        return self.store().messages(thread_id)

    def rename(self, thread_id: int, title: str) -> None:
        """Give a conversation a new title."""
        self.store().rename(thread_id, title)

    def delete(self, thread_id: int) -> None:
        """Remove a conversation and its messages."""
        self.store().delete(thread_id)

    def drop_last_exchange(self, thread_id: int) -> str | None:
        """Remove a conversation's last question and answer (to ask again); the question, or None."""
        return self.store().drop_last_exchange(thread_id)

    def check_provider(self, config: ProviderConfig, secrets: SecretStore | None = None) -> str:
        """Try an AI provider's endpoint: a one-line success message, or ProviderError / LocalOnlyError."""
        from core.agent.connection import check_connection

        return check_connection(config, secrets, self._network)
