"""How wide text is drawn in the reading fonts, and where it wraps: what the paginator measures pages with.

The client draws the text, so the server cannot ask it how a page lays out. The reading fonts are ours
(Liberation, in assets/fonts), so their advance widths are known: ``assets/fonts/metrics.json`` keeps them per
character (Latin, punctuation), generated from the font files by ``build_table`` (a test checks it still matches
them). The theme's sans-serif (Roboto) is not shipped: Liberation Sans stands in for it, a little wider. Chinese
and Japanese characters are one em wide in every CJK font; a character the table lacks counts as the widest
Latin letter, so an estimate errs towards a line too many, never a line too few.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core import is_cjk

METRICS = Path(__file__).resolve().parents[3] / "assets" / "fonts" / "metrics.json"
RANGES = ((0x20, 0x250), (0x2000, 0x2070), (0x3000, 0x3040), (0xFF00, 0xFF70))  # widths kept for these
SOURCES = {  # family -> font file the widths come from (a path inside assets/, or a system font)
    "serif": "fonts/LiberationSerif-Regular.ttf",
    "monospace": "fonts/LiberationMono-Regular.ttf",
    "sans-serif": "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
}
SAFETY = {"serif": 1.02, "monospace": 1.0, "sans-serif": 1.06}  # rendering differences, kerning, a stand-in font
BOLD = 1.08  # headings are bold: wider than the regular widths
_BREAK = re.compile(r"\s+|(?<=[-–—/])")  # Latin text wraps at spaces and after dashes and slashes


def build_table(assets: Path) -> dict[str, dict[str, list[int]]]:
    """Advance widths in thousandths of an em, per family and range, measured from the font files (Pillow)."""
    from PIL import ImageFont

    table: dict[str, dict[str, list[int]]] = {}
    for family, source in SOURCES.items():
        path = Path(source) if source.startswith("/") else assets / source
        font = ImageFont.truetype(str(path), 1000, layout_engine=ImageFont.Layout.BASIC)
        table[family] = {
            f"{start:x}": [round(font.getlength(chr(code))) for code in range(start, end)] for start, end in RANGES
        }
    return table


@lru_cache(maxsize=1)
def _table() -> dict[str, dict[int, int]]:
    raw = json.loads(METRICS.read_text(encoding="utf-8"))
    widths: dict[str, dict[int, int]] = {}
    for family, ranges in raw.items():
        flat: dict[int, int] = {}
        for start, values in ranges.items():
            base = int(start, 16)
            flat.update({base + i: w for i, w in enumerate(values) if w > 0})
        widths[family] = flat
    return widths


@lru_cache(maxsize=8)
def _family(family: str) -> tuple[dict[int, int], int]:
    """A family's widths and its widest character (what an unknown character counts as)."""
    widths = _table().get(family) or _table()["serif"]
    return widths, max(widths.values())


@dataclass(frozen=True, slots=True)
class Font:
    """A reading font at a size: ``family`` is a Settings font family (serif, sans-serif, monospace)."""

    family: str
    size: float
    bold: bool = False

    def width(self, text: str) -> float:
        """Pixels the text takes on one line."""
        widths, widest = _family(self.family)
        total = 0
        for char in text:
            if is_cjk(char):
                total += 1000
            else:
                total += widths.get(ord(char), widest)
        scale = SAFETY.get(self.family, 1.06) * (BOLD if self.bold else 1.0)
        return total * scale * self.size / 1000


def wrap(text: str, font: Font, width: float) -> list[tuple[int, int]]:
    """(start, end) of each line the text wraps into at ``width`` pixels: at spaces and dashes, anywhere in CJK."""
    lines: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end, used, last_break = start, 0.0, -1
        while end < len(text):
            char = text[end]
            if char == "\n":
                break
            step = font.width(char)
            if used + step > width and end > start:
                break
            used += step
            end += 1
            if char.isspace() or char in "-–—/" or is_cjk(char):
                last_break = end
        if end < len(text) and text[end] != "\n" and last_break > start and not is_cjk(text[end]):
            end = last_break  # do not cut a word: wrap after the last space or dash
        lines.append((start, end))
        start = end + 1 if end < len(text) and text[end] == "\n" else end
        while start < len(text) and text[start] == " " and start > 0 and text[start - 1] != "\n":
            start += 1  # a wrapped line does not start with the space it wrapped at
    return lines or [(0, 0)]
