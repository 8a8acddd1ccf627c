"""Quire's UI-free core, and its one public face: what the app, the CLI and main.py import (``from core import …``).

The names load lazily (PEP 562), so ``from core import Quire`` costs what it did, and a module inside core never
imports from here (it names the module it needs): that keeps the package free of import circles. The architecture
test holds the clients to this list.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core import errors
    from core.agent.citations import Citation
    from core.agent.events import (
        NOTICES,
        AgentEvent,
        CitationEvent,
        Done,
        ErrorEvent,
        TextDelta,
        ThreadEvent,
        ToolCallReady,
    )
    from core.agent.message import Message, MessageFold, Part
    from core.agent.provider_config import (
        DEFAULT_BASE_URLS,
        PROVIDERS,
        ProviderConfig,
        secret_name,
        secret_names,
        store_key,
        stored_key,
    )
    from core.agent.safe_markdown import without_remote_images
    from core.agent.threads import ThreadInfo
    from core.books.formats import SUPPORTED, content_hash, formats_in_words
    from core.books.locator import Locator, parse_locator
    from core.books.model import ReadProgress
    from core.books.textutil import is_cjk, safe_file_name
    from core.companion.corrections import XRAY_KINDS, Correction
    from core.companion.describe import Description
    from core.companion.xray import XrayEntry
    from core.dictionary.store import Definition, DictionaryInfo, VocabularyWord, sentence_around
    from core.errors import (
        BookFormatError,
        BookNotFoundError,
        CatalogError,
        CatalogRefused,
        CitationError,
        DrmProtectedError,
        EmbeddingError,
        EmbeddingProviderError,
        IndexCancelled,
        KosyncError,
        KosyncRefused,
        LibraryError,
        LocalOnlyError,
        LocatorError,
        ModelUnavailableError,
        ProviderError,
        ProviderUnreachable,
        QuireError,
        ReadwiseError,
        ReadwiseRefused,
        SecretStoreError,
        StreamCut,
        SyncError,
        SyncFileTooLarge,
        SyncFolderMissing,
        SyncRefused,
        SyncStorageFull,
        SyncUnavailable,
        VaultFolderMissing,
        XrayCorrectionError,
    )
    from core.library import (
        HIGHLIGHT_COLORS,
        BookId,
        Bookmark,
        BookRecord,
        Highlight,
        Position,
        ReadingTracker,
        SearchHit,
        SegmentRecord,
        TocRow,
        slices,
    )
    from core.library.imports import ImportResult
    from core.library.shelf import SHELF_SORTS, ShelfBook, ShelfPage
    from core.library.stats import BookStats, StatsReport
    from core.network_policy import is_local_host
    from core.opds.feed import OpdsEntry, OpdsFeed
    from core.parts.catalogs import CatalogInfo
    from core.parts.models import ModelInfo
    from core.parts.open_book import OpenBook
    from core.quotes import balanced, quoted
    from core.rag import MODES, IndexStatus
    from core.rag.remote import REMOTE_EMBEDDERS
    from core.secrets import SecretStore
    from core.services import Quire, default_library_dir
    from core.speech.session import ReadAloud, SpokenSentence
    from core.speech.speakers import Speaker, VoiceChoice, system_speaker
    from core.speech.voice import DEFAULT_SPEECH_RATE, VoiceUnavailable
    from core.sync.engine import SyncReport, SyncStatus

_WHERE: dict[str, str] = {
    "AgentEvent": "core.agent.events",
    "BookFormatError": "core.errors",
    "BookId": "core.library",
    "Bookmark": "core.library",
    "BookNotFoundError": "core.errors",
    "BookRecord": "core.library",
    "Citation": "core.agent.citations",
    "CitationError": "core.errors",
    "CitationEvent": "core.agent.events",
    "content_hash": "core.books.formats",
    "DEFAULT_BASE_URLS": "core.agent.provider_config",
    "default_library_dir": "core.services",
    "Done": "core.agent.events",
    "DrmProtectedError": "core.errors",
    "EmbeddingError": "core.errors",
    "EmbeddingProviderError": "core.errors",
    "ErrorEvent": "core.agent.events",
    "NOTICES": "core.agent.events",
    "ProviderUnreachable": "core.errors",
    "formats_in_words": "core.books.formats",
    "Highlight": "core.library",
    "HIGHLIGHT_COLORS": "core.library",
    "ImportResult": "core.library.imports",
    "IndexCancelled": "core.errors",
    "IndexStatus": "core.rag",
    "is_cjk": "core.books.textutil",
    "is_local_host": "core.network_policy",
    "LibraryError": "core.errors",
    "LocalOnlyError": "core.errors",
    "Locator": "core.books.locator",
    "LocatorError": "core.errors",
    "Message": "core.agent.message",
    "MessageFold": "core.agent.message",
    "ModelUnavailableError": "core.errors",
    "OpenBook": "core.parts.open_book",
    "MODES": "core.rag",
    "parse_locator": "core.books.locator",
    "Part": "core.agent.message",
    "Position": "core.library",
    "ProviderConfig": "core.agent.provider_config",
    "ProviderError": "core.errors",
    "PROVIDERS": "core.agent.provider_config",
    "Quire": "core.services",
    "QuireError": "core.errors",
    "ReadingTracker": "core.library",
    "ReadProgress": "core.books.model",
    "REMOTE_EMBEDDERS": "core.rag.remote",
    "SearchHit": "core.library",
    "SHELF_SORTS": "core.library.shelf",
    "ShelfBook": "core.library.shelf",
    "ShelfPage": "core.library.shelf",
    "secret_name": "core.agent.provider_config",
    "secret_names": "core.agent.provider_config",
    "SecretStore": "core.secrets",
    "SecretStoreError": "core.errors",
    "SegmentRecord": "core.library",
    "slices": "core.library",
    "store_key": "core.agent.provider_config",
    "stored_key": "core.agent.provider_config",
    "StreamCut": "core.errors",
    "SUPPORTED": "core.books.formats",
    "SyncError": "core.errors",
    "SyncReport": "core.sync.engine",
    "SyncStatus": "core.sync.engine",
    "ThreadInfo": "core.agent.threads",
    "XrayEntry": "core.companion.xray",
    "Correction": "core.companion.corrections",
    "XRAY_KINDS": "core.companion.corrections",
    "XrayCorrectionError": "core.errors",
    "Definition": "core.dictionary.store",
    "DictionaryInfo": "core.dictionary.store",
    "VocabularyWord": "core.dictionary.store",
    "sentence_around": "core.dictionary.store",
    "StatsReport": "core.library.stats",
    "SpokenSentence": "core.speech.session",
    "VoiceUnavailable": "core.speech.voice",
    "CatalogError": "core.errors",
    "CatalogRefused": "core.errors",
    "KosyncError": "core.errors",
    "KosyncRefused": "core.errors",
    "VaultFolderMissing": "core.errors",
    "ReadwiseError": "core.errors",
    "ReadwiseRefused": "core.errors",
    "CatalogInfo": "core.parts.catalogs",
    "OpdsEntry": "core.opds.feed",
    "OpdsFeed": "core.opds.feed",
    "ReadAloud": "core.speech.session",
    "Speaker": "core.speech.speakers",
    "VoiceChoice": "core.speech.speakers",
    "system_speaker": "core.speech.speakers",
    "safe_file_name": "core.books.textutil",
    "DEFAULT_SPEECH_RATE": "core.speech.voice",
    "BookStats": "core.library.stats",
    "Description": "core.companion.describe",
    "ModelInfo": "core.parts.models",
    "SyncFileTooLarge": "core.errors",
    "SyncRefused": "core.errors",
    "SyncStorageFull": "core.errors",
    "SyncUnavailable": "core.errors",
    "SyncFolderMissing": "core.errors",
    "TextDelta": "core.agent.events",
    "ThreadEvent": "core.agent.events",
    "TocRow": "core.library",
    "ToolCallReady": "core.agent.events",
    "without_remote_images": "core.agent.safe_markdown",
    "quoted": "core.quotes",
    "balanced": "core.quotes",
    "errors": "core.errors",  # the module itself: the error tree, looked up by name
}
__all__ = [
    "DEFAULT_BASE_URLS",
    "DEFAULT_SPEECH_RATE",
    "HIGHLIGHT_COLORS",
    "MODES",
    "NOTICES",
    "PROVIDERS",
    "REMOTE_EMBEDDERS",
    "SHELF_SORTS",
    "SUPPORTED",
    "XRAY_KINDS",
    "AgentEvent",
    "BookFormatError",
    "BookId",
    "BookNotFoundError",
    "BookRecord",
    "BookStats",
    "Bookmark",
    "CatalogError",
    "CatalogInfo",
    "CatalogRefused",
    "Citation",
    "CitationError",
    "CitationEvent",
    "Correction",
    "Definition",
    "Description",
    "DictionaryInfo",
    "Done",
    "DrmProtectedError",
    "EmbeddingError",
    "EmbeddingProviderError",
    "ErrorEvent",
    "Highlight",
    "ImportResult",
    "IndexCancelled",
    "IndexStatus",
    "KosyncError",
    "KosyncRefused",
    "LibraryError",
    "LocalOnlyError",
    "Locator",
    "LocatorError",
    "Message",
    "MessageFold",
    "ModelInfo",
    "ModelUnavailableError",
    "OpdsEntry",
    "OpdsFeed",
    "OpenBook",
    "Part",
    "Position",
    "ProviderConfig",
    "ProviderError",
    "ProviderUnreachable",
    "Quire",
    "QuireError",
    "ReadAloud",
    "ReadProgress",
    "ReadingTracker",
    "ReadwiseError",
    "ReadwiseRefused",
    "SearchHit",
    "SecretStore",
    "SecretStoreError",
    "SegmentRecord",
    "ShelfBook",
    "ShelfPage",
    "Speaker",
    "SpokenSentence",
    "StatsReport",
    "StreamCut",
    "SyncError",
    "SyncFileTooLarge",
    "SyncFolderMissing",
    "SyncRefused",
    "SyncReport",
    "SyncStatus",
    "SyncStorageFull",
    "SyncUnavailable",
    "TextDelta",
    "ThreadEvent",
    "ThreadInfo",
    "TocRow",
    "ToolCallReady",
    "VaultFolderMissing",
    "VocabularyWord",
    "VoiceChoice",
    "VoiceUnavailable",
    "XrayCorrectionError",
    "XrayEntry",
    "balanced",
    "content_hash",
    "default_library_dir",
    "errors",
    "formats_in_words",
    "is_cjk",
    "is_local_host",
    "parse_locator",
    "quoted",
    "safe_file_name",
    "secret_name",
    "secret_names",
    "sentence_around",
    "slices",
    "store_key",
    "stored_key",
    "system_speaker",
    "without_remote_images",
]


def __getattr__(name: str) -> Any:
    """Load a public name from the module that defines it, on first use (then it is a plain attribute)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'core' has no attribute {name!r} (its public names are core.__all__)")
    module = importlib.import_module(_WHERE[name])
    value = module if name == "errors" else getattr(module, name)
    globals()[name] = value
    return value
