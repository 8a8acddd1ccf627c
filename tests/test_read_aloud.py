"""Read-aloud in the reader (issue 29): sentence after sentence spoken by eSpeak NG into real WAV files (measured
with sox), paused, resumed, stopped and sped up; the highlight and the page follow the sentence; and the phone's
speaker (the flet-tts extension) speaks over Flet's own protocol."""

import asyncio
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import book_path, debian_file
from fletkit import find, fire, new_session
from waiting import until

from app.screens.reader.model import ReaderViewModel
from app.screens.reader.pagination import PageBox
from app.screens.reader.read_aloud import follow
from app.shell import QuireApp
from app.workers import Workers
from core import Quire, VoiceUnavailable
from core.inside import sentence_spans
from core.speech.speakers import EspeakSpeaker, WavSpeaker, espeak_voices
from platform_adapters.memory import MemorySecrets

pytestmark = pytest.mark.storage


def soxi(path: Path) -> float:
    """The audio's length in seconds, as sox measures it."""
    tool = debian_file("/usr/bin/soxi", "sox")
    return float(
        subprocess.run([str(tool), "-D", str(path)], capture_output=True, text=True, check=True, timeout=60).stdout
    )


def test_sentences_are_said_in_order_and_pause_resume_speed_and_stop_work(alice_quire: Quire, tmp_path: Path) -> None:
    debian_file("/usr/bin/espeak-ng", "espeak-ng")
    speaker = WavSpeaker(tmp_path / "audio")
    seen: list[str] = []
    session = alice_quire.speech.session(1, speaker, lambda: seen.append(session.state), rate=300)
    text = alice_quire.text.show(1, "3.2")[0].text
    expected = [text[a:b] for a, b in sentence_spans(text)]
    session.play(alice_quire.text.show(1, "3.2")[0].locator)
    until(lambda: len(speaker.spoken) >= 2)
    assert [t for _, t in speaker.spoken[:2]] == expected[:2]  # the paragraph's own sentences, in order
    said = session.sentence
    session.pause()
    assert session.state == "paused" and session.sentence == said and seen[-1] == "paused"
    assert session.wait(5)  # pausing ends the worker: nothing speaks until resume starts another
    count = len(speaker.spoken)
    assert len(speaker.spoken) == count  # nothing is said while paused
    session.resume()
    until(lambda: len(speaker.spoken) > count)
    assert speaker.spoken[count][1] == said.text  # the sentence cut short is said again from its start
    before = len(speaker.spoken)
    session.set_rate(450)
    until(lambda: len(speaker.spoken) >= before + 2)
    session.stop()
    assert session.state == "stopped" and session.sentence is None and session.wait(5)
    stopped_at = len(speaker.spoken)  # the worker has ended (session.wait above): nothing speaks any more
    assert len(speaker.spoken) == stopped_at
    # sox measures each file: real speech, longer for a longer sentence, shorter per letter at the higher speed
    lengths = {path: soxi(path) for path, _ in speaker.spoken}
    assert all(seconds > 0.3 for seconds in lengths.values())
    slow = [(lengths[p], len(t)) for p, t in speaker.spoken[:before]]
    fast = [(lengths[p], len(t)) for p, t in speaker.spoken[before + 1 :]]
    per_letter = lambda pairs: sum(s for s, _ in pairs) / sum(n for _, n in pairs)  # noqa: E731
    assert per_letter(fast) < per_letter(slow) * 0.85


def test_the_book_end_finishes_and_a_missing_sound_device_is_said(
    quire: Quire, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    debian_file("/usr/bin/espeak-ng", "espeak-ng")
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book.id
    last = quire.text.segments(book, quire.book(book).segment_count - 1, 1)[0]
    speaker = WavSpeaker(tmp_path / "audio")
    done = threading.Event()
    session = quire.speech.session(book, speaker, lambda: session.state == "stopped" and done.set(), rate=450)
    cut = last.text.index("。") + 1 if "。" in last.text[:-1] else 0
    session.play(last.locator.at(cut))
    assert done.wait(60) and session.finished and session.error is None
    assert speaker.spoken and all(t in last.text for _, t in speaker.spoken)  # Chinese split at 。, to the end
    assert any(v.language.startswith("cmn") for v in espeak_voices("zh"))  # a Mandarin voice to pick
    # A computer whose sound device cannot be opened (ALSA finds none): said, not taken as spoken.
    empty = tmp_path / "asound.conf"
    empty.write_text("")
    monkeypatch.setenv("ALSA_CONFIG_PATH", str(empty))
    ended = threading.Event()
    live = quire.speech.session(book, EspeakSpeaker(), lambda: live.state == "stopped" and ended.set())
    live.play(last.locator)
    assert ended.wait(30) and isinstance(live.error, VoiceUnavailable) and "sound device" in str(live.error)


def test_the_page_follows_the_sentence_read_and_the_place_moves_on_as_reading(alice_quire: Quire) -> None:
    now = [0.0]
    model = ReaderViewModel(alice_quire, 1, clock=lambda: now[0])  # the time a voice takes to read the page
    model.open()  # at the book's start: what is read from here on counts as read
    model.set_box(PageBox(width=360, height=300, font_size=18, line_height=1.6))
    page = model.page()
    last = page[-1]
    start = model.page_start
    assert follow(model, page[0].segment.locator, page[0].segment.ordinal) is None and model.page_start == start
    following = alice_quire.text.segments(1, last.segment.ordinal + 1, 1)[0]
    at = following.locator if last.end >= len(last.segment.text) else last.segment.locator.at(last.end)
    ordinal = following.ordinal if last.end >= len(last.segment.text) else last.segment.ordinal
    assert alice_quire.position(1) is None  # nothing read yet
    now[0] += 60  # a page read aloud at 175 words a minute
    follow(model, at, ordinal)
    assert model.page_start > start  # the next page, where the sentence is
    assert any(s.segment.ordinal == ordinal for s in model.page())
    assert alice_quire.position(1).furthest_ordinal >= model.page_start[0] > 0  # read on, not jumped


def _app(quire: Quire, session) -> QuireApp:
    app = QuireApp(session.page, quire, secrets=MemorySecrets())
    app.render()
    return app


@pytest.mark.parametrize("width", [1440, 390])
def test_read_aloud_in_the_reader_highlights_pauses_and_stopping_keeps_the_place(
    alice_quire: Quire, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    debian_file("/usr/bin/espeak-ng", "espeak-ng")
    monkeypatch.setenv("QUIRE_SPEECH_TO", str(tmp_path / "audio"))
    alice_quire.save_position(1, "3.2")

    async def scenario() -> None:
        session = await new_session(width)
        app = _app(alice_quire, session)
        app.open_book(1)
        app.settings.speech_rate = 350
        await fire(session, find(app.page.controls, tooltip="Read aloud from here"))
        aloud = app.reading.aloud
        speaker = aloud.session.speaker
        await app.workers.until(
            lambda: len(speaker.spoken) >= 2 and app.reader.aloud is not None
        )  # a redraw a sentence
        mark = app.reader.aloud
        segment = next(s for s in app.reader.visible if s.ordinal == mark.ordinal)
        assert segment.text[mark.start : mark.end] == aloud.session.sentence.text  # the sentence said is marked
        assert mark in app.reader.shown.marks
        assert find(app.page.controls, tooltip="Pause") is not None and find(app.page.controls, tooltip="Speed")
        await fire(session, find(app.page.controls, tooltip="Pause"))
        assert aloud.session.state == "paused" and find(app.page.controls, tooltip="Resume") is not None
        await fire(session, find(app.page.controls, tooltip="Resume"))
        assert aloud.session.state == "playing"
        await app.workers.until(lambda: len(speaker.spoken) >= 4)  # a few sentences on
        reached = app.reader.aloud
        await fire(session, find(app.page.controls, tooltip="Stop reading aloud"))
        assert not aloud.active and app.reader.aloud is None
        assert find(app.page.controls, tooltip="Read aloud from here") is not None  # the bar went
        here = alice_quire.position(1)
        assert here.locator.section == 3 and app.reader.current.ordinal <= reached.ordinal
        app.close_book()
        assert alice_quire.position(1).locator == here.locator  # closing keeps where reading aloud stopped

    asyncio.run(scenario())


def test_the_phone_speaker_speaks_through_the_flet_tts_service(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python side of extensions/flet-tts: what it sends the phone, and a stop while a sentence is said."""
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "extensions" / "flet-tts" / "src"))
    from app.phone.speech import PhoneSpeaker

    async def scenario() -> None:
        session = await new_session(390)
        connection = session.connection
        released = asyncio.Event()
        connection.answers["TextToSpeech.voices"] = [{"name": "zh-CN-language", "locale": "zh-CN"}]

        async def spoken() -> bool:  # the phone answers once the sentence was said, or stopped
            await released.wait()
            return True

        connection.answers["TextToSpeech.speak"] = spoken
        connection.answers["TextToSpeech.stop"] = released.set
        speaker = PhoneSpeaker(Workers(session.page).later)
        voices = await asyncio.to_thread(speaker.voices, "zh")
        assert [(v.id, v.language) for v in voices] == [("zh-CN-language", "zh-CN")]
        cut = threading.Event()
        said = asyncio.create_task(asyncio.to_thread(speaker.speak, "你好。", "zh-CN", 350, None, cut))
        await asyncio.to_thread(until, lambda: ("TextToSpeech", "speak") in connection.invoked, 10, "the phone asked")
        assert not said.done()  # the phone was asked to speak and has not answered: speak() waits
        cut.set()
        await asyncio.wait_for(said, 5)
        calls = [c for c in connection.invoked if c[0] == "TextToSpeech"]
        assert ("TextToSpeech", "speak") in calls and ("TextToSpeech", "stop") in calls
        sent = next(a for a in connection.arguments if a.get("text") == "你好。")
        assert sent["language"] == "zh-CN" and sent["rate"] == 1.0  # 350 words a minute: twice the normal 0.5

    asyncio.run(scenario())
