"""'Test connection' for a provider: list its models with the stored key, and say plainly what went wrong."""

from __future__ import annotations

from typing import Any

import httpx

from core.agent.provider_config import ProviderConfig, api_key
from core.errors import ProviderError
from core.network_policy import NetworkPolicy


def check_connection(config: ProviderConfig, secrets: Any | None = None, policy: NetworkPolicy | None = None) -> str:
    """A one-line success message (how many models the endpoint offers, whether the chosen one is there).

    Raises ProviderError (or LocalOnlyError) with a message that says what to do; the key is never in it.
    """
    url = config.url.rstrip("/")
    if not url:
        raise ProviderError(f"no endpoint URL for {config.kind}: fill in the endpoint")
    policy, what = policy or NetworkPolicy(), f"the {config.kind} provider"
    policy.check(url, what)
    key = api_key(config, secrets)
    headers = {}
    if config.kind == "anthropic":
        headers = {"x-api-key": key or "", "anthropic-version": "2023-06-01"}
        url = url if url.endswith("/v1") else f"{url}/v1"
    elif key:
        headers = {"authorization": f"Bearer {key}"}
    try:
        with policy.client(what, url, timeout=min(config.timeout, 15.0), follow_redirects=True) as client:
            response = client.get(f"{url}/models", headers=headers)
    except httpx.TimeoutException:
        raise ProviderError(f"{config.kind} at {url} did not answer in time: check the URL and your network") from None
    except httpx.HTTPError as error:
        raise ProviderError(
            f"cannot reach {url} ({type(error).__name__}): check the URL, or start the server"
        ) from None
    if response.status_code in (401, 403):
        raise ProviderError(f"{config.kind} refused the API key (HTTP {response.status_code}): check or replace it")
    if response.status_code == 404:
        raise ProviderError(f"{url}/models was not found (HTTP 404): the endpoint URL is probably wrong")
    if response.status_code >= 400:
        raise ProviderError(f"{config.kind} answered HTTP {response.status_code}: try again later")
    try:
        models = [item["id"] for item in response.json().get("data", []) if isinstance(item, dict) and "id" in item]
    except (ValueError, AttributeError):
        raise ProviderError(f"{url}/models did not answer with JSON: is this an OpenAI-compatible endpoint?") from None
    if config.model and models and config.model not in models:
        return f"connected: {len(models)} models, but not '{config.model}' (choose one of {', '.join(models[:5])})"
    return f"connected: {len(models)} models" + (f", including '{config.model}'" if config.model in models else "")
