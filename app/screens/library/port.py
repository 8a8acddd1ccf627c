"""What the library's controller may use of the app: the narrow port, and opening books, the chat and indexing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.port import Port

if TYPE_CHECKING:
    from app.screens.chat.model import ChatViewModel
    from core import Locator


class LibraryChat(Protocol):
    """The chat as "Ask your library" uses it: the library's conversation, and copying an answer."""

    def conversation(self, book_id: int | None) -> ChatViewModel: ...
    async def copy(self, text: str) -> None: ...


class LibraryPort(Port, Protocol):
    """The app as the library screen sees it."""

    chat: LibraryChat

    @property
    def width(self) -> float: ...
    def open_book(self, book_id: int) -> None: ...
    def open_passage(self, book_id: int, first: Locator, last: Locator) -> None: ...
    def start_index(self, book_id: int | None = None) -> None: ...
