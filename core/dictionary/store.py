"""The reader's dictionaries: imported into the library (files kept in its folder, headwords indexed in SQLite),
and looked up offline by a word as written, its lemma ("ran": run) or, in Chinese, the longest word it starts with.
Also the words looked up while reading a book: its vocabulary list.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import urllib.parse
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from core.books.textutil import CJK_RUN
from core.dictionary.dictzip import DictzipReader
from core.dictionary.formats import Source, find_source, headwords, plain_text
from core.errors import BookFormatError, QuireError
from core.library import Library
from core.library.db import now
from core.rag.sentences import sentence_spans
from core.sync import store as sync_store

LONGEST_CHINESE_WORD = 8  # characters tried from the start of a Chinese selection, longest first
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


@dataclass(frozen=True, slots=True)
class DictionaryInfo:
    """An imported dictionary: its name, its kind (stardict, dictd, cedict) and how many words it holds."""

    id: int
    name: str
    kind: str
    words: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Definition:
    """One article: the dictionary it is from, its headword, its text, and the form looked up when that was
    another ("ran" found "run": ``looked_up`` is "ran")."""

    dictionary: str
    word: str
    text: str
    looked_up: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class VocabularyWord:
    """A word kept in a book's vocabulary list, with the sentence it was read in and its definition."""

    word: str
    locator: str
    sentence: str
    definition: str
    added_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@cache
def _lemmatizer() -> Any:
    try:
        import simplemma
    except ImportError:  # pragma: no cover - a dependency; without it words are looked up as written only
        return None
    return simplemma


def lemma(word: str, language: str) -> str:
    """The dictionary form of a word in the book's language (simplemma: "whales": whale, "ran": run); the word
    itself where the language is not known to it."""
    simplemma = _lemmatizer()
    code = (language or "en").split("-")[0].lower()
    if simplemma is None or CJK_RUN.search(word):
        return word
    try:
        return str(simplemma.lemmatize(word, lang=code))
    except (ValueError, KeyError):
        return word


class Dictionaries:
    """``quire.dictionary``'s store: import, list, remove, look up; and each book's vocabulary list."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self.folder = library.root / "dictionaries"
        self._readers: dict[int, DictzipReader] = {}

    def add(self, path: Path) -> DictionaryInfo:
        """Import the dictionary ``path`` names (any of its files, or its folder). One of the same name and format
        already here is replaced. BookFormatError when the files are not a dictionary Quire reads."""
        if not path.exists():
            raise QuireError(f"{path} does not exist")
        source = find_source(path)
        if source.articles is not None:
            DictzipReader(source.articles)  # a damaged or bomb-sized article file is refused now, not at a lookup
        words = list(headwords(source))
        if not words:
            raise BookFormatError(f"{source.index.name} holds no headwords")
        conn = self.library.conn
        same = "SELECT id FROM dictionaries WHERE name = ? AND kind = ?"
        for (old,) in conn.execute(same, (source.name, source.kind)).fetchall():
            self.remove(old)
        with self.library.transaction() as tx:
            cursor = tx.execute(
                "INSERT INTO dictionaries (name, kind, folder, types, words, added_at) VALUES (?, ?, '', ?, ?, ?)",
                (source.name, source.kind, source.types, len(words), now()),
            )
            number = int(cursor.lastrowid or 0)
            kept = self.folder / str(number)
            kept.mkdir(parents=True, exist_ok=True)
            for file in {f for f in (source.index, source.articles, source.synonyms) if f is not None}:
                shutil.copyfile(file, kept / file.name)
            tx.execute(
                "UPDATE dictionaries SET folder = ? WHERE id = ?", (str(kept.relative_to(self.library.root)), number)
            )
            tx.executemany(
                "INSERT INTO dictionary_words (dictionary_id, key, word, offset, size, text) VALUES (?, ?, ?, ?, ?, ?)",
                ((number, _key(w.word), w.word, w.offset, w.size, w.text) for w in words),
            )
        return DictionaryInfo(number, source.name, source.kind, len(words))

    def all(self) -> list[DictionaryInfo]:
        rows = self.library.conn.execute("SELECT id, name, kind, words FROM dictionaries ORDER BY id").fetchall()
        return [DictionaryInfo(*row) for row in rows]

    def remove(self, number: int) -> None:
        row = self.library.conn.execute("SELECT folder FROM dictionaries WHERE id = ?", (number,)).fetchone()
        if row is None:
            raise QuireError(f"there is no dictionary {number}: 'quire dict list' shows them")
        with self.library.transaction() as tx:
            tx.execute("DELETE FROM dictionary_words WHERE dictionary_id = ?", (number,))
            tx.execute("DELETE FROM dictionaries WHERE id = ?", (number,))
        self._readers.pop(number, None)
        if row[0]:
            shutil.rmtree(self.library.root / row[0], ignore_errors=True)

    def define(self, text: str, language: str = "") -> list[Definition]:
        """The articles for a selected word: as written, then its lemma; for Chinese, the longest word the
        selection starts with. Every dictionary's, in the order they were imported."""
        word = _EDGES.sub("", " ".join(text.split()))
        if not word:
            return []
        if CJK_RUN.match(word):
            tries = [word[:n] for n in range(min(len(word), LONGEST_CHINESE_WORD), 0, -1)]
        else:
            base = lemma(word.casefold(), language)
            tries = list(dict.fromkeys([word, word.casefold(), base, word.removesuffix("'s").removesuffix("’s")]))
        for attempt in tries:
            found = self._articles(attempt)
            if found:
                shown = "" if _key(attempt) == _key(word) else word
                return [Definition(name, headword, body, shown) for name, headword, body in found]
        return []

    def _articles(self, word: str) -> list[tuple[str, str, str]]:
        rows = self.library.conn.execute(
            "SELECT d.id, d.name, d.kind, d.folder, d.types, w.word, w.offset, w.size, w.text FROM dictionary_words w "
            "JOIN dictionaries d ON d.id = w.dictionary_id WHERE w.key = ? ORDER BY d.id, w.rowid LIMIT 20",
            (_key(word),),
        ).fetchall()
        found = []
        for number, name, kind, folder, types, headword, offset, size, text in rows:
            if kind != "cedict":
                source = Source(kind, name, Path(), None, types=types)
                text = plain_text(self._reader(number, folder).read(offset, size), source)
            found.append((name, headword, text))
        return found

    def _reader(self, number: int, folder: str) -> DictzipReader:
        if number not in self._readers:
            articles = next(
                (f for f in sorted((self.library.root / folder).iterdir()) if f.name.endswith((".dict", ".dict.dz"))),
                None,
            )
            if articles is None:
                raise QuireError("this dictionary's articles are missing from the library folder: import it again")
            self._readers[number] = DictzipReader(articles)
        return self._readers[number]

    # -- a book's vocabulary ---------------------------------------------------------------------------------
    def keep(self, book_id: int, word: str, locator: str, sentence: str, definition: str) -> None:
        """Add a looked-up word to the book's vocabulary list (once per word: a later lookup updates it), and to
        what sync sends."""
        try:
            with self.library.transaction() as tx:
                value = {"present": True, "locator": locator, "sentence": sentence[:MAX_SENTENCE],
                         "definition": definition[:MAX_DEFINITION]}  # fmt: skip
                store_synced_word(tx, book_id, word, value)
                sync_store.record(tx, word_key(tx, book_id, word), value)
        except sqlite3.IntegrityError as error:
            raise QuireError(f"book {book_id} is not in the library") from error

    def vocabulary(self, book_id: int) -> list[VocabularyWord]:
        rows = self.library.conn.execute(
            "SELECT word, locator, sentence, definition, added_at FROM vocabulary WHERE book_id = ? ORDER BY added_at, id",
            (book_id,),
        ).fetchall()
        return [VocabularyWord(*row) for row in rows]

    def forget(self, book_id: int, word: str) -> None:
        """Take a word off the book's vocabulary list, here and (through sync) on the reader's other devices."""
        with self.library.transaction() as tx:
            if tx.execute("DELETE FROM vocabulary WHERE book_id = ? AND word = ?", (book_id, word)).rowcount:
                sync_store.record(tx, word_key(tx, book_id, word), {"present": False})


MAX_SENTENCE = 2_000  # characters of a word's sentence kept (and synced)
MAX_DEFINITION = 4_000  # characters of its definition


def word_key(conn: sqlite3.Connection, book_id: int, word: str) -> str:
    """The sync record of a word in a book's vocabulary list: ``word/{content hash}/{word, quoted}``."""
    (content_hash,) = conn.execute("SELECT content_hash FROM books WHERE id = ?", (book_id,)).fetchone()
    return f"word/{content_hash}/{urllib.parse.quote(word, safe='')}"


def store_synced_word(conn: sqlite3.Connection, book_id: int, word: str, value: dict[str, Any]) -> None:
    """Make the vocabulary list show a word's record: kept with its sentence and definition, or gone."""
    if not value.get("present"):
        conn.execute("DELETE FROM vocabulary WHERE book_id = ? AND word = ?", (book_id, word))
        return
    conn.execute(
        "INSERT INTO vocabulary (book_id, word, locator, sentence, definition, added_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (book_id, word) DO UPDATE SET locator = excluded.locator, sentence = excluded.sentence, "
        "definition = excluded.definition",
        (book_id, word, str(value.get("locator", "")), str(value.get("sentence", "")),
         str(value.get("definition", "")), now()),
    )  # fmt: skip


def sentence_around(text: str, at: int) -> str:
    """The sentence of ``text`` holding the character at ``at`` (a looked-up word's sentence, for the vocabulary
    list and "Explain in this context")."""
    return next((text[a:b] for a, b in sentence_spans(text) if a <= at < b), text).strip()


def _key(word: str) -> str:
    return " ".join(word.split()).casefold()


def synced_words(conn: sqlite3.Connection, book_id: int) -> list[tuple[str, str, str, str]]:
    """(word, locator, sentence, definition) of each word on the book's vocabulary list, as sync sends them."""
    return conn.execute(
        "SELECT word, locator, sentence, definition FROM vocabulary WHERE book_id = ?", (book_id,)
    ).fetchall()
