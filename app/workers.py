"""The app's background work, one way, in the spirit of Textual's ``@work``: coroutines scheduled onto the UI loop
from any thread (a redraw a worker asks for, a short job; in a named group, a new one cancels the one before),
threads for work that reports as it goes (an answer streaming, an index, a sync), each counted until it ends, and
loops that run while the window lives (``every``: a watched folder looked at again); ``await workers.idle()``,
``settled()`` and ``until(condition)`` are what the app tests wait on instead of sleeping. Nothing in the app
starts a task or a thread any other way (the architecture test holds it)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import flet as ft

_BY_PAGE: weakref.WeakKeyDictionary[ft.Page, Workers] = weakref.WeakKeyDictionary()
Spawn = Callable[[Callable[[], object], str], threading.Thread]  # ``Workers.thread``, as a view-model is handed it


class Workers:
    """``app.workers``: the page's UI loop and the work scheduled onto it, counted until it ends."""

    def __init__(self, page: ft.Page) -> None:
        self._page = page
        _BY_PAGE[page] = self
        self._lock = threading.Lock()
        self._pending = 0  # every piece of work not ended yet
        self._threads = 0  # of which threads (``thread``): an answer streaming, an index, a sync
        self._quiet: asyncio.Event | None = None  # made on the UI loop, set there when nothing is pending
        self._ticked: asyncio.Event | None = None  # set there each time a piece of work ends
        self._loop: asyncio.AbstractEventLoop | None = None
        self._groups: dict[str, Any] = {}  # group -> its latest work's future (``later(..., group=...)``)

    @staticmethod
    def of(page: ft.Page) -> Workers | None:
        """The workers of the app on ``page`` (None before the app is made): what a test harness waits on."""
        return _BY_PAGE.get(page)

    def later(self, handler: Callable[..., Awaitable[Any]], *args: Any, group: str | None = None, **kwargs: Any) -> Any:
        """Run the coroutine function on the UI loop (from any thread); its future. In a ``group`` (the library's
        search as it is typed), the group's work still running is cancelled first: the newest wins. Once the tab
        has gone (closed: its session has no connection, so no loop), nothing is run and the future is done at
        once: a worker still running (an answer, an index) asking for a redraw printed "'NoneType' object has no
        attribute 'loop'"."""
        if self.gone:
            finished: concurrent.futures.Future[Any] = concurrent.futures.Future()
            finished.set_result(None)
            return finished
        with self._lock:
            self._pending += 1

        async def run() -> Any:  # any callable that gives an awaitable, not only a coroutine function
            return await handler(*args, **kwargs)

        if group is not None and (former := self._groups.get(group)) is not None:
            former.cancel()  # the newest wins; it leaves the count through its done callback, run or not
        try:
            future = self._page.run_task(run)
        except BaseException:
            self._leave()
            raise
        future.add_done_callback(lambda _: self._leave())  # done, failed or cancelled (even before it began)
        if group is not None:
            self._groups[group] = future
        return future

    def cancel(self, group: str) -> None:
        """Cancel the group's work still waiting or running (a search whose box was emptied)."""
        if (former := self._groups.pop(group, None)) is not None:
            former.cancel()

    def request(self, handler: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> None:
        """Ask the client for something whose answer nothing waits on (a list scrolled to its place), on the UI
        loop. Not counted: the answer comes from the browser, and where there is none (a test with no client) it
        never comes, which would keep the app busy forever."""
        if not self.gone:
            self._page.run_task(handler, *args, **kwargs)

    def every(self, seconds: float, handler: Callable[[], Awaitable[Any]]) -> concurrent.futures.Future[None]:
        """Run ``handler`` every ``seconds`` on the UI loop for as long as the window lives (a watched folder
        looked at again): the loop ends once the tab has gone; its future. Not counted: it is never done while the
        window lives, so nothing waits for it."""

        async def loop() -> None:
            while not self.gone:
                await asyncio.sleep(seconds)
                if not self.gone:
                    await handler()

        return self._page.run_task(loop)

    @property
    def gone(self) -> bool:
        """Whether the page's tab has gone (its session lost its connection)."""
        session = getattr(self._page, "session", None)
        return session is not None and getattr(session, "connection", True) is None

    def thread(self, target: Callable[[], object], name: str) -> threading.Thread:
        """``target()`` in a thread of its own, started now and counted until it ends (an answer streaming, an
        index being built, a sync): for work that reports as it goes rather than once at its end."""
        with self._lock:
            self._pending += 1
            self._threads += 1

        def counted() -> None:
            try:
                target()
            finally:
                self._leave(thread=True)

        worker = threading.Thread(target=counted, name=name, daemon=True)
        try:
            worker.start()
        except BaseException:
            self._leave(thread=True)
            raise
        return worker

    def _leave(self, thread: bool = False) -> None:
        with self._lock:
            self._pending -= 1
            self._threads -= thread
            quiet = self._pending == 0
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if self._ticked is not None:
            loop.call_soon_threadsafe(self._ticked.set)
        if quiet and self._quiet is not None:
            loop.call_soon_threadsafe(self._quiet.set)

    def _events(self) -> tuple[asyncio.Event, asyncio.Event]:
        if self._quiet is None or self._ticked is None:
            self._loop = asyncio.get_running_loop()
            self._quiet, self._ticked = asyncio.Event(), asyncio.Event()
        return self._quiet, self._ticked

    async def idle(self, timeout: float = 60.0) -> None:
        """Wait until no work scheduled through here is pending, including work that work scheduled."""
        quiet, _ = self._events()
        async with asyncio.timeout(timeout):
            while True:
                with self._lock:
                    if self._pending == 0:
                        return
                    quiet.clear()
                await quiet.wait()

    async def settled(self, timeout: float = 60.0) -> None:
        """Wait until what was scheduled onto the UI loop has run (the redraws and short jobs an event starts),
        not the threads still working (an answer still streaming): what a test waits for after an event."""

        def loop_work_done() -> bool:
            with self._lock:
                return self._pending == self._threads

        await self.until(loop_work_done, timeout)

    async def until(self, condition: Callable[[], bool], timeout: float = 60.0) -> None:
        """Wait until ``condition()`` holds, checking it each time a piece of work ends (a streamed answer's
        redraw, say): for a state on the way, which ``idle`` would wait past."""
        _, ticked = self._events()
        async with asyncio.timeout(timeout):
            while True:
                ticked.clear()  # cleared before the check: an end after it wakes the wait below
                if condition():
                    return
                await ticked.wait()
