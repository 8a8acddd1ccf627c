"""Translation by the AI provider (issue 29), against the local OpenAI-compatible mock: the request holds the
paragraph and no more, a translation is kept per paragraph and language, errors are typed, local-only refuses a
remote provider, and the CLI."""

import json
from pathlib import Path

import pytest
from conftest import book_path
from openai_mock import OpenAIMock

from app.cli import main as cli
from core import LocalOnlyError, ProviderConfig, ProviderError, Quire, QuireError

pytestmark = pytest.mark.storage  # a new table: CI runs it again on the phones' backend (apsw)


def test_a_paragraph_goes_to_the_provider_alone_and_is_kept_per_language(alice_quire: Quire) -> None:
    paragraph = alice_quire.text.show(1, "3.2")[0].text
    with OpenAIMock(
        [
            [{"content": "爱丽丝靠着姐姐坐在河岸上，"}, {"content": "开始感到厌倦。"}],
            [{"content": "Alice s'ennuyait."}],
            401,
        ]
    ) as mock:
        config = ProviderConfig("openai-compatible", "test-model", base_url=mock.url)
        assert alice_quire.translation.target(1, "en") == "zh" and alice_quire.translation.target(1, "zh") == "zh"
        text = alice_quire.translation.paragraph(1, "3.2", "zh", config)
        assert text == "爱丽丝靠着姐姐坐在河岸上，开始感到厌倦。"
        sent = mock.requests[-1]["body"]["messages"][-1]["content"]
        assert f"<book_text>{paragraph}</book_text>" in sent and "Simplified Chinese" in sent
        others = [s.text for s in alice_quire.text.segments(1, 0, 400) if s.text and s.text != paragraph]
        assert not any(o in sent for o in others if len(o) > 30)  # the paragraph and no more of the book
        assert alice_quire.translation.paragraph(1, "3.2:15", "zh", config) == text  # kept: no second request
        assert len(mock.requests) == 1
        assert alice_quire.translation.paragraph(1, "3.2", "fr", config) == "Alice s'ennuyait."  # another language
        with pytest.raises(ProviderError):
            alice_quire.translation.paragraph(1, "3.3", "zh", config)  # the scripted 401
        with pytest.raises(QuireError, match="needs an AI provider"):
            alice_quire.translation.paragraph(1, "3.3", "zh")


def test_local_only_mode_refuses_a_remote_provider_before_sending_anything(alice_quire: Quire) -> None:
    alice_quire.local_only = True
    remote = ProviderConfig("openai-compatible", "gpt-4o-mini", base_url="https://api.example.com/v1")
    with pytest.raises(LocalOnlyError):
        alice_quire.translation.paragraph(1, "3.2", "zh", remote)


def test_quire_translate_prints_the_paragraph_in_the_other_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_LLM_API_KEY", "sk-cli-test")
    library = ["--library", str(tmp_path / "lib")]
    assert cli([*library, "import", str(book_path("zh/luxun_nahan.txt"))]) == 0
    capsys.readouterr()
    assert cli([*library, "translate", "1", "1.2"]) == 1 and "needs an AI provider" in capsys.readouterr().err
    with OpenAIMock([[{"content": "When I was young, I too had many dreams."}]]) as mock:
        code = cli([*library, "translate", "1", "1.2", "--provider", "openai-compatible", "--model", "m",
                    "--base-url", mock.url, "--json"])  # fmt: skip
    assert code == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer == {"locator": "1.2", "to": "en", "text": "When I was young, I too had many dreams."}
    assert "English" in mock.requests[-1]["body"]["messages"][-1]["content"]


def test_a_stop_keeps_what_came_and_keeps_nothing_for_next_time(alice_quire: Quire) -> None:
    import threading

    slow = {"deltas": [{"content": "爱丽丝"}, {"content": "开始"}, {"content": "感到厌倦。"}], "delay": 0.3}
    with OpenAIMock([slow, [{"content": "爱丽丝开始感到厌倦。"}]]) as mock:
        config = ProviderConfig("openai-compatible", "test-model", base_url=mock.url)
        stop, seen = threading.Event(), []

        def came(text: str) -> None:
            seen.append(text)
            if text == "爱丽丝开始":
                stop.set()  # the reader asks again while it comes

        partial = alice_quire.translation.paragraph(1, "3.2", "zh", config, on_text=came, stop=stop)
        assert partial == "爱丽丝开始" and seen == ["爱丽丝", "爱丽丝开始"]  # what came, as it came
        whole = alice_quire.translation.paragraph(1, "3.2", "zh", config)
        assert whole == "爱丽丝开始感到厌倦。" and len(mock.requests) == 2  # the part was not kept
