"""Phone services while reading: keep the screen on (a setting) and a haptic tick on page turns (a setting)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import flet as ft

from platform_adapters.mobile import phone_os

log = logging.getLogger(__name__)
PHONES = (ft.PagePlatform.ANDROID, ft.PagePlatform.IOS)


def is_phone_app(page: ft.Page) -> bool:
    """The app runs on a phone (Android or iOS), not in a phone's browser: the one place this is decided."""
    return bool(phone_os()) or (page.platform in PHONES and not page.web)


class ReadingDevice:
    """Asks the device to stay awake while a book is open and to tick when a page turns.

    Only on phones: a desktop or a browser tab has no wake lock to hold. Each request runs as a page task
    (the services are asynchronous); a device that refuses is logged, never shown as an error to a reader.
    """

    def __init__(self, page: ft.Page, on_phone: Callable[[], bool], later: Callable[..., object]) -> None:
        self.page = page
        self.on_phone = on_phone
        self._later = later  # the app's workers.later: counted, so tests can wait for it
        self.awake = False  # whether this app holds the wake lock now
        self._services: dict[str, ft.Service] = {}  # kept here: the page holds services only weakly

    def _service(self, kind: type[ft.Service]) -> ft.Service:
        name = kind.__name__
        if name not in self._services:
            self._services[name] = kind()
        return self._services[name]

    def _call(self, kind: type[ft.Service], method: str) -> None:
        async def call() -> None:
            try:
                await getattr(self._service(kind), method)()
            except (RuntimeError, TimeoutError) as error:  # the client reported a failure, or did not answer
                log.warning("%s.%s failed on this device: %s", kind.__name__, method, error)

        self._later(call)

    def reading(self, book_open: bool, keep_screen_on: bool) -> None:
        """Hold the wake lock while a book is open and the setting is on; release it otherwise."""
        wanted = book_open and keep_screen_on and self.on_phone()
        if wanted != self.awake:
            self.awake = wanted
            self._call(ft.Wakelock, "enable" if wanted else "disable")

    def page_turned(self, haptic: bool) -> None:
        """A light tick for a page turn, when the reader asked for it."""
        if haptic and self.on_phone():
            self._call(ft.HapticFeedback, "light_impact")
