"""KOReader progress sync by book: a book read in KOReader (a Kobo, a Kindle) and in Quire meets at the furthest
place, through a KOReader sync server (off until the reader sets one up).

How exact a place is: an EPUB's place is sent as an xpointer to the paragraph (found by its text in the chapter's
XHTML) and read back the same way, so it is exact to the paragraph when KOReader's path names the same element
(and to the chapter otherwise, then by the percentage within it); a PDF's is its page; other formats go by the
percentage of the book alone, which KOReader counts by pages and Quire by paragraphs: a few paragraphs either way.
Progress from KOReader is another device's reading: it raises the furthest place read by the same rule as a page
turned here (``reading=True``), never a jump.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from core.books.locator import Locator
from core.errors import KosyncError, KosyncRefused, LibraryError, QuireError
from core.koreader import store
from core.koreader.client import KosyncClient, Progress, user_key
from core.koreader.document import EpubPointers, fold, partial_md5
from core.library import Annotations, Library, text_reads
from core.network_policy import NetworkPolicy
from core.parts.text import BookText
from core.secrets import SecretStore
from core.sync import store as sync_store

DEVICE = "Quire"
Direction = Literal["sent", "received", "same", "nothing"]


@dataclass(frozen=True, slots=True)
class KosyncResult:
    """What syncing one book did: its progress sent, another device's received, or nothing to do."""

    book_id: int
    title: str
    document: str
    direction: Direction
    locator: str = ""
    percentage: float = 0.0  # 0 to 1
    device: str = ""  # the device whose progress won

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def kosync_secret(url: str) -> str:
    return f"kosync:{url}"


class Kosync:
    """``quire.kosync``: the KOReader sync server set up (its user's key in the secret store), and each book's
    progress exchanged with it."""

    def __init__(self, library: Library, annotations: Annotations, network: NetworkPolicy, text: BookText) -> None:
        self._library = library
        self._annotations = annotations
        self._network = network
        self._text = text

    # -- the server --------------------------------------------------------------------------------------------
    def setup(
        self, url: str, user: str, password: str, secrets: SecretStore | None, *, register: bool = False
    ) -> dict[str, str]:
        """Use this server and user from now on (``register``: create the user first); the login is checked.
        The key (the password's MD5, as KOReader sends it) goes to ``secrets``."""
        if not user.strip() or not password:
            raise KosyncError("a KOReader sync server needs a user name and a password")
        key = user_key(password)
        with KosyncClient(url, user.strip(), key, network=self._network) as client:
            if register:
                client.register()
            client.authorize()
        if secrets is not None:
            secrets.set(kosync_secret(url), key)
        with self._library.transaction() as conn:
            store.keep(conn, url, user.strip())
        return {"url": url, "user": user.strip()}

    def settings(self) -> dict[str, str] | None:
        """The server and user set up, or None (KOReader sync is off: the default)."""
        return store.settings(self._library.conn)

    def turn_off(self, secrets: SecretStore | None = None) -> None:
        found = self.settings()
        with self._library.transaction() as conn:
            store.forget(conn)
        if found is not None and secrets is not None:
            secrets.delete(kosync_secret(found["url"]))

    def _client(self, secrets: SecretStore | None, password: str | None) -> KosyncClient:
        found = self.settings()
        if found is None:
            raise KosyncError("KOReader sync is off: set up a KOReader sync server first")
        key = (
            user_key(password)
            if password is not None
            else (secrets.get(kosync_secret(found["url"])) if secrets else None)
        )
        if not key:
            raise KosyncRefused("the KOReader sync password is not stored here: set the server up again")
        return KosyncClient(found["url"], found["user"], key, network=self._network)

    # -- books -------------------------------------------------------------------------------------------------
    def sync(
        self, book: int | None = None, secrets: SecretStore | None = None, password: str | None = None
    ) -> list[KosyncResult]:
        """Exchange progress for one book (its id), or for every book opened in Quire: the further place wins."""
        books = [self._library.get(book)] if book is not None else [
            self._library.get(book_id) for book_id in self._annotations.positions()
        ]  # fmt: skip
        results = []
        with self._client(secrets, password) as client:  # first: with KOReader sync off, nothing is written here
            device_id = sync_store.device_id(self._library.conn)
            for record in books:
                try:
                    results.append(self._one(client, record.id, device_id))
                except LibraryError:  # its file went missing here: the other books still sync
                    if book is not None:
                        raise
        return results

    def document(self, book: int) -> str:
        """The book's id on a KOReader sync server (KOReader's partial MD5 of the same file)."""
        return partial_md5(self._library.file_path(self._library.book_id(book)))

    def _one(self, client: KosyncClient, book_id: int, device_id: str) -> KosyncResult:
        book = self._library.get(book_id)
        document = self.document(book_id)
        pointers = self._pointers(book_id) if book.format == "epub" else None
        remote = client.progress(document)
        position = self._annotations.position(book_id)
        local = position.furthest_ordinal if position is not None else -1
        there: tuple[Locator, int] | None = None
        if remote is not None:
            there = self._locate(book_id, remote, pointers)
        if there is not None and there[1] > local:
            assert remote is not None
            self._annotations.save_position(book_id, there[0], reading=True)  # another device's reading
            return KosyncResult(
                book_id, book.title, document, "received", str(there[0]), remote.percentage, remote.device
            )
        if position is None or position.furthest is None:
            return KosyncResult(book_id, book.title, document, "nothing")
        if there is not None and there[1] == local:
            return KosyncResult(
                book_id, book.title, document, "same", str(position.furthest), position.furthest_percent / 100
            )
        progress = self._progress(book_id, book.format, position.furthest, local, pointers)
        percentage = round(position.furthest_percent / 100, 4)
        client.update(Progress(document, progress, percentage, DEVICE, device_id))
        return KosyncResult(book_id, book.title, document, "sent", str(position.furthest), percentage, DEVICE)

    def _pointers(self, book_id: int) -> EpubPointers | None:
        try:
            return EpubPointers(self._library.file_path(book_id).read_bytes())
        except (QuireError, OSError):
            return None

    def _progress(self, book_id: int, kind: str, place: Locator, ordinal: int, pointers: EpubPointers | None) -> str:
        """KOReader's progress for a place: an xpointer (EPUB), a page number from 1 (PDF), else ""."""
        if kind == "pdf":
            return str(self._text.page_of(book_id, ordinal) + 1)
        if pointers is None:
            return ""
        href, text = text_reads.file_place(self._library.conn, book_id, ordinal)
        return pointers.xpointer(href, text, place.offset or 0) or ""

    def _locate(self, book_id: int, remote: Progress, pointers: EpubPointers | None) -> tuple[Locator, int] | None:
        """Quire's place (and its ordinal) for KOReader's progress; None when nothing in it can be placed."""
        book = self._library.get(book_id)
        last = max(0, book.segment_count - 1)
        by_share = min(last, round(remote.percentage * last))
        page = remote.progress.strip()
        if book.format == "pdf" and page.isascii() and page.isdigit() and len(page) <= 9:  # not "²", not 5,000 digits
            start = self._text.page_start(book_id, int(page) - 1)
            if start is not None:
                return start.locator, start.ordinal
        place = pointers.place(remote.progress) if pointers is not None and remote.progress else None
        if place is not None:
            row = text_reads.section_of_file(self._library.conn, book_id, place.href)
            if row is not None:
                section, first, count = row
                if place.text:
                    wanted = place.text  # folded, as each paragraph is below
                    for ordinal, idx, text in text_reads.section_rows(self._library.conn, book_id, section):
                        folded = fold(str(text))
                        if folded and (folded.startswith(wanted) or wanted.startswith(folded)):
                            offset = min(place.offset, len(text)) or None
                            return Locator(section, int(idx), offset), int(ordinal)
                inside = by_share if first <= by_share < first + count else first  # the chapter, then the share
                return self._at(book_id, inside)
        if remote.percentage > 0 or remote.progress:
            return self._at(book_id, by_share)
        return None

    def _at(self, book_id: int, ordinal: int) -> tuple[Locator, int]:
        record = self._library.segments(book_id, ordinal, 1)[0]
        return record.locator, record.ordinal
