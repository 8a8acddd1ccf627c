"""Read-aloud (issue 29): sentences from a place, spoken by eSpeak NG (Debian's espeak-ng, through pyttsx3) into a
real WAV file whose length and per-sentence spans are measured with Python's wave module."""

import itertools
import json
import wave
from pathlib import Path

import pytest
from conftest import book_path, debian_file

from app.cli import main as cli
from core import Quire, VoiceUnavailable
from core.inside import sentence_spans

pytestmark = pytest.mark.storage  # reads the library: CI runs it again on the phones' backend (apsw)


def espeak() -> Path:
    return debian_file("/usr/bin/espeak-ng", "espeak-ng")


def _seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as audio:
        return audio.getnframes() / audio.getframerate()


def test_sentences_from_a_place_are_spoken_in_order_with_their_spans_in_the_audio(
    alice_quire: Quire, tmp_path: Path
) -> None:
    espeak()
    alice_quire.save_position(1, "3.2")
    text = alice_quire.text.show(1, "3.2")[0].text
    expected = [text[a:b] for a, b in sentence_spans(text)]
    spoken = alice_quire.speech.save(1, tmp_path / "alice.wav", count=3)
    assert [s.text for s in spoken] == (expected + [s.text for s in alice_quire.speech.sentences(1, "3.3", 3)])[:3]
    assert str(spoken[0].start) == "3.2:0" and spoken[0].audio_start == 0
    for before, after in itertools.pairwise(spoken):  # one after another, no gap, no overlap
        assert after.audio_start == pytest.approx(before.audio_end, abs=0.002) and after.audio_end > after.audio_start
    length = _seconds(tmp_path / "alice.wav")
    assert length == pytest.approx(spoken[-1].audio_end, abs=0.01) and length > 3  # real speech, not silence
    longest = max(spoken, key=lambda s: len(s.text))
    assert longest.audio_end - longest.audio_start == max(s.audio_end - s.audio_start for s in spoken)
    assert str(alice_quire.position(1).locator) == "3.2"  # reading aloud to a file does not move the place


def test_a_place_inside_a_paragraph_starts_at_its_sentence_and_chinese_gets_a_chinese_voice(
    quire: Quire, tmp_path: Path
) -> None:
    espeak()
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book.id
    paragraph = next(s for s in quire.text.segments(book, 30, 40) if s.text.count("。") >= 2)
    cut = paragraph.text.index("。") + 1
    [first] = quire.speech.sentences(book, f"{paragraph.locator}:{cut + 1}", 1)
    assert first.text == paragraph.text[cut : paragraph.text.index("。", cut) + 1].strip()
    spoken = quire.speech.save(book, tmp_path / "nahan.wav", f"{paragraph.locator}:{cut + 1}", 2)
    assert len(spoken) == 2 and _seconds(tmp_path / "nahan.wav") > 1


def test_quire_speak_writes_the_audio_and_says_when_no_voice_can(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    espeak()
    library = ["--library", str(tmp_path / "lib")]
    assert cli([*library, "import", str(book_path("en/epubjs-alice.epub"))]) == 0
    capsys.readouterr()
    out = tmp_path / "out.wav"
    assert cli([*library, "speak", "1", "3.2", "-n", "2", "-o", str(out), "--json"]) == 0
    spoken = json.loads(capsys.readouterr().out)
    assert spoken[0]["start"] == "3.2:0" and spoken[-1]["audio_end"] == pytest.approx(_seconds(out), abs=0.01)
    assert cli([*library, "speak", "1"]) == 1 and "-o FILE.wav" in capsys.readouterr().err
    from core.speech import voice

    def no_voice():
        raise VoiceUnavailable(
            "no system voice found: on Linux install eSpeak NG (apt-get install espeak-ng), then try again"
        )

    # a computer with neither eSpeak NG nor another speech engine
    monkeypatch.setattr(voice, "pyttsx3_engine", no_voice)
    monkeypatch.setattr(voice.shutil, "which", lambda name: None)
    assert cli([*library, "speak", "1", "-o", str(tmp_path / "none.wav")]) == 1
    assert "install eSpeak NG" in capsys.readouterr().err and not (tmp_path / "none.wav").exists()
