"""The reading agent: citations checked against the book, spoiler-safe answers, and (next) the LLM loop."""

from core.agent.citations import Citation, CitationError, find_quote, resolve_citation
from core.agent.offline import OfflineAnswer, answer_offline

__all__ = ["Citation", "CitationError", "OfflineAnswer", "answer_offline", "find_quote", "resolve_citation"]
