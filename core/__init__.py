"""Quire's UI-free core, and its one public face: what the app, the CLI and main.py import (``from core import …``).

The names load lazily (PEP 562), so ``from core import Quire`` costs what it did, and a module inside core never
imports from here (it names the module it needs): that keeps the package free of import circles. The architecture
test holds the clients to this list.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers: "name as name" re-exports each (the runtime loads them lazily, below)
    from core import errors as errors
    from core.agent.citations import Citation as Citation
    from core.agent.events import (
        NOTICES as NOTICES,
        AgentEvent as AgentEvent,
        CitationEvent as CitationEvent,
        Done as Done,
        ErrorEvent as ErrorEvent,
        TextDelta as TextDelta,
        ThreadEvent as ThreadEvent,
        ToolCallReady as ToolCallReady,
    )
    from core.agent.message import Message as Message, MessageFold as MessageFold, Part as Part
    from core.agent.provider_config import (
        DEFAULT_BASE_URLS as DEFAULT_BASE_URLS,
        PROVIDERS as PROVIDERS,
        ProviderConfig as ProviderConfig,
        secret_name as secret_name,
        secret_names as secret_names,
        store_key as store_key,
        stored_key as stored_key,
    )
    from core.agent.safe_markdown import without_remote_images as without_remote_images
    from core.agent.threads_store import ThreadInfo as ThreadInfo
    from core.books.formats import (
        SUPPORTED as SUPPORTED,
        content_hash as content_hash,
        formats_in_words as formats_in_words,
    )
    from core.books.locator import Locator as Locator, parse_locator as parse_locator
    from core.books.model import ReadProgress as ReadProgress
    from core.books.textutil import is_cjk as is_cjk, safe_file_name as safe_file_name
    from core.companion.corrections import XRAY_KINDS as XRAY_KINDS, Correction as Correction
    from core.companion.describe import Description as Description
    from core.companion.xray import XrayEntry as XrayEntry
    from core.dictionary.store import (
        Definition as Definition,
        DictionaryInfo as DictionaryInfo,
        VocabularyWord as VocabularyWord,
        sentence_around as sentence_around,
    )
    from core.errors import (
        BookFormatError as BookFormatError,
        BookNotFoundError as BookNotFoundError,
        CatalogError as CatalogError,
        CatalogRefused as CatalogRefused,
        CitationError as CitationError,
        DrmProtectedError as DrmProtectedError,
        EmbeddingError as EmbeddingError,
        EmbeddingProviderError as EmbeddingProviderError,
        IndexCancelled as IndexCancelled,
        KosyncError as KosyncError,
        KosyncRefused as KosyncRefused,
        LibraryError as LibraryError,
        LocalOnlyError as LocalOnlyError,
        LocatorError as LocatorError,
        ModelUnavailableError as ModelUnavailableError,
        ProviderError as ProviderError,
        ProviderUnreachable as ProviderUnreachable,
        QuireError as QuireError,
        ReadwiseError as ReadwiseError,
        ReadwiseRefused as ReadwiseRefused,
        SecretStoreError as SecretStoreError,
        StreamCut as StreamCut,
        SyncError as SyncError,
        SyncFileTooLarge as SyncFileTooLarge,
        SyncFolderMissing as SyncFolderMissing,
        SyncRefused as SyncRefused,
        SyncStorageFull as SyncStorageFull,
        SyncUnavailable as SyncUnavailable,
        VaultFolderMissing as VaultFolderMissing,
        XrayCorrectionError as XrayCorrectionError,
    )
    from core.library import (
        HIGHLIGHT_COLORS as HIGHLIGHT_COLORS,
        BookId as BookId,
        Bookmark as Bookmark,
        BookRecord as BookRecord,
        Highlight as Highlight,
        Position as Position,
        ReadingTracker as ReadingTracker,
        SearchHit as SearchHit,
        SegmentRecord as SegmentRecord,
        TocRow as TocRow,
        slices as slices,
    )
    from core.library.imports import ImportResult as ImportResult
    from core.library.shelf import SHELF_SORTS as SHELF_SORTS, ShelfBook as ShelfBook, ShelfPage as ShelfPage
    from core.library.stats import BookStats as BookStats, StatsReport as StatsReport
    from core.network_policy import is_local_host as is_local_host
    from core.opds.feed import OpdsEntry as OpdsEntry, OpdsFeed as OpdsFeed
    from core.parts.catalogs import CatalogInfo as CatalogInfo
    from core.parts.models import ModelInfo as ModelInfo
    from core.parts.open_book import OpenBook as OpenBook
    from core.quotes import balanced as balanced, quoted as quoted
    from core.rag import MODES as MODES, IndexStatus as IndexStatus
    from core.rag.remote import REMOTE_EMBEDDERS as REMOTE_EMBEDDERS
    from core.secrets import SecretStore as SecretStore
    from core.services import Quire as Quire, default_library_dir as default_library_dir
    from core.speech.session import ReadAloud as ReadAloud, SpokenSentence as SpokenSentence
    from core.speech.speakers import Speaker as Speaker, VoiceChoice as VoiceChoice, system_speaker as system_speaker
    from core.speech.voice import DEFAULT_SPEECH_RATE as DEFAULT_SPEECH_RATE, VoiceUnavailable as VoiceUnavailable
    from core.sync.engine import SyncReport as SyncReport, SyncStatus as SyncStatus

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
    "ThreadInfo": "core.agent.threads_store",
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
__all__ = sorted(_WHERE)  # the face: each name once, with the module that defines it


def __getattr__(name: str) -> Any:
    """Load a public name from the module that defines it, on first use (then it is a plain attribute)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'core' has no attribute {name!r} (its public names are core.__all__)")
    module = importlib.import_module(_WHERE[name])
    value = module if name == "errors" else getattr(module, name)
    globals()[name] = value
    return value
