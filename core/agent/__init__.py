"""The reading agent: book tools bounded by the reader's position, verified citations, streamed events."""

from core.agent.citations import Citation, find_quote, resolve_citation
from core.agent.offline import OfflineAnswer, answer_offline
from core.errors import CitationError

__all__ = ["Citation", "CitationError", "OfflineAnswer", "answer_offline", "find_quote", "resolve_citation"]
