"""X-Ray against hand-made lists of books' names (issues 38 and 57): precision, recall and kinds, printed and held.

The lists: Alice and 呐喊 (``bench/gold``, made for issue 38 from the books, not from X-Ray's output), Dracula,
Pride and Prejudice and 红楼梦's first five chapters (``../shared/data/xray-gold``, made by hand outside this
project). Each book is read to the list's end and scored by the shared ``score.py``'s rules (``bench.xray_gold``).
X-Ray's rules judge a name by how the book uses it; they hold no name of any of these books.

    python -m pytest tests/test_xray_gold.py -s     # prints each list's figures and what it got wrong
    python -m bench.xray_gold --misses              # the same as one table
"""

from __future__ import annotations

import pytest

from bench.xray_gold import GOLDS, measure

pytestmark = pytest.mark.storage

# Floors just under what was measured at issue 57 (bench.xray_gold): English precision, recall and kinds; Chinese
# the same (goals 0.70 / 0.70 / 0.85: 红楼梦 meets them since stop 66, 呐喊 does not), held so they only rise. Before issue 57: Dracula
# 0.601 / 0.860 / 0.677, Pride and Prejudice 0.810 / 0.825 / 0.790, 呐喊 0.276 / 0.620 / 0.898, 红楼梦 1-5
# 0.418 / 0.589 / 0.909 (Alice 0.960 / 0.923 / 0.792).
FLOORS = {
    "alice": (0.95, 0.90, 0.95),
    "dracula": (0.90, 0.92, 0.89),
    "pride": (0.96, 0.95, 0.95),
    "nahan": (0.70, 0.70, 0.90),
    "hongloumeng": (0.79, 0.70, 0.95),
}


@pytest.mark.parametrize("key", list(FLOORS))
def test_every_gold_list_at_its_end(key: str) -> None:
    """Each gold list scored by the shared scorer's rules (``bench.xray_gold``): at or above its floors, and no
    entry first met outside the story (the pages a publisher adds before and after it)."""
    if key in ("nahan", "hongloumeng"):
        pytest.importorskip("jieba", reason="X-Ray finds Chinese names with jieba's tagger (computers only)")
    item = next(g for g in GOLDS if g.key == key)
    if not item.book.exists() or not item.gold.exists():
        pytest.skip(f"{item.book} or {item.gold} is not here (../shared/data)")
    found = measure(item)
    print(f"\n{key}: {found['entries']} entries, precision {found['precision']:.3f}, recall {found['recall']:.3f}, "
          f"kinds {found['kinds']:.3f}\n  not names: {found['junk']}\n  missed: {found['missed']}")  # fmt: skip
    measured = (found["precision"], found["recall"], found["kinds"])
    assert all(a >= b for a, b in zip(measured, FLOORS[key], strict=True)), (measured, FLOORS[key])
    assert found["outside"] == []
