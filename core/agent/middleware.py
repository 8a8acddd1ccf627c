"""Agent middleware: offer only the tools that fit the moment, and stop a run that repeats itself."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse, hook_config
from langchain_core.messages import AIMessage

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
        return request.override(tools=tools, system_prompt=prompt)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        return handler(self._adjust(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self._adjust(request))


def _signature(call: dict) -> str:
    return call["name"] + json.dumps(call.get("args", {}), sort_keys=True, ensure_ascii=False)


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
