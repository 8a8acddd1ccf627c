"""The book tools the agent may call, grouped by purpose; every tool that reads book text stays before the bound.

Tools check their own preconditions and arguments and answer with short sentences the model can act on. Book
text reaches the model wrapped as untrusted data (``<book_text>``), never as instructions. Adding a tool is one
method with ``@tool(rule)`` in the module of its purpose; this module adapts them to LangChain in one place.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool

from core.agent.tools.citing import CitingTools
from core.agent.tools.library import LibraryTools
from core.agent.tools.reading import ReadingTools
from core.agent.tools.registry import ToolSpec, ToolState, specs
from core.agent.tools.searching import SearchingTools

GROUPS = (LibraryTools, ReadingTools, SearchingTools, CitingTools)
TOOLS: tuple[ToolSpec, ...] = specs(*GROUPS)  # every tool, once, in the order the model sees them


class ReadingSession(LibraryTools, ReadingTools, SearchingTools, CitingTools):
    """One conversation's tools over the open book (the state they share is in ``SessionBase``)."""

    def available_tools(self) -> set[str]:
        """The tools that make sense now (the middleware offers only these to the model)."""
        book_open = self.book_id is not None
        state = ToolState(book_open, book_open and self.indexed, bool(self.selection))
        return {spec.name for spec in TOOLS if spec.offered(state)}

    def tools(self) -> list[BaseTool]:
        """Every registered tool, as a LangChain tool (the middleware filters them per call).

        This is the one place tools meet LangChain; an artifact tool's value (cite's Citation) travels on its
        tool message, so the runner reads it from the result instead of polling the session.
        """
        tools: list[BaseTool] = []
        for spec in TOOLS:
            function = getattr(self, spec.name)
            tools.append(
                StructuredTool.from_function(
                    function,
                    name=spec.name,
                    description=function.__doc__,
                    response_format="content_and_artifact" if spec.artifact else "content",
                )
            )
        return tools


__all__ = ["TOOLS", "ReadingSession", "ToolSpec", "ToolState"]
