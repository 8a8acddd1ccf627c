"""A read-aloud session: sentence after sentence from a place, with pause, resume, stop, speed and voice.

It speaks on a worker thread through a ``Speaker`` and tells its owner (the reader) which sentence is being said,
so that the highlight and the page can follow; the owner moves the reading place, not this.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from core.books.locator import Locator
from core.errors import QuireError
from core.speech.speakers import Speaker
from core.speech.voice import DEFAULT_SPEECH_RATE


@dataclass(frozen=True, slots=True)
class SpokenSentence:
    """A sentence read aloud: where it is in the book, its words, and (once spoken) its span in the audio."""

    start: Locator
    end: Locator
    text: str
    audio_start: float = 0.0
    audio_end: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["start"], found["end"] = str(self.start), str(self.end)
        return found


State = Literal["stopped", "playing", "paused"]
BATCH = 12  # sentences read from the library at a time


class ReadAloud:
    """One book read aloud. ``sentences(locator, count)`` gives the sentences from a place (``quire.speech``);
    ``changed()`` is called on the worker thread whenever ``state`` or ``sentence`` changes."""

    def __init__(
        self,
        sentences: Callable[[Locator, int], list[SpokenSentence]],
        speaker: Speaker,
        language: str,
        changed: Callable[[], None],
        rate: int = DEFAULT_SPEECH_RATE,
        voice: str | None = None,
    ) -> None:
        self._sentences = sentences
        self.speaker = speaker
        self.language = language
        self._changed = changed
        self.rate = rate
        self.voice = voice
        self.state: State = "stopped"
        self.sentence: SpokenSentence | None = None  # being said (or, paused, to be said again on resume)
        self.error: QuireError | None = None  # why the last session ended early
        self.finished = False  # the book ended
        self._queue: deque[SpokenSentence] = deque()
        self._run = 0  # each start, pause and stop ends the runs before it
        self._lock = threading.Lock()
        self._cut = threading.Event()  # cuts short the sentence being said
        self._thread: threading.Thread | None = None

    def play(self, start: Locator) -> None:
        """Read aloud from ``start`` (the page's first sentence, or where a selection begins)."""
        self._end()
        self.sentence = None
        self._queue = deque(self._sentences(start, BATCH))
        self.error, self.finished = None, False
        self._start()

    def pause(self) -> None:
        """Stop speaking; the sentence being said is said again from its start on resume."""
        if self.state == "playing":
            self._end("paused")
            self._changed()

    def resume(self) -> None:
        if self.state == "paused":
            self._start()

    def stop(self) -> None:
        """End the session; the place the reader reached stays (the owner saved it as the sentences went)."""
        if self.state != "stopped":
            self._end()
            self.sentence = None
            self._queue.clear()
            self._changed()

    def set_rate(self, rate: int) -> None:
        """A new speed (words a minute): the sentence being said starts again at it."""
        self._restart(lambda: setattr(self, "rate", rate))

    def set_voice(self, voice: str | None) -> None:
        self._restart(lambda: setattr(self, "voice", voice))

    def _restart(self, change: Callable[[], None]) -> None:
        playing = self.state == "playing"
        if playing:
            self._end("paused")
        change()
        if playing:
            self._start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the worker to end (tests, closing the book); True if it did."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _start(self) -> None:
        with self._lock:
            self._run += 1
            run = self._run
            self.state = "playing"
        self._thread = threading.Thread(target=self._speak, args=(run,), name="read-aloud", daemon=True)
        self._thread.start()

    def _end(self, state: State = "stopped") -> None:
        """End the run speaking now: its sentence is cut short, and it leaves everything as it is."""
        with self._lock:
            self._run += 1
            self.state = state
            self._cut.set()

    def _speak(self, run: int) -> None:
        while True:
            with self._lock:
                if self._run != run:
                    return
                if not self._queue and self.sentence is not None:  # the next sentences, after the last one said
                    self._queue.extend(s for s in self._sentences(self.sentence.end, BATCH) if s != self.sentence)
                sentence = self._queue[0] if self._queue else None
                self.sentence = sentence
                if sentence is None:  # the book ended
                    self._run += 1
                    self.state, self.error, self.finished = "stopped", None, True
                else:
                    self._cut = cut = threading.Event()  # set by pause, stop or a new speed: no stop is missed
            self._changed()
            if sentence is None:
                return
            try:
                self.speaker.speak(sentence.text, self.language, self.rate, self.voice, cut)
            except QuireError as error:
                with self._lock:
                    if self._run != run:
                        return
                    self._run += 1
                    self.state, self.error, self.sentence = "stopped", error, None
                self._changed()
                return
            with self._lock:
                if self._run != run:
                    return  # paused or stopped mid-sentence: it stays first in the queue
                self._queue.popleft()
