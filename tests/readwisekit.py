"""A local server following Readwise's highlights API (v2) as documented: token auth, highlight create merging by
title, author and text, its field limits, and 429 with Retry-After on demand."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from httpkit import LocalServer, Reply, Request

LIMITS = {"text": 8191, "title": 511, "author": 1024, "note": 8191}


@dataclass
class ReadwiseServer:
    token: str = "good-token"
    highlights: dict[tuple[str, str, str], dict] = field(default_factory=dict)  # (title, author, text) -> highlight
    wait: list[str] = field(default_factory=list)  # Retry-After values for the next requests, answered 429
    reply: Reply | None = None  # a scripted reply for every request instead (garbage, an error)
    full_after: int | None = None  # once it holds this many highlights, every create is answered 429 …
    full_wait: str = "3600"  # … asking to wait this long

    def __post_init__(self) -> None:
        self._server = LocalServer(self._handle)

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def requests(self) -> list[Request]:
        return self._server.requests

    def __enter__(self) -> ReadwiseServer:
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.__exit__(*exc)

    def _handle(self, request: Request) -> Reply:
        if self.reply is not None:
            return self.reply
        if self.wait:
            return Reply(429, {"detail": "Request was throttled."}, {"Retry-After": self.wait.pop(0)})
        if request.headers.get("authorization") != f"Token {self.token}":
            return Reply(401, {"detail": "Invalid token."})
        if request.method == "GET" and request.path == "/api/v2/auth/":
            return Reply(204)
        if request.method == "POST" and request.path == "/api/v2/highlights/":
            if self.full_after is not None and len(self.highlights) >= self.full_after:
                return Reply(429, {"detail": "Request was throttled."}, {"Retry-After": self.full_wait})
            return self._create(json.loads(request.body))
        return Reply(404, {"detail": "Not found."})

    def _create(self, body: dict) -> Reply:
        items = body.get("highlights") if isinstance(body, dict) else None
        if not isinstance(items, list):
            return Reply(400, {"highlights": ["This field is required."]})
        errors = []
        for item in items:
            problems = {}
            if not isinstance(item.get("text"), str) or not item["text"]:
                problems["text"] = ["This field is required."]
            for name, limit in LIMITS.items():
                if isinstance(item.get(name), str) and len(item[name]) > limit:
                    problems[name] = [f"Ensure this field has no more than {limit} characters."]
            if "location" in item and not isinstance(item["location"], int):
                problems["location"] = ["A valid integer is required."]
            errors.append(problems)
        if any(errors):
            return Reply(400, errors)
        books: dict[tuple[str, str], dict] = {}
        for item in items:
            key = (item.get("title", ""), item.get("author", ""), item["text"])
            kept = self.highlights.setdefault(key, {"id": len(self.highlights) + 1})
            kept.update(item)  # the same text of the same book: one highlight, its note the newest
            book = books.setdefault(key[:2], {"id": len(books) + 1, "title": key[0], "author": key[1],
                                              "category": item.get("category", "books"), "modified_highlights": []})  # fmt: skip
            book["modified_highlights"].append(kept["id"])
        return Reply(200, list(books.values()))
