"""Plain-text books: encodings, line breaks, hard-wrap joining, chapter headings."""

import pytest
from conftest import book_path

from core.books import SegmentKind, parse_book
from core.books.text import decode_text

CHINESE = "第一章 开始\n\n　　他说：“你好，世界。”这是一个测试。\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "gb18030", "gbk", "big5", "shift_jis"])
def test_encodings_are_detected(encoding: str) -> None:
    text = {
        "big5": "第一章 開始\n\n　　他說：「你好，世界。」這是一個測試，我們要看看繁體中文的編碼是否能被正確識別出來。\n",
        "shift_jis": "第一章 始まり\n\n　　吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n",
    }.get(encoding, CHINESE * 3)
    assert decode_text(text.encode(encoding)).lstrip("\ufeff") == text


def test_line_breaks_are_normalised_and_wrapped_lines_joined() -> None:
    wrapped = (
        "It was the best of times, it was the worst of times, it was the age of\r\n"
        "wisdom, it was the age of foolishness, it was the epoch of belief, it\r\n"
        "was the epoch of incredulity.\r\n"
        "\r\n"
        "There were a king with a large jaw and a queen with a plain face, on the\r"
        "throne of England; there were a king with a large jaw and a queen with\r"
        "a fair face, on the throne of France.\r\n\r\n"
    ) * 3
    book = parse_book(wrapped.encode(), "dickens.txt")
    paragraphs = [s.text for s in book.sections[0].segments]
    assert paragraphs[0] == (
        "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of "
        "foolishness, it was the epoch of belief, it was the epoch of incredulity."
    )
    assert len(paragraphs) == 6


def test_unwrapped_lines_stay_separate_paragraphs() -> None:
    lines = "\n".join(f"Line {i} is a whole paragraph of its own, of varying length{'!' * (i * 7)}" for i in range(20))
    book = parse_book(lines.encode(), "lines.txt")
    assert book.segment_count == 20


@pytest.mark.parametrize(
    "headings",
    [
        ["Chapter 1", "Chapter 2", "Chapter 12"],
        ["CHAPTER I", "CHAPTER XII", "CHAPTER XIII. The End"],
        ["第一章 初见", "第十二章 重逢", "第十三章"],
        ["第一回 甄士隐", "第十二回 王熙凤", "第一百二十回 结"],
        ["卷一", "卷二", "卷十二"],
        ["# One", "# Two", "# Three"],
    ],
)
def test_chapter_headings_become_sections(headings: list[str]) -> None:
    body = "\n\n".join(f"{h}\n\nSome text of the chapter here.\n\nMore text here, too." for h in headings)
    book = parse_book(("Preface text before any chapter.\n\n" + body).encode(), "book.txt")
    assert [s.title for s in book.sections][1:] == [h.lstrip("# ") for h in headings]
    assert book.sections[0].title == "book"  # front matter keeps the book's title
    assert [e.title for e in book.toc][1:] == [h.lstrip("# ") for h in headings]
    assert all(s.segments[0].kind == SegmentKind.HEADING for s in book.sections[1:])


def test_gutenberg_header_gives_title_and_author() -> None:
    text = "Title: A Tale of Two Cities\nAuthor: Charles Dickens\n\nCHAPTER I\n\nIt was the best of times.\n\nCHAPTER II\n\nMore."
    book = parse_book(text.encode(), "pg98.txt")
    assert book.metadata.title == "A Tale of Two Cities"
    assert book.metadata.authors == ["Charles Dickens"]
    assert book.metadata.language == "en"


NAHAN_STORIES = [
    "鸭的喜剧", "《呐喊》自序", "头发的故事", "白光", "端午节", "故乡", "孔乙己", "兔和猫", "风波",
    "明天", "一件小事", "社戏", "狂人日记", "阿Ｑ正传", "药",
]  # fmt: skip


def test_nahan_gets_its_stories_as_sections() -> None:
    book = parse_book(book_path("zh/luxun_nahan.txt").read_bytes(), "luxun_nahan.txt")
    titles = [s.title for s in book.sections]
    for story in NAHAN_STORIES:
        assert story in titles, story
    assert len(titles) == len(NAHAN_STORIES) + 1  # and the collection's own 目录 page
    assert book.metadata.language == "zh"
    aq = book.sections[titles.index("阿Ｑ正传")]
    chapters = [
        e.title for e in next(e for e in book.toc if e.title == "阿Ｑ正传").children if e.title.startswith("第")
    ]
    assert chapters[0] == "第一章 序" and len(chapters) == 9
    assert aq.segments[0].kind == SegmentKind.HEADING
    kong = book.sections[titles.index("孔乙己")]
    opening = next(s.text for s in kong.segments if s.text.startswith("鲁镇的酒店的格局"))
    assert "\n" not in opening and " " not in opening  # hard-wrapped lines joined without spaces
    assert opening.endswith("慢慢地坐喝。")  # one paragraph, five source lines


def _zhaohua() -> str:
    """Shaped like the 朝花夕拾 TXT a reader tried: a centred 《title》 and byline, pieces ending in datelines and notes."""
    body = "　　" + "我常想在纷扰中寻出一点闲静来，然而委实不容易。目前是这么离奇，心里是这么芜杂。" * 3
    lines = [" " * 20 + "《朝花夕拾》", "", " " * 24 + "鲁迅", "", ""]
    for title, date in (("小引", "一九二七年五月一日"), ("狗·猫·鼠", "二月二十一日"),
                        ("阿长与《山海经》", "三月十日"), ("二十四孝图", "五月十日夜")):  # fmt: skip
        lines += ["", "", " " * 20 + title, "", "", body, "", body, "", " " * 40 + date, "", "注释：", "",
                  "⑴本篇最初发表于一九二六年。", "", ""]  # fmt: skip
    return "\n".join(lines)


def test_title_and_author_come_from_where_the_text_states_them() -> None:
    book = parse_book(_zhaohua().encode("utf-8"), "zhaohua 01.txt")
    assert (book.metadata.title, book.metadata.authors) == ("朝花夕拾", ["鲁迅"])
    keyed = parse_book("书名：呐喊\n作者：鲁迅\n\n　　正文。\n".encode(), "nahan.txt").metadata
    assert (keyed.title, keyed.authors) == ("呐喊", ["鲁迅"])
    english = parse_book(b"The Tale of a Cat\n\nby Beatrix Potter\n\nOnce upon a time.\n", "cat.txt").metadata
    assert english.authors == ["Beatrix Potter"]
    plain = parse_book(book_path("zh/luxun_nahan.txt").read_bytes(), "luxun_nahan.txt").metadata
    assert plain.title == "luxun nahan" and plain.authors == []  # a story's title is not the book's: none stated


def test_markdown_front_matter_and_byline() -> None:
    yaml = "---\ntitle: 红楼梦\nauthor: 曹雪芹\n---\n\n### 第一回 甄士隐梦幻识通灵\n\n正文。\n\n### 第二回 贾夫人仙逝扬州城\n\n正文。\n"
    book = parse_book(yaml.encode(), "hongloumeng_120.md")
    assert (book.metadata.title, book.metadata.authors) == ("红楼梦", ["曹雪芹"])
    assert "title:" not in " ".join(s.text for sec in book.sections for s in sec.segments)  # not shown as text
    heading = parse_book("# 朝花夕拾\n\n作者：鲁迅\n\n## 小引\n\n正文。\n\n## 狗·猫·鼠\n\n正文。\n".encode(), "x.md")
    assert (heading.metadata.title, heading.metadata.authors) == ("朝花夕拾", ["鲁迅"])


def test_datelines_and_notes_are_not_chapters() -> None:
    book = parse_book(_zhaohua().encode("utf-8"), "zhaohua.txt")
    assert [entry.title for entry in book.toc] == ["《朝花夕拾》", "小引", "狗·猫·鼠", "阿长与《山海经》", "二十四孝图"]
    dates = {"一九二七年五月一日", "二月二十一日", "三月十日", "五月十日夜"}
    texts = [s.text for section in book.sections for s in section.segments]
    assert dates <= set(texts)  # kept as text, where the author put them
    without_chapters = parse_book("　　一段正文，没有章节。\n\n注释：\n\n⑴说明。\n".encode(), "notes.txt")
    assert len(without_chapters.sections) == 1  # "注释：" alone does not make a chapter


def test_a_line_ending_in_the_mark_for_an_unknown_character_is_not_a_title() -> None:
    """Issue 39, item 2: "“哦哦，你是范爱农！”〓" standing alone became a chapter; 〓 (the geta mark a text's maker
    leaves for a character it could not give) hid the sentence's end. Alone after two blank lines, as a converted
    text sets such a line, it stays a paragraph."""
    lines = _zhaohua().split("\n")
    at = lines.index("注释：")
    lines[at:at] = ["", "", "　　“哦哦，你是范爱农！”〓", "", "", "　　“你那时为什么单是笑，”〓", "", ""]
    book = parse_book("\n".join(lines).encode("utf-8"), "zhaohua.txt")
    assert [entry.title for entry in book.toc] == ["《朝花夕拾》", "小引", "狗·猫·鼠", "阿长与《山海经》", "二十四孝图"]
    assert "“哦哦，你是范爱农！”〓" in [s.text for section in book.sections for s in section.segments]


def test_private_use_characters_show_as_a_mark_the_fonts_have_and_are_named_in_the_warnings(tmp_path) -> None:
    """63 × U+E4C2 in a 朝花夕拾 TXT showed as empty boxes (issue 25, item 8)."""
    from core.books.formats import PRIVATE_USE_MARK
    from core.services import Quire

    body = "第一章 狗·猫·鼠\n\n从去年起，仿佛听得有人说我是仇猫的。\ue4c2那根据自然是在我的那一篇《兔和猫》。\ue4c2\ue000\n"
    path = tmp_path / "朝花夕拾.txt"
    path.write_text(body * 3, encoding="utf-8")
    quire = Quire(tmp_path / "lib")
    [result] = quire.import_paths([path])
    text = "".join(s.text for s in quire.text.segments(result.book.id, 0, 50))
    assert "\ue4c2" not in text and "\ue000" not in text
    assert text.count(PRIVATE_USE_MARK) == 9 and "仿佛听得有人说我是仇猫的。〓那根据" in text
    [warning] = [w for w in result.book.warnings if "private-use" in w]
    assert warning.startswith("9 private-use character(s) (U+E4C2, U+E000)")
    quire.close()
