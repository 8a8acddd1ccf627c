"""The system's own voices: a book's sentences written to one WAV file, with where each sentence starts and ends.

Linux speaks with eSpeak NG's own command (``espeak-ng -w``); Windows and macOS through pyttsx3 (SAPI5,
NSSpeechSynthesizer). On Linux pyttsx3's eSpeak driver, asked for two files in a row by one engine, wrote the
first and then nothing (seen here with two sentences of 呐喊), so the command is used there. Each sentence is spoken
to its own file first, so its length in the audio is known (a highlight and page turns can follow those times);
the files are then joined with Python's ``wave``. Phones have neither: a Flet extension around a Flutter
text-to-speech package would be needed there (not built).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import QuireError

DEFAULT_SPEECH_RATE = 175
"""Read-aloud's pace at 1×, in words a minute."""


class VoiceUnavailable(QuireError):
    """No system voice can speak here (no pyttsx3, or no speech engine such as eSpeak NG)."""


@dataclass(frozen=True, slots=True)
class SpokenSpan:
    """A sentence's place in the audio, in seconds."""

    start: float
    end: float


def pyttsx3_engine() -> Any:
    try:
        import pyttsx3
    except ImportError as error:
        raise VoiceUnavailable("reading aloud needs pyttsx3, which is installed on computers only") from error
    try:
        return pyttsx3.init()
    except (RuntimeError, OSError, ImportError) as error:  # no driver: no espeak-ng library on Linux
        raise VoiceUnavailable(
            "no system voice found: on Linux install eSpeak NG (apt-get install espeak-ng), then try again"
        ) from error


def voice_for(engine: Any, language: str) -> str | None:
    """The id of a system voice speaking the book's language (eSpeak NG's "cmn" for Chinese), or None."""
    code = (language or "en").split("-")[0].lower()
    wanted = {"zh": ("cmn", "zh", "yue")}.get(code, (code,))
    for voice in engine.getProperty("voices"):
        tail = str(voice.id).rsplit("/", 1)[-1].lower()
        spoken = [str(x).lower().lstrip("\x05") for x in (getattr(voice, "languages", None) or [])]
        if tail in wanted or any(s.split("-")[0] in wanted for s in spoken):
            return str(voice.id)
    return None


def espeak_voice(language: str) -> str:
    code = (language or "en").split("-")[0].lower()
    return {"zh": "cmn"}.get(code, code)


def _write(sentences: list[str], folder: Path, language: str, rate: int) -> list[Path]:
    """Each sentence spoken to its own WAV file in ``folder``."""
    command = shutil.which("espeak-ng")
    parts = [folder / f"{number}.wav" for number in range(len(sentences))]
    if command is not None:
        for sentence, part in zip(sentences, parts, strict=True):
            text = sentence.encode("utf-8", "replace")  # on stdin: a sentence over 128 KiB is no argument list's
            done = subprocess.run([command, "-v", espeak_voice(language), "-s", str(rate), "-w", str(part),
                                   "--stdin"], input=text, capture_output=True, timeout=600, check=False)  # fmt: skip
            if done.returncode != 0:  # an unknown voice: the default one reads it
                subprocess.run([command, "-s", str(rate), "-w", str(part), "--stdin"], input=text,
                               capture_output=True, timeout=600, check=False)  # fmt: skip
        return parts
    engine = pyttsx3_engine()
    voice = voice_for(engine, language)
    if voice is not None:
        engine.setProperty("voice", voice)
    engine.setProperty("rate", rate)
    for sentence, part in zip(sentences, parts, strict=True):
        with contextlib.redirect_stdout(io.StringIO()):  # pyttsx3 prints "Audio saved to …"
            engine.save_to_file(sentence, str(part))
            engine.runAndWait()
    return parts


def write_samples(path: Path, samples: Any, sample_rate: int) -> None:
    """16-bit mono samples (a numpy array) into the WAV file ``path``."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(samples.astype("<i2").tobytes())


def save(
    sentences: list[str],
    path: Path,
    language: str = "en",
    rate: int = DEFAULT_SPEECH_RATE,
    write: Callable[[list[str], Path, str, int], list[Path]] | None = None,
) -> list[SpokenSpan]:
    """Write the sentences, spoken in turn, to the WAV file ``path``; each sentence's span in it. ``write`` makes
    each sentence's own file in a folder (default: the system's voice for the language)."""
    spans: list[SpokenSpan] = []
    folder_there = Path(path).parent
    if not folder_there.is_dir() or Path(path).is_dir() or not os.access(folder_there, os.W_OK):
        raise QuireError(f"cannot write '{path}': its folder is missing or not writable; choose another file")
    with tempfile.TemporaryDirectory() as folder:
        parts = (write or _write)(sentences, Path(folder), language, rate)
        if not all(part.exists() and part.stat().st_size > 44 for part in parts):
            raise VoiceUnavailable("the system voice wrote no audio: check the speech engine (eSpeak NG on Linux)")
        at = 0.0
        try:
            with wave.open(str(path), "wb") as out:
                for number, part in enumerate(parts):
                    with wave.open(str(part), "rb") as piece:
                        if number == 0:
                            out.setparams(piece.getparams())
                        frames = piece.readframes(piece.getnframes())
                        out.writeframes(frames)
                        length = piece.getnframes() / piece.getframerate()
                    spans.append(SpokenSpan(round(at, 3), round(at + length, 3)))
                    at += length
        except OSError as error:  # a full disk (/dev/full), a file taken away
            raise QuireError(f"cannot write '{path}': {error.strerror or error}; choose another file") from None
    return spans
