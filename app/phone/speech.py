"""Read-aloud on phones: the ``Speaker`` that speaks through the flet-tts extension (extensions/flet-tts)."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Callable
from typing import Any

from core import VoiceChoice, VoiceUnavailable

SPEAK_TIMEOUT = 600.0  # s: the longest sentence a phone is waited for
POLL = 0.05  # s: how often a sentence being spoken checks whether it was cut short


def phone_voices_available() -> bool:
    """Whether this app was built with the flet-tts extension (``flet build`` installs it on phones)."""
    return importlib.util.find_spec("flet_tts") is not None


class PhoneSpeaker:
    """Speaks on the phone's own voices. Called from the read-aloud worker thread: each call runs on the page's
    event loop and is waited for there."""

    def __init__(self, later: Callable[..., Any]) -> None:
        if not phone_voices_available():
            raise VoiceUnavailable("this build has no voices for reading aloud (the flet-tts extension is missing)")
        from flet_tts import TextToSpeech

        self.later = later  # the app's workers.later: the service is called on the UI loop
        self.service: Any = TextToSpeech()  # kept here: the page holds services only weakly

    def _call(self, method: str, *args: Any, cut: threading.Event | None = None) -> Any:
        async def call() -> Any:
            return await getattr(self.service, method)(*args)

        future = self.later(call)
        deadline = time.monotonic() + SPEAK_TIMEOUT
        while True:
            try:
                return future.result(POLL)
            except TimeoutError:  # not answered yet
                if time.monotonic() > deadline:
                    raise VoiceUnavailable("the phone did not answer: try reading aloud again") from None
                if cut is not None and cut.is_set():
                    self.later(self.service.stop)  # the phone stops; its speak() then answers
                    cut = None
            except RuntimeError as error:  # the phone reported a failure
                raise VoiceUnavailable(f"the phone could not read aloud: {error}") from error

    def voices(self, language: str) -> list[VoiceChoice]:
        return [VoiceChoice(v["name"], v["name"], v["locale"]) for v in self._call("voices", language)]

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        self._call("speak", text, language, rate, voice, cut=cut)
