"""Speakers: what says one sentence aloud and stops when asked (eSpeak NG, pyttsx3, or WAV files in real time).

Read-aloud in the reader (``core.speech.session``) speaks a sentence at a time through one of these, so that the
highlight and the page can follow the sentence being spoken. Each ``speak`` blocks until the sentence was said or
``stop`` was called from another thread.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from core.speech.voice import VoiceUnavailable, espeak_voice, pyttsx3_engine


@dataclass(frozen=True, slots=True)
class VoiceChoice:
    """A system voice a reader can pick: its id (what the speaker is given) and its name."""

    id: str
    name: str
    language: str


class Speaker(Protocol):
    """Says sentences aloud, one at a time."""

    def voices(self, language: str) -> list[VoiceChoice]:
        """The voices that speak ``language`` ("en", "zh"), best first."""
        ...

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        """Say ``text``; returns once it was said, or soon after ``cut`` is set (from another thread).
        VoiceUnavailable when it cannot."""
        ...


POLL = 0.05  # s: how often a sentence being spoken checks whether it was cut short
_VOICE_LINE = re.compile(r"^\s*\d+\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)")


def espeak_voices(language: str) -> list[VoiceChoice]:
    """eSpeak NG's voices for a language, from ``espeak-ng --voices=LANG`` (its own listing, best first)."""
    command = shutil.which("espeak-ng")
    if command is None:
        return []
    code = espeak_voice(language)
    done = subprocess.run([command, f"--voices={code}"], capture_output=True, text=True, timeout=30, check=False)
    found = []
    for line in done.stdout.splitlines()[1:]:
        match = _VOICE_LINE.match(line)
        if match:
            spoken, name, file = match.groups()
            found.append(VoiceChoice(file, name.replace("_", " "), spoken))
    return found


class EspeakSpeaker:
    """eSpeak NG's own command, playing on the sound device (Linux). Without a sound device it fails at once with
    ALSA's errors on stderr and exit code 0: that is reported as VoiceUnavailable, not taken as spoken."""

    def __init__(self) -> None:
        command = shutil.which("espeak-ng")
        if command is None:
            raise VoiceUnavailable("reading aloud needs eSpeak NG here: install it (apt-get install espeak-ng)")
        self._command = command

    def voices(self, language: str) -> list[VoiceChoice]:
        return espeak_voices(language)

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        arguments = [self._command, "-v", voice or espeak_voice(language), "-s", str(rate), "--", text]
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=errors)
            while process.poll() is None:
                if cut.wait(POLL):
                    process.terminate()
                    process.wait(10)
                    return
            errors.seek(0)
            said = errors.read().decode("utf-8", "replace")
        if "Unknown PCM" in said or "cannot find card" in said:
            raise VoiceUnavailable("no sound device to read aloud on: connect or enable one, then try again")
        if process.returncode != 0:
            raise VoiceUnavailable(f"eSpeak NG could not speak ({said.strip()[:200] or process.returncode})")


class WavSpeaker:
    """Speaks each sentence into a numbered WAV file in ``folder`` with eSpeak NG, then waits as long as the audio
    lasts, as a sound device would (``stop`` cuts the wait short). For a machine without sound (``QUIRE_SPEECH_TO``)
    and for tests, which measure the files."""

    def __init__(self, folder: Path) -> None:
        command = shutil.which("espeak-ng")
        if command is None:
            raise VoiceUnavailable("reading aloud needs eSpeak NG here: install it (apt-get install espeak-ng)")
        self._command = command
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.spoken: list[tuple[Path, str]] = []  # each file written, with the sentence it holds

    def voices(self, language: str) -> list[VoiceChoice]:
        return espeak_voices(language)

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        path = self.folder / f"{len(self.spoken):05d}.wav"
        done = subprocess.run(
            [self._command, "-v", voice or espeak_voice(language), "-s", str(rate), "-w", str(path), "--", text],
            capture_output=True, timeout=120, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not path.exists():
            raise VoiceUnavailable(f"eSpeak NG wrote no audio ({done.stderr.decode('utf-8', 'replace')[:200]})")
        self.spoken.append((path, text))
        with wave.open(str(path), "rb") as audio:
            seconds = audio.getnframes() / audio.getframerate()
        cut.wait(seconds)


class Pyttsx3Speaker:
    """The system's voices through pyttsx3: SAPI5 on Windows, NSSpeechSynthesizer on macOS (not run here: this
    machine is Linux, where eSpeak NG's command is used instead)."""

    def __init__(self) -> None:
        self._engine: Any = pyttsx3_engine()

    def voices(self, language: str) -> list[VoiceChoice]:
        code = (language or "en").split("-")[0].lower()
        found = []
        for voice in self._engine.getProperty("voices"):
            spoken = [str(x).lower().lstrip("\x05") for x in (getattr(voice, "languages", None) or [])]
            if any(s.replace("_", "-").split("-")[0] == code for s in spoken):
                found.append(VoiceChoice(str(voice.id), str(voice.name), spoken[0]))
        return found

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        if voice:
            self._engine.setProperty("voice", voice)
        self._engine.setProperty("rate", rate)

        def word(name: str, location: int, length: int) -> None:  # between words: stop if asked
            if cut.is_set():
                self._engine.stop()

        token = self._engine.connect("started-word", word)
        try:
            self._engine.say(text)
            self._engine.runAndWait()
        finally:
            self._engine.disconnect(token)


def system_speaker(wav_folder: Path | None = None) -> Speaker:
    """This computer's speaker: WAV files in ``wav_folder`` if given, else eSpeak NG where it is installed
    (Linux), else pyttsx3 (Windows, macOS). VoiceUnavailable when there is none."""
    if wav_folder is not None:
        return WavSpeaker(wav_folder)
    if shutil.which("espeak-ng") is not None:
        return EspeakSpeaker()
    return Pyttsx3Speaker()
