"""Chat model providers: OpenAI and compatible endpoints, DeepSeek, Anthropic, Ollama; and their errors.

API keys come only from the platform's secret store (or an environment variable for the CLI), never
from settings files, logs or error messages.
"""

from __future__ import annotations

from functools import cached_property
from types import ModuleType
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from pydantic import SecretStr

from core.agent.provider_config import (  # noqa: F401 - re-exported: the settings live in a light module
    DEFAULT_BASE_URLS,
    ENV_KEYS,
    PROVIDERS,
    ProviderConfig,
    api_key,
)
from core.errors import ProviderError, QuireError
from core.network_policy import NetworkPolicy
from core.redact import redact, remember


def make_chat_model(
    config: ProviderConfig, secrets: Any | None = None, policy: NetworkPolicy | None = None
) -> BaseChatModel:
    """A LangChain chat model for the provider, streaming, with retries for transient errors.

    Its HTTP clients check every request against ``policy`` (local-only mode) and never leave the endpoint's host.
    """
    if config.kind not in PROVIDERS:
        raise ProviderError(f"unknown provider '{config.kind}': choose one of {', '.join(PROVIDERS)}")
    key = api_key(config, secrets)
    remember(key)  # whatever its shape, it is hidden in every error, line of output and saved chat from now on
    if config.kind in ("openai", "deepseek", "anthropic") and not key:
        raise ProviderError(f"no API key for {config.kind}: add one in Settings (or set {ENV_KEYS[config.kind]})")
    policy, what = policy or NetworkPolicy(), f"the {config.kind} provider"
    policy.check(config.url, what)
    guard = (policy, what, config.url, config.timeout)
    common = {"model": config.model, "temperature": config.temperature, "max_tokens": config.max_tokens,
              "timeout": config.timeout, "max_retries": config.max_retries}  # fmt: skip
    if config.kind == "deepseek":
        return DeepSeekWithReasoning(api_key=key, api_base=config.url, **_guarded_clients(guard), **common)
    if config.kind == "anthropic":
        try:
            anthropic_class = _anthropic_class()
        except ImportError as error:
            raise ProviderError("the Anthropic provider needs the langchain-anthropic package") from error
        if config.thinking_tokens:  # extended thinking needs temperature 1 and room beyond the budget
            common.update(temperature=1.0, max_tokens=max(config.max_tokens, config.thinking_tokens + 1024))
            common["thinking"] = {"type": "enabled", "budget_tokens": config.thinking_tokens}
        model: BaseChatModel = anthropic_class(api_key=key, base_url=config.url, **common)
        model._quire_guard = guard  # type: ignore[attr-defined]  # what the SDK's guarded clients are built from
        return model
    from langchain_openai import ChatOpenAI

    options: dict[str, Any] = {**_guarded_clients(guard), **common}  # LangChain's constructors take loose kwargs
    return ChatOpenAI(api_key=SecretStr(key or "not-needed"), base_url=config.url, stream_usage=True, **options)


def _guarded_clients(guard: tuple[Any, ...], library: Any = httpx) -> dict[str, Any]:
    """The sync and async HTTP clients of a provider, checking every request (policy, endpoint's host)."""
    policy, what, home, timeout = guard
    options = {"library": library, "timeout": timeout, "follow_redirects": True}
    return {
        "http_client": policy.client(what, home, **options),
        "http_async_client": policy.async_client(what, home, **options),
    }


def _anthropic_class() -> type:
    import anthropic
    from langchain_anthropic import ChatAnthropic

    library: ModuleType
    try:  # the SDK refuses clients of any other HTTP package than its own
        import httpx2 as library
    except ImportError:  # older SDKs use httpx itself
        library = httpx

    class _Anthropic(ChatAnthropic):
        """ChatAnthropic on Quire's guarded HTTP clients (langchain-anthropic 1.x takes no client of ours)."""

        _quire_guard: tuple[Any, ...] = (NetworkPolicy(), "the anthropic provider", None, 60.0)

        @cached_property
        def _client(self) -> anthropic.Client:
            http_client = _guarded_clients(self._quire_guard, library)["http_client"]
            return anthropic.Client(**self._client_params, http_client=http_client)

        @cached_property
        def _async_client(self) -> anthropic.AsyncClient:
            http_client = _guarded_clients(self._quire_guard, library)["http_async_client"]
            return anthropic.AsyncClient(**self._client_params, http_client=http_client)

    return _Anthropic


def _deepseek_class() -> type:
    from langchain_deepseek import ChatDeepSeek

    class _DeepSeek(ChatDeepSeek):
        """ChatDeepSeek that sends ``reasoning_content`` back on assistant turns that called tools.

        DeepSeek's thinking mode requires it there (a strict server answers 400 without it);
        langchain-deepseek 1.1.1 keeps it in ``additional_kwargs`` but never sends it.
        """

        def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
            payload = super()._get_request_payload(input_, stop=stop, **kwargs)
            messages = self._convert_input(input_).to_messages()
            for message, sent in zip(messages, payload["messages"], strict=False):
                reasoning = (
                    message.additional_kwargs.get("reasoning_content") if isinstance(message, AIMessage) else None
                )
                if reasoning and sent.get("role") == "assistant" and getattr(message, "tool_calls", None):
                    sent["reasoning_content"] = reasoning
            return payload

    return _DeepSeek


def DeepSeekWithReasoning(**kwargs: Any) -> BaseChatModel:
    """Build the DeepSeek chat model (the class is made lazily: langchain-deepseek is optional)."""
    try:
        model: BaseChatModel = _deepseek_class()(**kwargs)
        return model
    except ImportError as error:
        raise ProviderError("the DeepSeek provider needs the langchain-deepseek package") from error


def describe_provider_error(error: BaseException, config: ProviderConfig | None = None) -> str | None:
    """A sentence for a provider failure (None when the error is not a provider's); never a key or raw body.

    The OpenAI and Anthropic SDKs name their errors alike, so one mapping by class name serves both.
    """
    for cause in _causes(error):
        if isinstance(cause, QuireError):  # ours, raised inside the SDK: local-only, an off-host redirect
            return redact(str(cause))
    host = httpx.URL(config.url).host if config and config.url else "the AI provider"
    model = config.model if config else "the model"
    kinds = {cls.__name__ for cls in type(error).__mro__}
    status = getattr(error, "status_code", None)
    if kinds & {"AuthenticationError", "PermissionDeniedError"} or status in (401, 403):
        return f"{host} refused the API key ({status}): check it in Settings"
    if "NotFoundError" in kinds or status == 404:
        return f"{host} does not know the model '{model}' (404): check the model name"
    if "RateLimitError" in kinds or status == 429:
        return f"{host} is rate-limiting requests (429); wait a minute and try again"
    if "APITimeoutError" in kinds:
        return f"{host} did not answer in time; try again"
    if "APIConnectionError" in kinds:
        return f"cannot connect to {host}: check the address and your connection"
    if isinstance(status, int):
        return f"{host} failed with HTTP {status}: {_short(error)}"
    if kinds & {"RemoteProtocolError", "ReadError", "StreamCut"}:
        return f"the answer from {host} stopped halfway; what arrived is kept, try again"
    if "APIError" in kinds or isinstance(error, httpx.HTTPError):
        return f"{host} failed: {_short(error)}"
    return None


def _causes(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _short(error: BaseException) -> str:
    """The provider's own words (its error message, not the whole body), without anything like a key."""
    body = getattr(error, "body", None)
    message = getattr(error, "message", None) or str(error)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = (inner.get("message") if isinstance(inner, dict) else None) or message
    text = redact(" ".join(str(message).split()))
    return text if len(text) < 200 else text[:200] + "…"
