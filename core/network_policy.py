"""Local-only mode and the HTTP clients that enforce it: every request, redirects included, is checked.

One switch refuses every network endpoint except this computer's own. A host counts as local when it is a
loopback address, or ``localhost`` / ``*.localhost``, which are this computer by definition (RFC 6761): such
names are never given to the system's resolver (it may ask DNS, itself a remote contact, and answer anything),
and a request to one is sent to 127.0.0.1 itself (``pin_loopback``), so the address checked is the address
connected to. No other name is looked up. The clients made here check each request as it is sent, so a local
endpoint that redirects elsewhere is refused at the redirect, and an endpoint's client never follows a redirect
to another host (the key it carries is for that endpoint alone).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from core.errors import LocalOnlyError, ProviderError


def _is_loopback_address(text: str) -> bool:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _is_localhost_name(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")


def is_local_host(host: str) -> bool:
    """True when ``host`` is this computer: a loopback address, or localhost / *.localhost (never resolved)."""
    host = host.strip("[]").lower().rstrip(".")
    return bool(host) and (_is_loopback_address(host) or _is_localhost_name(host))


def pin_loopback(request: httpx.Request) -> None:
    """A request hook: a request to localhost or *.localhost goes to 127.0.0.1 itself, with no name lookup (its
    Host header, and for https the name the certificate is checked against, stay the name)."""
    host = request.url.host.lower().rstrip(".")
    if not _is_localhost_name(host):
        return
    if request.url.scheme == "https":
        request.extensions = {**request.extensions, "sni_hostname": host}
    request.url = request.url.copy_with(host="127.0.0.1")


def is_http_url(url: str) -> bool:
    """``url`` is an http(s) URL with a host and a port that exists (``http://[::1`` and port 99999 are not)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port past 65535 raises only when read
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def is_local_url(url: str) -> bool:
    """True for URLs whose host is this computer (localhost, a loopback address, a name resolving only there)."""
    try:
        return is_local_host(urlsplit(url).hostname or "")
    except ValueError:
        return False


class NetworkPolicy:
    """Whether remote endpoints may be contacted; shared by the chat, embeddings and model downloads."""

    def __init__(self, local_only: bool = False) -> None:
        self.local_only = local_only

    def check(self, url: str, what: str) -> None:
        """Raise LocalOnlyError when local-only mode forbids contacting ``url`` for ``what``."""
        if self.local_only and not is_local_url(url):
            try:
                host = urlsplit(url).hostname or url
            except ValueError:
                host = url
            raise LocalOnlyError(
                f"local-only mode is on, so {what} at {host} is not contacted: "
                "use a model on this computer (such as Ollama at localhost) or turn local-only mode off in Settings"
            )

    def _guard(self, what: str, home: str | None) -> Callable[[httpx.Request], None]:
        """A request hook: the policy, and (with ``home``) no request to another origin than the endpoint's: the
        same host on another port is another server. Only one move is allowed, from http to https on the same
        host's default ports (a server that moved to https)."""
        home_url = httpx.URL(home) if home else None

        def hook(request: httpx.Request) -> None:
            if home_url is not None and not _same_origin(home_url, request.url):
                shown = (
                    f"{request.url.host}:{_port(request.url)}"
                    if request.url.host == home_url.host
                    else request.url.host
                )
                raise ProviderError(
                    f"{what} at {home_url.host} redirected to {shown}; Quire does not follow it "
                    "(the endpoint's key is for that endpoint alone): check the endpoint URL"
                )
            self.check(str(request.url), what)
            pin_loopback(request)

        return hook

    def client(self, what: str, home: str | None = None, *, library: Any = httpx, **options: Any) -> httpx.Client:
        """An httpx client whose every request is checked; ``home``: stay on that endpoint's host.

        ``library`` is httpx, or a package with its API (the Anthropic SDK requires its own fork, httpx2).
        """
        hook = self._guard(what, home)
        client: httpx.Client = library.Client(event_hooks={"request": [hook]}, **options)
        return client

    def async_client(
        self, what: str, home: str | None = None, *, library: Any = httpx, **options: Any
    ) -> httpx.AsyncClient:
        """The asynchronous twin of ``client``."""
        hook = self._guard(what, home)

        async def async_hook(request: httpx.Request) -> None:
            hook(request)

        client: httpx.AsyncClient = library.AsyncClient(event_hooks={"request": [async_hook]}, **options)
        return client


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _same_origin(home: httpx.URL, url: httpx.URL) -> bool:
    """The request goes where the endpoint is: its scheme, host and port, or its https twin on the default port."""
    if url.host != home.host:
        return False
    if (url.scheme, _port(url)) == (home.scheme, _port(home)):
        return True
    return home.scheme == "http" and _port(home) == 80 and url.scheme == "https" and _port(url) == 443
