"""Agent middleware: offer only the tools that fit the moment, and stop a run that repeats itself."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse, hook_config
from langchain_core.messages import AIMessage, ToolMessage

from core.agent.prompt import dynamic_context
from core.agent.tools import ReadingSession


class ReadingContextMiddleware(AgentMiddleware):
    """Per model call: the tools available in this state, and the dynamic part of the system prompt."""

    def __init__(self, session: ReadingSession) -> None:
        super().__init__()
        self.session = session

    def _adjust(self, request: ModelRequest) -> ModelRequest:
        allowed = self.session.available_tools()
        tools = [t for t in request.tools if getattr(t, "name", None) in allowed]
        prompt = (request.system_prompt or "") + "\n\n" + dynamic_context(self.session, sorted(allowed))
        return request.override(tools=tools, system_prompt=prompt)  # type: ignore[call-arg]  # accepted at run time

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        return handler(self._adjust(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self._adjust(request))


def _signature(call: Mapping[str, Any]) -> str:
    return str(call["name"]) + json.dumps(call.get("args", {}), sort_keys=True, ensure_ascii=False)


class RepeatedCallGuard(AgentMiddleware):
    """Ends the run when the model asks for a tool call it already made with the same arguments."""

    def __init__(self) -> None:
        super().__init__()
        self.repeated: str | None = None

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: AgentState, runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        last = messages[-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return None
        earlier = {_signature(c) for m in messages[:-1] if isinstance(m, AIMessage) for c in m.tool_calls}
        repeats = [c for c in last.tool_calls if _signature(c) in earlier]
        if not repeats:
            return None
        self.repeated = repeats[0]["name"]
        note = AIMessage(content="I stopped here because I was about to repeat a search I had already made.")
        return {"messages": [note], "jump_to": "end"}

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: AgentState, runtime: Any) -> dict[str, Any] | None:
        return self.after_model(state, runtime)


class ToolTimeoutMiddleware(AgentMiddleware):
    """Gives each tool call a time limit; a slow tool answers with a sentence instead of hanging the run."""

    def __init__(self, seconds: float = 20.0) -> None:
        super().__init__()
        self.seconds = seconds
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="quire-tool")

    def _late(self, request: Any) -> ToolMessage:
        call = request.tool_call
        return ToolMessage(
            f"The tool {call['name']} took longer than {self.seconds:.0f} s and was stopped; try a narrower request.",
            tool_call_id=call["id"],
            name=call["name"],
            status="error",
        )

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        future = self.pool.submit(handler, request)
        try:
            return future.result(timeout=self.seconds)
        except FutureTimeout:
            return self._late(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            return await asyncio.wait_for(handler(request), timeout=self.seconds)
        except TimeoutError:
            return self._late(request)
