"""Chat model providers: OpenAI and compatible endpoints, DeepSeek, Anthropic, Ollama; and their errors.

API keys come only from the platform's secret store (or an environment variable for the CLI), never
from settings files, logs or error messages.
"""

from __future__ import annotations

from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from core.agent.provider_config import (  # noqa: F401 - re-exported: the settings live in a light module
    DEFAULT_BASE_URLS,
    ENV_KEYS,
    PROVIDERS,
    ProviderConfig,
    api_key,
)
from core.errors import ProviderError


def make_chat_model(config: ProviderConfig, secrets: Any | None = None) -> BaseChatModel:
    """A LangChain chat model for the provider, streaming, with retries for transient errors."""
    if config.kind not in PROVIDERS:
        raise ProviderError(f"unknown provider '{config.kind}': choose one of {', '.join(PROVIDERS)}")
    key = api_key(config, secrets)
    if config.kind in ("openai", "deepseek", "anthropic") and not key:
        raise ProviderError(f"no API key for {config.kind}: add one in Settings (or set {ENV_KEYS[config.kind]})")
    common = {"model": config.model, "temperature": config.temperature, "max_tokens": config.max_tokens,
              "timeout": config.timeout, "max_retries": config.max_retries}  # fmt: skip
    if config.kind == "deepseek":
        return DeepSeekWithReasoning(api_key=key, api_base=config.url, **common)
    if config.kind == "anthropic":
        try:
            from langchain_anthropic import ChatAnthropic
        except ImportError as error:
            raise ProviderError("the Anthropic provider needs the langchain-anthropic package") from error
        if config.thinking_tokens:  # extended thinking needs temperature 1 and room beyond the budget
            common.update(temperature=1.0, max_tokens=max(config.max_tokens, config.thinking_tokens + 1024))
            common["thinking"] = {"type": "enabled", "budget_tokens": config.thinking_tokens}
        return ChatAnthropic(api_key=key, base_url=config.url, **common)
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(api_key=key or "not-needed", base_url=config.url, stream_usage=True, **common)


def _deepseek_class() -> type:
    from langchain_deepseek import ChatDeepSeek

    class _DeepSeek(ChatDeepSeek):
        """ChatDeepSeek that sends ``reasoning_content`` back on assistant turns that called tools.

        DeepSeek's thinking mode requires it there (a strict server answers 400 without it);
        langchain-deepseek 1.1.1 keeps it in ``additional_kwargs`` but never sends it.
        """

        def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
            payload = super()._get_request_payload(input_, stop=stop, **kwargs)
            messages = self._convert_input(input_).to_messages()
            for message, sent in zip(messages, payload["messages"], strict=False):
                reasoning = (
                    message.additional_kwargs.get("reasoning_content") if isinstance(message, AIMessage) else None
                )
                if reasoning and sent.get("role") == "assistant" and message.tool_calls:
                    sent["reasoning_content"] = reasoning
            return payload

    return _DeepSeek


def DeepSeekWithReasoning(**kwargs: Any) -> BaseChatModel:
    """Build the DeepSeek chat model (the class is made lazily: langchain-deepseek is optional)."""
    try:
        return _deepseek_class()(**kwargs)
    except ImportError as error:
        raise ProviderError("the DeepSeek provider needs the langchain-deepseek package") from error


def describe_provider_error(error: BaseException, config: ProviderConfig | None = None) -> str | None:
    """A sentence for a provider failure (None when the error is not a provider's)."""
    try:
        import openai
    except ImportError:  # pragma: no cover - openai comes with langchain-openai
        openai = None
    host = httpx.URL(config.url).host if config and config.url else "the AI provider"
    model = config.model if config else "the model"
    if openai is not None:
        if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
            return f"{host} refused the API key ({error.status_code}): check it in Settings"
        if isinstance(error, openai.NotFoundError):
            return f"{host} does not know the model '{model}' (404): check the model name"
        if isinstance(error, openai.RateLimitError):
            return f"{host} is rate-limiting requests (429); wait a minute and try again"
        if isinstance(error, openai.APITimeoutError):
            return f"{host} did not answer in time; try again"
        if isinstance(error, openai.APIConnectionError):
            return f"cannot connect to {host}: check the address and your connection"
        if isinstance(error, openai.APIStatusError):
            return f"{host} failed with HTTP {error.status_code}: {_short(error)}"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError) or type(error).__name__ == "StreamCut":
        return f"the answer from {host} stopped halfway; what arrived is kept, try again"
    if isinstance(error, ProviderError):
        return str(error)
    return None


def _short(error: BaseException) -> str:
    text = str(error)
    return text if len(text) < 200 else text[:200] + "…"
