"""The reading agent: book tools bounded by the reader's position, verified citations, streamed events."""

from core.agent.citations import Citation, CitationError, find_quote, resolve_citation
from core.agent.offline import OfflineAnswer, answer_offline

__all__ = ["Citation", "CitationError", "OfflineAnswer", "answer_offline", "find_quote", "resolve_citation"]
