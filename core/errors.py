"""The errors Quire raises, one tree so callers can catch what they can handle.

    QuireError                 any failure a user can act on
    ├── BookFormatError        a file that cannot be read as a book
    │   └── DrmProtectedError  the book is encrypted with DRM
    ├── BookNotFoundError      no book in the library matches a reference
    ├── LocatorError           a locator string or position that is not valid
    ├── LibraryError           the library database or folder cannot be used
    ├── EmbeddingError         an embedding model could not produce vectors
    │   ├── ModelUnavailableError  the model is not installed and cannot be downloaded now
    │   └── ProviderError      a remote endpoint refused or failed (auth, unknown model, rate limit)
    └── IndexCancelled         indexing was stopped by the user (resumable)

Messages are written for people: they say what went wrong and what to do next.
"""

from __future__ import annotations


class QuireError(Exception):
    """Base of every error Quire reports to a user."""


class BookFormatError(QuireError):
    """The file is not a book Quire can open (corrupt, unsupported or hostile)."""


class DrmProtectedError(BookFormatError):
    """The book's content is encrypted with DRM, so its text cannot be read."""


class BookNotFoundError(QuireError):
    """No book in the library matches the given id, hash or title."""


class LocatorError(QuireError):
    """A locator is malformed or points outside the book."""


class LibraryError(QuireError):
    """The library database or its folder cannot be opened or written."""


class EmbeddingError(QuireError):
    """An embedding model failed to turn text into vectors."""


class ModelUnavailableError(EmbeddingError):
    """The model's files are not on this device and cannot be fetched now."""


class ProviderError(EmbeddingError):
    """A remote embedding or chat endpoint answered with an error or not at all."""


class IndexCancelled(QuireError):
    """Indexing was cancelled; what was committed stays, and the next run resumes."""
