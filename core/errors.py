"""The errors Quire raises, one tree so callers can catch what they can handle.

    QuireError                     any failure a user can act on
    ├── BookFormatError            a file that cannot be read as a book
    │   └── DrmProtectedError      the book is encrypted with DRM
    ├── BookNotFoundError          no book in the library matches a reference
    ├── LocatorError               a locator string or position that is not valid
    ├── LibraryError               the library database or folder cannot be used
    ├── IndexCancelled             indexing was stopped by the user (resumable)
    ├── EmbeddingError             an embedding model could not produce vectors
    │   ├── ModelUnavailableError  the model is not installed and cannot be downloaded now
    │   └── EmbeddingProviderError a remote embedding endpoint failed (also a ProviderError)
    ├── ProviderError              a remote AI endpoint, chat or embedding, refused or failed
    │   ├── ProviderUnreachable    it could not be reached at all (the offline answer stands in)
    │   └── StreamCut              a streamed answer ended before the provider said it was done
    ├── LocalOnlyError             local-only mode refused to contact another computer
    ├── CitationError              a quote is not in the passage it names
    ├── SecretStoreError           the OS keyring or secure storage cannot be read or written
    ├── SyncError                  a sync did not finish (the next one goes on from where it stopped)
    │   ├── SyncUnavailable        the sync folder or server cannot be reached now
    │   │   └── SyncFolderMissing  the sync folder is not there (setup creates it when asked)
    │   ├── SyncRefused            the server refused the user name or password
    │   ├── SyncStorageFull        the folder or server has no room left
    │   └── SyncFileTooLarge       a file in the sync folder is larger than Quire writes there
    ├── CatalogError               an OPDS catalog or a KOReader sync server could not be used
    │   ├── CatalogRefused         it refused the user name or password (or asked for one)
    │   └── KosyncError            the KOReader sync server (its own words in the app)
    │       └── KosyncRefused      it refused the user name or password
    ├── VaultFolderMissing         the vault's folder is not there (created only when asked)
    ├── XrayCorrectionError        a correction to X-Ray that cannot be kept (no name, an unknown kind)
    └── ReadwiseError              Readwise could not take the highlights now (those sent stay sent)
        └── ReadwiseRefused        it refused the access token, or none is set up

Messages are written for people, for every client (the app, the command line): they say what went wrong and
what to do next in words that fit both; a client adds its own hints (the CLI names its commands).
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


class ProviderError(QuireError):
    """A remote chat or embedding endpoint answered with an error or not at all."""


class ProviderUnreachable(ProviderError):
    """The AI provider could not be reached at all (no connection, nothing listening): the offline answer stands in."""


class EmbeddingProviderError(ProviderError, EmbeddingError):
    """A remote embedding endpoint failed: a provider's failure that stops indexing like a model's would."""


class StreamCut(ProviderError):
    """A provider's stream ended without saying it had finished."""


class LocalOnlyError(QuireError):
    """A remote endpoint was asked for while local-only mode is on."""


class CitationError(QuireError):
    """A quote could not be found in the passage it names; the message tells the model what to do."""


class IndexCancelled(QuireError):
    """Indexing was cancelled; what was committed stays, and the next run resumes."""


class SecretStoreError(QuireError):
    """The OS keyring or secure storage could not be read or written (none installed, or locked)."""


class SyncError(QuireError):
    """Sync could not finish; what was already saved here stays, and the next sync picks up where this one was."""


class SyncUnavailable(SyncError):
    """The sync folder or server cannot be reached now (unplugged, offline, down, too slow)."""


class SyncFolderMissing(SyncUnavailable):
    """The sync folder is not there (on the server, or on this computer): setting up can create it, when asked."""


class SyncRefused(SyncError):
    """The sync server refused the user name or password."""


class SyncStorageFull(SyncError):
    """The sync folder or server has no room left."""


class SyncFileTooLarge(SyncError):
    """A file in the sync folder is larger than Quire ever writes there: it is left unread."""


class CatalogError(QuireError):
    """An OPDS catalog or a KOReader sync server could not be reached or read, or sent something that is not
    what it should be; nothing in the library changed."""


class CatalogRefused(CatalogError):
    """The catalog or server refused the user name or password, or asked for a login none was given for."""


class KosyncError(CatalogError):
    """A KOReader sync server could not be used: not set up, not reachable, or answering with something else."""


class KosyncRefused(KosyncError, CatalogRefused):
    """The KOReader sync server refused the user name or password."""


class VaultFolderMissing(QuireError):
    """The Obsidian vault's folder is not there (an export creates it only when asked: a typo made folders)."""


class XrayCorrectionError(QuireError):
    """A correction to X-Ray that cannot be kept: no name, a kind that is not person, place or term, a name merged
    into itself."""


class ReadwiseError(QuireError):
    """Readwise could not be reached, asked Quire to wait longer than it does, or answered with something else than
    its API's reply; the highlights sent before stay recorded as sent, the rest are sent next time."""


class ReadwiseRefused(ReadwiseError):
    """Readwise refused the access token (HTTP 401 or 403): a new one comes from readwise.io/access_token."""
