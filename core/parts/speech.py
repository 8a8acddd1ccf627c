"""Read-aloud by book: the sentences from a place, and those sentences spoken to a WAV file by a system voice."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from core.books.locator import Locator, parse_locator
from core.errors import QuireError
from core.library import Annotations, Library, text_reads
from core.rag.sentences import sentence_spans
from core.speech.neural import JOE, write_natural
from core.speech.session import ReadAloud, SpokenSentence
from core.speech.speakers import Speaker
from core.speech.voice import DEFAULT_SPEECH_RATE, save

_CJK_STOP = re.compile(r"[。！？]+[”’」』）)]*(?=[\u3400-\u9fff“‘「『（(])")


def spoken_spans(text: str) -> list[tuple[int, int]]:
    """Sentences as read aloud: ``sentence_spans``'s, and Chinese ones split at 。！？ too (the shared splitter
    keeps a CJK run whole, as search and the offline answers were tuned with it)."""
    spans = []
    for a, b in sentence_spans(text):
        start = a
        for stop in _CJK_STOP.finditer(text, a, b):
            spans.append((start, stop.end()))
            start = stop.end()
        if b > start:
            spans.append((start, b))
    return spans


class Speech:
    """``quire.speech``: what read-aloud reads, from the reader's place or a locator, and the audio of it."""

    def __init__(self, library: Library, annotations: Annotations) -> None:
        self._library = library
        self._annotations = annotations

    def sentences(self, book: int, locator: str | Locator | None = None, count: int = 10) -> list[SpokenSentence]:
        """``count`` sentences from ``locator`` (default: the reader's current place), in reading order; a locator
        inside a paragraph starts at the sentence holding it. Headings are read; pictures are not."""
        record = self._library.get(book)
        if locator is None:
            position = self._annotations.position(record.id)
            locator = position.locator if position is not None else Locator(0, 0)
        place = parse_locator(locator) if isinstance(locator, str) else locator
        ordinal, _ = self._annotations.place(record.id, place)
        found: list[SpokenSentence] = []
        rows = text_reads.spoken_segments(self._library.conn, record.id, ordinal)
        for row_ordinal, section, idx, text in rows:
            for a, b in spoken_spans(text):
                if row_ordinal == ordinal and place.offset is not None and b <= place.offset:
                    continue  # before the place, in its paragraph
                found.append(SpokenSentence(Locator(section, idx, a), Locator(section, idx, b), text[a:b]))
                if len(found) >= count:
                    return found
        return found

    def save(
        self,
        book: int,
        path: Path | str,
        locator: str | Locator | None = None,
        count: int = 10,
        rate: int = DEFAULT_SPEECH_RATE,
        voice: str | None = None,
    ) -> list[SpokenSentence]:
        """Speak ``count`` sentences from the place into the WAV file ``path`` with a system voice in the book's
        language, or the natural one (``voice="joe"``, English books); each sentence with its span in the audio.
        VoiceUnavailable where no voice can speak."""
        sentences = self.sentences(book, locator, count)
        if not sentences:
            raise QuireError("there is nothing to read aloud from there: the book ends before it")
        language = self._library.get(book).language
        natural = write_natural if voice == JOE else None
        spans = save([s.text for s in sentences], Path(path), language, rate, natural)
        return [
            SpokenSentence(s.start, s.end, s.text, span.start, span.end)
            for s, span in zip(sentences, spans, strict=True)
        ]

    def session(
        self,
        book: int,
        speaker: Speaker,
        changed: Callable[[], None],
        rate: int = DEFAULT_SPEECH_RATE,
        voice: str | None = None,
    ) -> ReadAloud:
        """Read-aloud for the reader: a session speaking the book's sentences through ``speaker`` in its language;
        ``changed()`` is called (on its worker thread) as each sentence starts and when it pauses or ends."""
        record = self._library.get(book)
        return ReadAloud(
            lambda at, count: self.sentences(record.id, at, count), speaker, record.language, changed, rate, voice
        )
