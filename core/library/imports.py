"""What one file's import gave: the book (new, or already in the library) or a typed error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import QuireError
from core.library.records import BookRecord


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
