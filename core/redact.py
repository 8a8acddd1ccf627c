"""Secrets taken out of text meant for people: API keys, bearer tokens and key-like strings in any message."""

from __future__ import annotations

import re
from collections.abc import Iterable

HIDDEN = "[hidden]"
_SENT: list[str] = []  # the keys this process has sent to an endpoint, whatever their shape (newest last)
_SENT_LIMIT = 64
_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)(?!\[hidden\])[^\s'\",;}\]]+"),
    re.compile(
        r"(?i)((?:x-api-key|x-auth-key|api[_-]?key|auth[_-]?key|user[_-]?key|authorization|token|secret|password)['\"]?\s*[:=]\s*['\"]?(?:bearer\s+)?)"
        r"(?!\[hidden\])[^\s'\",;}\]]+"
    ),
    re.compile(r"\b(?:sk|pk|rk|ak)-[A-Za-z0-9_\-]{6,}"),
)


def remember(secret: str | None) -> None:
    """A key about to be sent to an endpoint: from now on ``redact`` hides it wherever it appears, shaped like a key
    or not (an endpoint may echo it back in an error body)."""
    if secret and len(secret) >= 4 and secret not in _SENT:
        _SENT.append(secret)
        del _SENT[:-_SENT_LIMIT]


def redact(text: str, known: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret (those given, and every key this process sent), and anything shaped like a
    key or a bearer token, replaced by [hidden]."""
    for secret in sorted({s for s in (*known, *_SENT) if s}, key=len, reverse=True):
        if len(secret) >= 4:
            text = text.replace(secret, HIDDEN)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + HIDDEN, text)
    return text
