"""The TextToSpeech service: its methods are carried out by lib/src/text_to_speech.dart on the phone."""

from __future__ import annotations

from typing import Any

import flet as ft

NORMAL_RATE = 175  # words a minute that flutter_tts's 0.5 (its normal pace) is taken to be


def flutter_rate(words_a_minute: int) -> float:
    """flutter_tts's rate (0-1, 0.5 normal on Android and iOS) for a pace in words a minute."""
    return round(min(max(words_a_minute / NORMAL_RATE * 0.5, 0.1), 1.0), 3)


@ft.control("TextToSpeech")
class TextToSpeech(ft.Service):
    """Speaks text with the phone's own voices."""

    async def speak(self, text: str, language: str, rate: int = NORMAL_RATE, voice: str | None = None) -> bool:
        """Say ``text`` in ``language`` (a BCP 47 tag: "en-US", "zh-CN"); True once it was said, False if stopped
        or the phone could not speak it. Waits as long as the speech lasts."""
        args = {"text": text, "language": language, "rate": flutter_rate(rate), "voice": voice or ""}
        return bool(await self._invoke_method("speak", args, timeout=600))

    async def stop(self) -> None:
        await self._invoke_method("stop")

    async def voices(self, language: str) -> list[dict[str, Any]]:
        """The phone's voices for ``language`` ("en", "zh"): each ``{"name": …, "locale": …}``."""
        found = await self._invoke_method("voices", {"language": language})
        return list(found or [])
