"""Local-only mode: one switch that refuses every network endpoint except this computer's own."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from core.errors import QuireError

LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class LocalOnlyError(QuireError):
    """A remote endpoint was asked for while local-only mode is on."""


def is_local_url(url: str) -> bool:
    """True for http(s) URLs whose host is this computer (localhost or a loopback address)."""
    host = (urlsplit(url).hostname or "").lower()
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetworkPolicy:
    """Whether remote endpoints may be contacted; shared by the chat, embeddings and model downloads."""

    def __init__(self, local_only: bool = False) -> None:
        self.local_only = local_only

    def check(self, url: str, what: str) -> None:
        """Raise LocalOnlyError when local-only mode forbids contacting ``url`` for ``what``."""
        if self.local_only and not is_local_url(url):
            host = urlsplit(url).hostname or url
            raise LocalOnlyError(
                f"local-only mode is on, so {what} at {host} is not contacted: "
                "use a model on this computer (such as Ollama at localhost) or turn local-only mode off in Settings"
            )
