"""Highlights sent to Readwise: off until a reader gives an access token (kept in the secret store, never here);
each send carries only what is new or changed since the last one, and nothing is sent in local-only mode.

A highlight goes with its book's title and authors, its words, its note, its place (the paragraph's order in the
book, so Readwise lists them as the book reads) and when it was made. Readwise merges a highlight whose text,
title and author it already has into that one, taking its newer note, so a send cut off halfway and sent again
doubles nothing. What was sent is recorded per highlight with a digest of its words and note, a batch at a time:
an edited note is sent again, and an interrupted send goes on where it stopped. Deleting in Quire deletes nothing
in Readwise (its API deletes by Readwise's own ids, which its create call does not give per highlight).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from core.errors import LocalOnlyError, ReadwiseRefused, SecretStoreError
from core.library import Annotations, BookRecord, Highlight, Library, text_reads
from core.network_policy import NetworkPolicy
from core.readwise import store
from core.readwise.client import READWISE, ReadwiseClient
from core.secrets import SecretStore

SECRET = "readwise"
BATCH = 100  # highlights a request


@dataclass(frozen=True, slots=True)
class ReadwiseSend:
    """What a send did: highlights sent (new or with a changed note), of how many books, and those already there."""

    sent: int
    books: int
    unchanged: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Readwise:
    """``quire.readwise``: the Readwise account set up, and the library's highlights sent to it."""

    def __init__(self, library: Library, annotations: Annotations, network: NetworkPolicy) -> None:
        self._library = library
        self._annotations = annotations
        self._network = network

    def setup(
        self,
        token: str,
        secrets: SecretStore,
        *,
        url: str | None = None,
        transport: httpx.BaseTransport | None = None,
        keep_in_environment: bool = False,
    ) -> dict[str, str]:
        """Use this access token from now on: Readwise (at ``url``, readwise.io unless given) is asked whether it
        takes it, then it goes to ``secrets``. Where there is no secret store and the token came from the
        environment (``keep_in_environment``), it stays there: each send is given it again ("token":
        "environment" in the answer)."""
        self._refuse_when_local_only()
        url = url or READWISE
        with ReadwiseClient(token, url=url, network=self._network, transport=transport) as client:
            client.authorize()
        kept = "store"
        try:
            secrets.set(SECRET, token.strip())
        except SecretStoreError:
            if not keep_in_environment:
                raise
            kept = "environment"
        with self._library.transaction() as conn:
            store.set_url(conn, url)
        return {"url": url, "token": kept}

    def settings(self) -> dict[str, str] | None:
        """Readwise's address when it is set up; None when it is off (the default)."""
        found = store.url(self._library.conn)
        return {"url": found} if found is not None else None

    def turn_off(self, secrets: SecretStore | None = None) -> None:
        """Forget the account (its token leaves the secret store); what was sent is remembered for a later setup."""
        with self._library.transaction() as conn:
            store.forget_url(conn)
        if secrets is not None:
            secrets.delete(SECRET)

    def pending(self) -> int:
        """How many highlights the next send would carry."""
        return len(self._waiting()[0])

    def send(
        self,
        secrets: SecretStore,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
        token: str | None = None,
    ) -> ReadwiseSend:
        """Send every highlight that is new or changed since the last send (with the ``token`` given, such as
        ``$QUIRE_READWISE_TOKEN``, or else the one kept in ``secrets``)."""
        self._refuse_when_local_only()
        found = self.settings()
        token = token or (secrets.get(SECRET) if found is not None else None)
        if found is None or not token:
            raise ReadwiseRefused("Readwise is not set up: give an access token first (quire readwise setup)")
        waiting, unchanged = self._waiting()
        books: dict[int, BookRecord] = {}
        options: dict[str, Any] = {"sleep": sleep} if sleep is not None else {}
        with ReadwiseClient(token, url=found["url"], network=self._network, transport=transport, **options) as client:
            for start in range(0, len(waiting), BATCH):
                batch = waiting[start : start + BATCH]
                for highlight, _ in batch:  # each book read once, not once a highlight
                    if highlight.book_id not in books:
                        books[highlight.book_id] = self._library.get(highlight.book_id)
                client.create([self._payload(h, books[h.book_id]) for h, _ in batch])
                with self._library.transaction() as conn:  # recorded a batch at a time: a cut send goes on later
                    store.mark_sent(conn, [(h.uid, digest) for h, digest in batch])
        return ReadwiseSend(len(waiting), len(books), unchanged)

    def _refuse_when_local_only(self) -> None:
        if self._network.local_only:
            raise LocalOnlyError("local-only mode is on: Readwise is a service on the internet, so nothing is sent")

    def _waiting(self) -> tuple[list[tuple[Highlight, str]], int]:
        sent = store.sent(self._library.conn)
        waiting, unchanged = [], 0
        for highlight in self._annotations.highlights():
            digest = _digest(highlight)
            if sent.get(highlight.uid) == digest:
                unchanged += 1
            elif highlight.text.strip():
                waiting.append((highlight, digest))
        return waiting, unchanged

    def _payload(self, highlight: Highlight, book: BookRecord) -> dict[str, Any]:
        ordinal = text_reads.ordinal_at(self._library.conn, highlight.book_id, highlight.start)
        payload: dict[str, Any] = {
            "text": highlight.text, "title": book.title, "author": ", ".join(book.authors), "source_type": "quire",
            "category": "books", "highlighted_at": highlight.created_at,
        }  # fmt: skip
        if highlight.note.strip():
            payload["note"] = highlight.note
        if ordinal is not None:
            payload["location"], payload["location_type"] = ordinal + 1, "order"
        return payload


def _digest(highlight: Highlight) -> str:
    return hashlib.sha256(f"{highlight.text}\0{highlight.note}".encode()).hexdigest()[:32]
