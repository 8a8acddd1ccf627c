"""What kind of answer an English question asks for, and whether a quote holds one of that kind.

"Who" wants a name, "where" a place, "how many" or "when" an amount or a time, "why" a cause, "how did she feel" a
feeling. A quote that holds the question's words but nothing of the kind it asks for (the question said back)
rarely answers it; the offline answer's odds (``core.agent.offline``) weigh this. Hand-written patterns, not a
tagger: the quotes are a few sentences, the question is English, and on phones nothing heavier ships.
"""

from __future__ import annotations

import re

from core.library.fts import fold

KINDS = ("who", "where", "when", "why", "how", "feel", "amount", "what")

_AMOUNT = re.compile(r"\bhow (many|much|long|old|far|often)\b")
_FEEL = re.compile(r"^\s*how\b.*\bfeel", re.DOTALL)
_ASKED = re.compile(r"\b(who|whom|whose|where|when|why|how|what|which)\b")

# A capitalised word that does not open its sentence: a name ("…to the giant, Manabozho").
_NAME = re.compile(r"(?<![.!?\"“'‘]\s)(?<!^)(?<![.!?]\s\s)\b[A-Z][a-z]+")
_PLACE = re.compile(
    r"\b(?:in|into|to|at|on|upon|under|near|behind|inside|through|from|across|beside|towards?|over|down|up)\s+"
    r"(?:the|a|an|his|her|their|its|my|our|your)\s+(\w+)",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"thousand|dozen|many|several|years?|days?|months?|weeks?|hours?|nights?|mornings?|evenings?|once|twice)\b",
    re.IGNORECASE,
)
_CAUSE = re.compile(
    r"\b(because|so that|in order|since|for fear|therefore|so)\b"
    r"|\bto (?!the\b|a\b|an\b|his\b|her\b|their\b|my\b|him\b|them\b|me\b|us\b|it\b)[a-z]+",
    re.IGNORECASE,
)
_FEELING = re.compile(
    r"\b(happy|glad|sad|angry|afraid|frightened|scared|sorry|pleased|joy\w*|surprised|ashamed|proud|jealous|"
    r"envious|grateful|thankful|worried|anxious|lonely|unhappy|miserable|furious|terrified|excited|curious|"
    r"astonished|amazed|vexed|grie\w+|sorrow\w*|fear\w*|anger|rage|wept|cried|laugh\w*|rejoic\w*|comfort\w*|"
    r"dismay\w*|distress\w*|delight\w*|pleasure|content\w*|troubled|uneasy|alarm\w*|terror|horror|shame|merry|"
    r"cheerful|nervous|relieved|disappoint\w*|upset|annoy\w*)\b",
    re.IGNORECASE,
)


def answer_kind(question: str) -> str:
    """The kind of answer asked for: one of ``KINDS`` ("what" when the question does not say)."""
    lowered = question.lower()
    if _AMOUNT.search(lowered):
        return "amount"
    if _FEEL.search(lowered):
        return "feel"
    asked = _ASKED.search(lowered)
    if asked is None:
        return "what"
    return {"whom": "who", "whose": "who", "which": "what"}.get(asked.group(1), asked.group(1))


def holds_kind(quote: str, question: str, kind: str | None = None) -> float:
    """How much the quote holds an answer of the kind asked for (0..1), counting only words the question lacks;
    0 for the kinds no pattern stands for ("what", "how")."""
    kind = kind or answer_kind(question)
    asked = fold(question)
    if kind == "who":
        found = sum(1 for m in _NAME.finditer(quote) if fold(m.group()) not in asked)
        return min(found, 3) / 3
    if kind == "where":
        found = sum(1 for m in _PLACE.finditer(quote) if fold(m.group(1)) not in asked)
        return min(found, 3) / 3
    if kind in ("when", "amount"):
        found = sum(1 for m in _NUMBER.finditer(quote) if fold(m.group()) not in asked)
        return min(found, 3) / 3
    if kind == "why":
        return min(len(_CAUSE.findall(quote)), 3) / 3
    if kind == "feel":
        found = sum(1 for m in _FEELING.finditer(quote) if fold(m.group()) not in asked)
        return min(found, 2) / 2
    return 0.0
