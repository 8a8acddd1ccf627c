"""X-Ray against a hand-made list of a book's names (issue 38): precision, recall and the kinds, printed and held.

The list is every person, creature, place and named thing that Alice's Adventures in Wonderland (the edition in
../shared, chapters 1 to 8 and 11 to 12) names at least twice: what a reader expects X-Ray to list at its end. It
was written from the book, not from X-Ray's output; X-Ray's rules were written from other books (the issue's
story collection and Children's Literature), so these numbers are held out from them.

    python -m pytest tests/test_xray_gold.py -s     # prints precision, recall and kind accuracy
"""

from __future__ import annotations

import pytest
from conftest import book_path

from core.services import Quire

pytestmark = pytest.mark.storage

# name -> (kind, other names it goes by in the book)
ALICE: dict[str, tuple[str, tuple[str, ...]]] = {
    "Alice": ("person", ()),
    "White Rabbit": ("person", ("Rabbit",)),
    "Queen of Hearts": ("person", ("Queen",)),
    "King": ("person", ("King of Hearts",)),
    "Mouse": ("person", ()),
    "Duchess": ("person", ()),
    "Caterpillar": ("person", ()),
    "Hatter": ("person", ()),
    "March Hare": ("person", ("Hare",)),
    "Dodo": ("person", ()),
    "Cheshire Cat": ("person", ("Cat",)),
    "Dormouse": ("person", ()),
    "Dinah": ("person", ()),
    "Bill": ("person", ()),
    "Pigeon": ("person", ()),
    "Mary Ann": ("person", ("Ann",)),
    "Knave of Hearts": ("person", ("Knave",)),
    "Duck": ("person", ()),
    "Pat": ("person", ()),
    "Lory": ("person", ()),
    "Eaglet": ("person", ()),
    "Fish-Footman": ("person", ("Footman",)),
    "William the Conqueror": ("person", ("William",)),
    "Fury": ("person", ()),
    "Five": ("person", ()),
    "Caucus-race": ("term", ()),
}
# 呐喊 (Lu Xun's first collection, the AZW3 in ../shared): every person, place and named thing it names at least
# twice, read from the book story by story (role words such as 掌柜 "the shopkeeper" or 老尼姑 "the old nun" are
# not names; a family's house 赵府 is a place).
_PEOPLE = (
    "赵太爷 赵秀才 钱太爷 假洋鬼子 王胡 小Ｄ 吴妈 邹七嫂 赵白眼 赵司晨 赵太太 孔乙己 华大妈 小栓 康大叔 夏三爷 "
    "驼背五少爷 单四嫂子 宝儿 王九妈 何小仙 七斤 七斤嫂 九斤老太 六斤 赵七爷 八一嫂 张大帅 闰土 水生 宏儿 "
    "迅哥儿 陈士成 方玄绰 金永生 双喜 阿发 六一公公 八公公 桂生 仲密 仲密夫人 古久先生 陈老五 赵贵翁 易牙 徐锡林 "
    "金心异 钱玄同 孟子 秋瑾 邹容 三太太 金圣叹"
)
_PLACES = "未庄 土谷祠 静修庵 鲁镇 丁字街 济世老店 西高峰 平桥村 赵庄 狼子村 日本 东京 中国 北京 Ｓ会馆 钱府"
_TERMS = "论语 三国演义 左传 水浒 自由党 柿油党 革命党 宣统 辛亥 长毛"
NAHAN: dict[str, tuple[str, tuple[str, ...]]] = {
    **{name: ("person", ()) for name in _PEOPLE.split()},
    "阿Ｑ": ("person", ()),
    "阿桂": ("person", ("阿贵",)),
    "老栓": ("person", ("华老栓",)),
    "阿义": ("person", ("红眼睛阿义",)),
    "阿五": ("person", ("蓝皮阿五",)),
    "老拱": ("person", ("红鼻子老拱",)),
    "杨二嫂": ("person", ("豆腐西施",)),
    "爱罗先珂": ("person", ()),
    "夏瑜": ("person", ("瑜儿",)),
    "孔子": ("person", ("孔丘",)),
    **{name: ("place", ()) for name in _PLACES.split()},
    "咸亨酒店": ("place", ("咸亨",)),
    "赵府": ("place", ("赵家",)),
    **{name: ("term", ()) for name in _TERMS.split()},
}
# Floors just under what was measured (issue 38: 0.960, 0.923 and 0.792; before its rules, 0.800, 0.923 and 0.667):
# a change that loses names or lets titles and nationalities back in fails here.
PRECISION, RECALL, KINDS = 0.95, 0.90, 0.75
# 呐喊 as measured (issue 38): precision 0.266, recall 0.620, kinds 0.895. Far from the English figures: jieba's
# dictionary tags common words as names (花白 "grizzled", 贝壳 "shell", 张开 "open" are ``nr``) and a small book
# uses them often enough to pass the keyness test; 七斤 alone is cut as two numerals. Held here so it only rises.
ZH_FLOORS = (0.26, 0.60, 0.85)


def score(entries, gold: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[float, float, float, list[str]]:
    """(precision, recall, kind accuracy, what went wrong): an entry is right when one of its names is a gold name
    or one of its other names, and no earlier entry took that gold name (a second entry for one name is wrong)."""
    aliases = {alias.casefold(): name for name, (_, others) in gold.items() for alias in (name, *others)}
    matched: dict[str, str] = {}
    wrong = []
    for entry in entries:
        names = [entry.name, *entry.variants]
        found = next((aliases[n.casefold()] for n in names if n.casefold() in aliases), None)
        if found is None or found in matched:
            wrong.append(f"not a name, or twice: {entry.name}")
            continue
        matched[found] = entry.kind
    wrong += [f"missing: {name}" for name in gold if name not in matched]
    wrong += [f"kind: {name} is a {kind}" for name, kind in matched.items() if kind != gold[name][0]]
    kinds = sum(kind == gold[name][0] for name, kind in matched.items()) / max(1, len(matched))
    return len(matched) / max(1, len(entries)), len(matched) / len(gold), kinds, wrong


def test_alice_at_its_end_lists_its_names_and_little_else(quire: Quire) -> None:
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = quire.companion.xray(book.id)
    precision, recall, kinds, wrong = score(entries, ALICE)
    print(f"\nAlice: {len(entries)} entries, precision {precision:.3f}, recall {recall:.3f}, kinds {kinds:.3f}")
    print("\n".join(wrong))
    assert precision >= PRECISION and recall >= RECALL and kinds >= KINDS, wrong


def test_nahan_at_its_end_lists_its_names(quire: Quire) -> None:
    """The Chinese list, measured and held at what it gives now (see ``ZH_FLOORS``)."""
    pytest.importorskip("jieba", reason="X-Ray finds Chinese names with jieba's tagger (computers only)")
    book = quire.import_paths([book_path("formats/luxun-nahan.azw3")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = quire.companion.xray(book.id)
    precision, recall, kinds, wrong = score(entries, NAHAN)
    print(f"\n呐喊: {len(entries)} entries, precision {precision:.3f}, recall {recall:.3f}, kinds {kinds:.3f}")
    print("\n".join(wrong))
    assert (precision, recall, kinds) >= ZH_FLOORS, wrong
