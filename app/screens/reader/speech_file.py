"""Read aloud into a file, for a computer that cannot play sound: the reader chooses a voice and how much to read,
and the speech is written as a WAV file where they say (``quire speak``'s path, ``quire.speech.save``).

Offered when reading aloud fails on a computer (no sound device: eSpeak NG has nothing to play on): before, that
ended in a snackbar and the voices were never seen. Phones play through the system's speech and never get here.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import flet as ft

from app.keys import text_field
from core import QuireError, safe_file_name, system_speaker

if TYPE_CHECKING:
    from app.port import Port
    from core import Locator

SENTENCES = (20, 50, 100, 300)  # how much to read into the file


def speech_file_name(title: str, start: Locator) -> Path:
    """Where the speech goes unless the reader says otherwise: the home folder, named for the book and place."""
    return Path.home() / f"{safe_file_name(title, 'speech')} {start}.wav"


async def offer_speech_file(app: Port, book_id: int, title: str, language: str, start: Locator, why: str) -> None:
    """Say why the book could not be read aloud, and offer to read it into a file with a voice the reader picks."""
    t = app.t
    try:
        voices = await asyncio.to_thread(lambda: system_speaker(None).voices(language))
    except QuireError:
        voices = []
    voice = ft.Dropdown(
        label=t("aloud.voice"),
        value=voices[0].id if voices else "",
        options=[ft.dropdown.Option("", t("aloud.voice.default"))] + [ft.dropdown.Option(v.id, v.name) for v in voices],
        width=320,
    )
    amount = ft.Dropdown(
        label=t("aloud.file.amount"),
        value=str(SENTENCES[1]),
        options=[ft.dropdown.Option(str(n), t("aloud.file.sentences", n=n)) for n in SENTENCES],
        width=320,
    )
    path = text_field(label=t("aloud.file.path"), value=str(speech_file_name(title, start)), width=420)

    async def save(e: ft.Event[Any]) -> None:
        app.pop_dialog()
        app.workers.later(write_speech, app, book_id, start, Path(path.value or "").expanduser(),
                          int(amount.value or 50), voice.value or None)  # fmt: skip

    app.show_dialog(
        ft.AlertDialog(
            title=ft.Text(t("aloud.file")),
            content=ft.Column(
                [ft.Text(t("aloud.file.about", why=why), size=12), voice, amount, path], tight=True, spacing=12
            ),
            actions=[
                ft.TextButton(t("common.cancel"), on_click=lambda e: app.pop_dialog()),
                ft.FilledButton(t("aloud.file.save"), on_click=save),
            ],
        )
    )


async def write_speech(app: Port, book_id: int, start: Locator, path: Path, count: int, voice: str | None) -> None:
    """Write ``count`` sentences from ``start`` into ``path`` behind the screen; say where, and how long, or why not."""
    app.notify(app.t("aloud.file.writing", n=count))
    speak = partial(app.quire.speech.save, book_id, path, start, count, app.settings.speech_rate, voice)
    try:
        spoken = await asyncio.to_thread(speak)
    except QuireError as error:
        app.notify(app.t.error(error))
        return
    minutes = spoken[-1].audio_end / 60 if spoken else 0.0
    app.notify(app.t("aloud.file.done", n=len(spoken), minutes=f"{minutes:.1f}", path=str(path)))
