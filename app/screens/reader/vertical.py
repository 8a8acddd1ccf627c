"""Vertical text for Chinese and Japanese: a paragraph cut into columns read top to bottom, right to left.

Flutter lays text out in horizontal lines only, so a column is drawn as one character per line: each cell is a
character (two digits share one, upright: "12" in 12月), a longer run of Latin letters or digits lies sideways, and
punctuation takes its vertical form (、。「」 become ︑︒﹁﹂). Columns break between cells with the basic kinsoku
rules: no closing mark, small kana or prolonged sound mark opens a column (it hangs at the foot of the one before),
no opening bracket ends one (it moves to the next).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HANG = 2  # closing marks that may hang below a full column ("？」")
CELL_HEIGHT = 1.12  # a cell's height in ems: the characters of a column set close, as in print
# Vertical presentation forms (Unicode's FE10-FE4F) and, for marks that have none, the nearest upright shape.
VERTICAL_FORMS = {
    "、": "︑", "。": "︒", "．": "︒", "，": "︐", "：": "︓", "；": "︔", "！": "︕", "？": "︖", "…": "︙", "‥": "︰",
    "「": "﹁", "」": "﹂", "『": "﹃", "』": "﹄", "（": "︵", "）": "︶", "(": "︵", ")": "︶",
    "【": "︻", "】": "︼", "《": "︽", "》": "︾", "〈": "︿", "〉": "﹀", "〔": "︹", "〕": "︺",
    "“": "﹁", "”": "﹂", "‘": "﹃", "’": "﹄", "—": "︱", "―": "︱", "ー": "︱", "～": "︴", "〜": "︴",
    "_": "︳", "{": "︷", "}": "︸", "［": "﹇", "］": "﹈",
}  # fmt: skip
NO_HEAD = frozenset(
    "、。，．,.：；:;！？!?）)」』】〕〉》〗〙〛]}”’ー～〜…‥・ゝゞヽヾ々"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ"
)  # closing marks, small kana and repeat marks: never a column's first cell
NO_FOOT = frozenset("（(「『【〔〈《〖〘〚［[{“‘")  # opening marks: never a column's last cell
_LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,'’\-]*")


@dataclass(frozen=True, slots=True)
class Cell:
    """One step down a column: characters ``start``..``end`` of the text, upright or (a Latin run) sideways."""

    start: int
    end: int
    sideways: bool = False

    @property
    def size(self) -> int:
        """The cells it takes: a sideways run of Latin letters half a cell a letter."""
        return max(1, (self.end - self.start + 1) // 2) if self.sideways else 1


def cells(text: str) -> list[Cell]:
    """The text as a column's cells: two digits or fewer upright together, a longer Latin run sideways."""
    found: list[Cell] = []
    at = 0
    while at < len(text):
        run = _LATIN.match(text, at)
        if run is not None:
            end = run.end()
            if end - at <= 2 and text[at:end].isdigit():
                found.append(Cell(at, end))  # 12月: the two digits side by side, upright
            elif end - at == 1:
                found.append(Cell(at, end))  # a single letter stands upright
            else:
                found.append(Cell(at, end, sideways=True))
            at = end
        else:
            found.append(Cell(at, at + 1))
            at += 1
    return found


def columns(text: str, per_column: int) -> list[tuple[int, int]]:
    """The text cut into columns of at most ``per_column`` cells, as (start, end) character spans, by the kinsoku
    rules: marks that may not open a column hang at the foot of the one before (up to ``HANG`` cells over), and an
    opening mark at a column's foot moves to the next."""
    per = max(2, per_column)
    found: list[tuple[int, int]] = []
    run: list[Cell] = []
    used = 0
    for cell in cells(text):
        if run and used + cell.size > per:
            if text[cell.start] in NO_HEAD and used < per + HANG:
                run.append(cell)  # hanging punctuation: "。" (or "？」") stays with the words it closes
                used += cell.size
                continue
            moved = run.pop() if len(run) > 1 and text[run[-1].start] in NO_FOOT else None
            found.append((run[0].start, run[-1].end))
            run = [moved] if moved is not None else []
            used = sum(c.size for c in run)
        run.append(cell)
        used += cell.size
    if run:
        found.append((run[0].start, run[-1].end))
    return found


def upright(text: str) -> str:
    """Characters as they stand in a column: punctuation in its vertical form."""
    return "".join(VERTICAL_FORMS.get(char, char) for char in text)
