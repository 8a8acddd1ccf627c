"""Secrets taken out of text meant for people: API keys, bearer tokens and key-like strings in any message."""

from __future__ import annotations

import re
from collections.abc import Iterable

HIDDEN = "[hidden]"
_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)(?!\[hidden\])[^\s'\",;}\]]+"),
    re.compile(
        r"(?i)((?:x-api-key|api[_-]?key|authorization|token|secret|password)['\"]?\s*[:=]\s*['\"]?(?:bearer\s+)?)"
        r"(?!\[hidden\])[^\s'\",;}\]]+"
    ),
    re.compile(r"\b(?:sk|pk|rk|ak)-[A-Za-z0-9_\-]{6,}"),
)


def redact(text: str, known: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret, and anything shaped like a key or a bearer token, replaced by [hidden]."""
    for secret in known:
        if secret and len(secret) >= 4:
            text = text.replace(secret, HIDDEN)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + HIDDEN, text)
    return text
