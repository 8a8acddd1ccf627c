"""The reader's read-aloud: the book spoken from the page (or a selection) with the sentence highlighted, the page
following it, and pause, resume, stop, speed and voice in a bar above the page-turn row."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

import flet as ft

from app.a11y import IconButton
from app.look.theme import ALOUD
from app.phone.speech import PhoneSpeaker
from app.screens.reader.marking import ReaderScreen
from app.screens.reader.model import ReaderViewModel
from app.screens.reader.notes import Mark
from app.screens.reader.speech_file import offer_speech_file
from core import (
    DEFAULT_SPEECH_RATE,
    Locator,
    QuireError,
    ReadAloud,
    Speaker,
    VoiceChoice,
    VoiceUnavailable,
    system_speaker,
)

if TYPE_CHECKING:
    from app.port import Port

SPEEDS = (0.75, 1.0, 1.25, 1.5, 2.0)  # times the normal pace


def follow(model: ReaderViewModel, start: Locator, ordinal: int) -> None:
    """Show the page holding ``start`` (in segment ``ordinal``), turning pages on as reading does; in scroll mode
    (and page view) its paragraph comes to the top."""
    assert model.current is not None, "open() first"
    if model.box is None or model.page_view:
        if model.current.ordinal != ordinal:
            model.go_to(start.segment_locator, jump=False)
        return
    here = (ordinal, start.offset or 0)
    if here < model.page_start:
        model.go_to(start.segment_locator, jump=False)
    for _ in range(100):  # pages turned at most, from one sentence to the next
        last = model.page()[-1]
        before = model.page_start
        if here < (last.segment.ordinal, last.end):
            return
        model.next_page()
        if model.page_start == before:  # the last page
            return


class AloudController:
    """``reading.aloud``: one read-aloud session for the open book, and its bar."""

    def __init__(self, app: Port, screen: ReaderScreen) -> None:
        self.app = app
        self.screen = screen
        self.session: ReadAloud | None = None
        self.voices: list[VoiceChoice] = []  # the speaker's voices for the book's language (loaded on start)

    @property
    def active(self) -> bool:
        """Reading aloud or paused: the bar shows."""
        return self.session is not None and self.session.state != "stopped"

    def speaker(self) -> Speaker:
        """The phone's voices (the flet-tts extension), or this computer's; ``$QUIRE_SPEECH_TO`` names a folder
        to speak into as WAV files instead (a computer without sound)."""
        if self.app.on_phone:
            return PhoneSpeaker(self.app.workers.later)
        folder = os.environ.get("QUIRE_SPEECH_TO")
        return system_speaker(Path(folder) if folder else None)

    def start(self) -> None:
        """Read aloud from the selection's start, else from the top of the page."""
        model, app = self.screen.model, self.app
        if model is None or model.current is None:
            return
        if model.pictures:
            app.notify(app.t("aloud.no_text"))
            return
        self.stop()
        try:
            speaker = self.speaker()
        except VoiceUnavailable as error:
            app.notify(app.t.error(error))
            return
        selection = model.notes.selection
        if selection is not None:
            segment = next((s for s in model.visible if s.ordinal == selection.ordinal), None)
            start = segment.locator.at(selection.start) if segment is not None else model.current.locator
        else:
            start = model.current.locator.at(model.offset) if model.offset else model.current.locator
        settings = app.settings
        self.session = app.quire.speech.session(
            model.book.id, speaker, self._changed, settings.speech_rate, settings.speech_voice or None
        )
        self.session.play(start)
        app.workers.later(self._load_voices, self.session)

    async def _load_voices(self, session: ReadAloud) -> None:
        try:
            self.voices = await asyncio.to_thread(session.speaker.voices, session.language)
        except QuireError:
            self.voices = []
        if self.session is session and self.active:
            self.screen.redraw()

    def _changed(self) -> None:
        """A sentence started, or the session paused or ended (called on its worker thread)."""
        self.app.workers.later(self._follow)

    async def _follow(self) -> None:
        session, model, app = self.session, self.screen.model, self.app
        if session is None or model is None:
            return
        sentence = session.sentence
        if session.state == "playing" and sentence is not None:
            ordinal = app.quire.text.ordinal_of(model.book.id, sentence.start)
            follow(model, sentence.start, ordinal)  # turns the page, saving the place as reading
            model.aloud = Mark(ordinal, sentence.start.offset or 0, sentence.end.offset or 0, ALOUD)
        elif session.state == "stopped":
            model.aloud = None
            shown = session.sentence.start if session.sentence is not None else model.current
            if session.error is not None and not app.on_phone and shown is not None:  # no sound: offer a file
                at = shown if isinstance(shown, Locator) else shown.locator
                app.workers.later(offer_speech_file, app, model.book.id, model.book.title, session.language, at,
                                  app.t.error(session.error))  # fmt: skip
            elif session.error is not None:
                app.notify(app.t.error(session.error))
            elif session.finished:
                app.notify(app.t("aloud.finished"))
        self.screen.redraw()

    def toggle(self) -> None:
        """Pause, or resume (the sentence cut short is said again from its start)."""
        if self.session is None:
            return
        if self.session.state == "playing":
            self.session.pause()
        else:
            self.session.resume()
        self.screen.redraw()

    def stop(self) -> None:
        """Stop reading aloud; the place stays where the reading reached."""
        session, model = self.session, self.screen.model
        self.session = None
        if session is not None:
            session.stop()
        if model is not None:
            model.aloud = None
            if session is not None:
                model.place.save()

    def set_speed(self, factor: float) -> None:
        rate = round(DEFAULT_SPEECH_RATE * factor)
        self.app.settings.speech_rate = rate
        self.app.store.save(self.app.settings)
        if self.session is not None:
            self.session.set_rate(rate)

    def set_voice(self, voice: str) -> None:
        self.app.settings.speech_voice = voice
        self.app.store.save(self.app.settings)
        if self.session is not None:
            self.session.set_voice(voice or None)

    def bar(self) -> ft.Control | None:
        """Pause or resume, stop, speed and voice; None when not reading aloud."""
        if not self.active:
            return None
        assert self.session is not None
        t = self.app.t
        playing = self.session.state == "playing"
        factor = self.app.settings.speech_rate / DEFAULT_SPEECH_RATE
        speed = ft.Dropdown(
            value=str(min(SPEEDS, key=lambda s: abs(s - factor))),
            options=[ft.dropdown.Option(str(s), f"{s:g}×") for s in SPEEDS],
            width=96,
            dense=True,
            tooltip=t("aloud.speed"),
            on_select=lambda e: self.set_speed(float(e.control.value or 1)),
        )
        controls: list[ft.Control] = [
            IconButton(
                ft.Icons.PAUSE if playing else ft.Icons.PLAY_ARROW,
                tooltip=t("aloud.pause") if playing else t("aloud.resume"),
                on_click=lambda e: self.toggle(),
            ),
            IconButton(ft.Icons.STOP, tooltip=t("aloud.stop"), on_click=lambda e: self.stop_and_redraw()),
            speed,
        ]
        if self.voices:
            controls.append(
                ft.Dropdown(
                    value=self.app.settings.speech_voice,
                    options=[ft.dropdown.Option("", t("aloud.voice.default"))]
                    + [ft.dropdown.Option(v.id, v.name) for v in self.voices],
                    width=180,
                    dense=True,
                    tooltip=t("aloud.voice"),
                    on_select=lambda e: self.set_voice(e.control.value or ""),
                )
            )
        return ft.Row(controls, alignment=ft.MainAxisAlignment.CENTER, wrap=True, key="read-aloud")

    def stop_and_redraw(self) -> None:
        self.stop()
        self.screen.redraw()
