"""The widths pages are measured with are the reading fonts' own, and text wraps where a browser wraps it."""

import itertools
import json
from pathlib import Path

import pytest

from app.screens.reader.text_metrics import METRICS, SOURCES, Font, build_table, wrap

ASSETS = Path(__file__).resolve().parents[1] / "assets"


def test_the_width_table_matches_the_font_files() -> None:
    pytest.importorskip("PIL", reason="Pillow (a dev dependency) measures the fonts")
    missing = [s for s in SOURCES.values() if s.startswith("/") and not Path(s).exists()]
    if missing:  # Liberation Sans (the stand-in for the theme's Roboto) comes from Debian's fonts-liberation
        pytest.skip(f"font not installed here: {missing}")
    assert json.loads(METRICS.read_text(encoding="utf-8")) == build_table(ASSETS)


def test_wrapping_keeps_every_character_and_breaks_between_words() -> None:
    text = "Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse"
    font = Font("serif", 18)
    lines = wrap(text, font, 300)
    assert len(lines) > 2 and lines[0][0] == 0 and lines[-1][1] == len(text)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(lines))
    assert "".join(text[a:b] for a, b in lines).replace(" ", "") == text.replace(" ", "")
    assert all(text[b - 1] in " —" or b == len(text) for _, b in lines)  # never inside a word
    assert all(font.width(text[a:b].rstrip()) <= 300 for a, b in lines)
    chinese = "　　我常想在纷扰中寻出一点闲静来，然而委实不容易。"
    assert [chinese[a:b] for a, b in wrap(chinese, Font("serif", 20), 200)] == [
        "　　我常想在纷扰中寻",
        "出一点闲静来，然而委",
        "实不容易。",
    ]
    assert Font("serif", 18, bold=True).width("Chapter") > Font("serif", 18).width("Chapter")
