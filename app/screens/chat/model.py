"""View-model of the chat panel: a book's threads, and the reducer from agent events to drawn parts.

The parts are thinking, tool cards, text, citations and errors; answers stream in a worker thread, redraws
are throttled, and a stopped answer keeps what arrived.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator

from app.workers import Spawn
from core import (
    AgentEvent,
    Done,
    ErrorEvent,
    Message,
    MessageFold,
    Part,
    ProviderConfig,
    Quire,
    SecretStore,
    ThreadEvent,
    ThreadInfo,
)

FLUSH_INTERVAL = 0.1  # seconds: streamed text is redrawn at most ten times a second

log = logging.getLogger(__name__)


class PartReducer:
    """Feeds agent events to the core's MessageFold and tells the UI when a redraw is due (throttled text)."""

    def __init__(self, message: Message, clock: Callable[[], float] = time.monotonic) -> None:
        self.message = message
        self.clock = clock
        self.dirty = False
        self._urgent = False
        self._last_flush = float("-inf")
        self._fold = MessageFold(message)

    def apply(self, event: AgentEvent) -> None:
        self._urgent |= self._fold.add(event)
        self.dirty = True

    def flush_due(self) -> bool:
        """True when the UI should redraw now: a new part at once, streamed text at most every 100 ms."""
        now = self.clock()
        if self.dirty and (self._urgent or now - self._last_flush >= FLUSH_INTERVAL):
            self.dirty = self._urgent = False
            self._last_flush = now
            return True
        return False


class ChatViewModel:
    """The chat of one book (or of the library): its threads, the open thread's messages, and the answer being
    streamed."""

    def __init__(
        self,
        quire: Quire,
        book_id: int | None,  # None: the whole library's conversation ("Ask your library")
        *,
        provider: Callable[[], ProviderConfig | None] = lambda: None,
        secrets: SecretStore | None = None,
        spoilers: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] = time.monotonic,
        spawn: Spawn,
    ) -> None:
        self.quire = quire
        self.book_id = book_id
        self.spawn = spawn  # the app's workers.thread: an answer streaming is counted work
        self.provider = provider
        self.secrets = secrets
        self.spoilers = spoilers
        self.clock = clock
        self.messages: list[Message] = []
        self.thread_id: int | None = None
        self.streaming = False
        self._stop = threading.Event()
        self._lock = threading.Lock()  # the reducer is fed by the worker and by stop()
        self._current: tuple[PartReducer, Callable[[], object]] | None = None
        latest = self.threads()
        if latest:
            self.open_thread(latest[0].id)

    # -- threads ------------------------------------------------------------------------------
    def threads(self) -> list[ThreadInfo]:
        return self.quire.chats.threads(self.book_id)

    def open_thread(self, thread_id: int) -> None:
        self.thread_id = thread_id
        self.messages = self.quire.chats.messages(thread_id)

    def new_thread(self) -> None:
        """An empty conversation; it is saved with its first question."""
        self.thread_id = None
        self.messages = []

    def rename(self, title: str) -> None:
        if self.thread_id is not None:
            self.quire.chats.rename(self.thread_id, title)

    def delete_thread(self) -> None:
        if self.thread_id is not None:
            self.quire.chats.delete(self.thread_id)
        latest = self.threads()
        self.open_thread(latest[0].id) if latest else self.new_thread()

    @property
    def title(self) -> str:
        return next((t.title for t in self.threads() if t.id == self.thread_id), "")

    # -- asking -------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        """'local-only', 'offline' (search answers, no provider) or the provider's kind."""
        if self.quire.local_only:
            return "local-only"
        config = self.provider()
        return config.kind if config else "offline"

    def events(self, question: str, selection: str = "", recap: bool = False) -> Generator[AgentEvent, None, None]:
        """The agent's events for a question in the open thread (offline answers without a provider; ``recap``:
        the story so far, told offline in the chapters' own sentences)."""
        return self.quire.ask(
            self.book_id,
            question,
            thread_id=self.thread_id,
            provider=None if recap else self.provider(),
            secrets=self.secrets,
            spoilers=self.spoilers(),
            selection=selection,
            recap=recap,
        )

    def ask(
        self, question: str, on_change: Callable[[], object], selection: str = "", recap: bool = False
    ) -> threading.Thread | None:
        """Stream an answer in a worker thread; ``on_change`` is called when the panel should redraw.

        ``selection`` is the passage selected in the reader: the agent gets a tool that reads it whole.
        ``recap``: the story so far up to the furthest place read (offline, cited), whatever the provider.
        """
        question = question.strip()
        if not question or self.streaming:
            return None
        self.messages.append(Message("user", parts=[Part("text", {"text": question})], book_id=self.book_id or 0))
        answer = Message("assistant", status="streaming", book_id=self.book_id or 0)
        self.messages.append(answer)
        reducer = PartReducer(answer, self.clock)
        self._stop.clear()
        self._current = (reducer, on_change)
        self.streaming = True

        def work() -> None:
            events = None
            try:
                events = self.events(question, selection, recap)  # inside: a book removed meanwhile is an error shown
                for event in events:
                    if isinstance(event, ThreadEvent):
                        self.thread_id = event.thread_id
                        continue
                    with self._lock:  # the event in flight when Stop was pressed is kept, as it was saved
                        reducer.apply(event)
                        due = reducer.flush_due()
                    if due:
                        on_change()
                    if self._stop.is_set():
                        break
            except Exception as error:  # a provider failure the agent did not turn into an event
                log.exception("the answer stopped with %s", type(error).__name__)  # a defect is seen in the log
                with self._lock:
                    reducer.apply(ErrorEvent(str(error) or type(error).__name__, type(error).__name__))
                    reducer.apply(Done("error"))
            finally:
                if events is not None:
                    events.close()  # saves the answer so far (a stopped one is kept, marked stopped)
                with self._lock:
                    if answer.status == "streaming":
                        answer.status = "stopped" if self._stop.is_set() else "complete"
                self.streaming = False
                self._current = None
                on_change()

        return self.spawn(work, "quire-chat")

    def stop(self) -> None:
        """Stop the answer being streamed; what arrived stays, marked stopped at once.

        The worker ends at the next streamed event (a running tool finishes first), then saves the answer.
        """
        self._stop.set()
        current = self._current
        if current is not None:
            reducer, on_change = current
            with self._lock:
                if reducer.message.status == "streaming":
                    reducer.apply(Done("stopped"))
            on_change()

    def regenerate(self, on_change: Callable[[], object]) -> threading.Thread | None:
        """Ask the last question again, replacing its answer."""
        if self.thread_id is None or self.streaming:
            return None
        question = self.quire.chats.drop_last_exchange(self.thread_id)
        if question is None:
            return None
        self.open_thread(self.thread_id)
        return self.ask(question, on_change)
