"""The tool that cites: a few exact words from a numbered passage, checked against the book."""

from __future__ import annotations

from core.agent.citations import Citation
from core.agent.tools.base import SessionBase
from core.agent.tools.registry import always, tool
from core.errors import CitationError


class CitingTools(SessionBase):
    purpose = "citing"

    @tool(always, artifact=True)  # a library search numbers passages too
    def cite(self, passage: int, quote: str) -> tuple[str, Citation | None]:
        """Cite a few exact words from a numbered passage; Quire checks them against the book."""
        if passage not in self.passages:
            return f"There is no passage [{passage}]: search first, then cite a number from the results.", None
        try:
            citation = self.quire.text.verify_quote(self.passages[passage], passage, quote)
        except CitationError as error:
            return f"Citation refused: {error}.", None
        return f"Citation [{passage}] verified at {citation.start}.", citation  # the citation rides with the result
