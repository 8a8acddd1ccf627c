"""Markdown and plain-HTML books."""

from conftest import book_path

from core.books import SegmentKind, parse_book


def test_hongloumeng_has_120_chapters_with_titles_in_the_toc() -> None:
    book = parse_book(book_path("zh/hongloumeng_120.md").read_bytes(), "hongloumeng_120.md")
    assert len(book.sections) == 120
    assert len(book.toc) == 120
    assert book.toc[0].title == "第一回 甄士隐梦幻识通灵 贾雨村风尘怀闺秀"
    assert book.toc[-1].title == "第一百二十回 甄士隐详说太虚情 贾雨村归结红楼梦"
    assert all(entry.locator.section == i and entry.locator.segment == 0 for i, entry in enumerate(book.toc))
    assert book.metadata.language == "zh"
    first = book.sections[0].segments
    # each source line is its own paragraph (the file is not hard-wrapped)
    assert first[1].text.startswith("此开卷第一回也。") and first[1].text.endswith("故曰“贾雨村”云云。")
    assert first[2].text.startswith("此回中凡用“梦”用“幻”等字")


MARKDOWN = """# The Book Title

Intro paragraph with *emphasis*, **strong** and `code`.

## First Chapter

> A quote
> that continues.

- item one
  - nested item
- item two

```
code block
  indented
```

| Name | Age |
|------|-----|
| Ahab | 58  |

![A whale](img/whale.png)

## Second Chapter

Hard-wrapped paragraph line one
and line two of the same paragraph,
and a third line that ends it.
"""


def test_markdown_structure_and_sections() -> None:
    book = parse_book(MARKDOWN.encode(), "notes.md")
    assert book.metadata.title == "The Book Title"
    assert [s.title for s in book.sections] == ["The Book Title", "First Chapter", "Second Chapter"]
    intro = book.sections[0].segments[1]
    styles = {(intro.text[s.start : s.end], s.style) for s in intro.spans}
    assert styles == {("emphasis", "em"), ("strong", "strong"), ("code", "code")}
    kinds = [(s.kind, s.text, s.level) for s in book.sections[1].segments]
    assert (SegmentKind.QUOTE, "A quote that continues.", 0) in kinds
    assert (SegmentKind.LIST_ITEM, "nested item", 2) in kinds
    assert (SegmentKind.PREFORMATTED, "code block\n  indented", 0) in kinds
    assert (SegmentKind.TABLE_ROW, "Ahab | 58", 0) in kinds
    image = next(s for s in book.sections[1].segments if s.kind == SegmentKind.IMAGE)
    assert (image.src, image.text) == ("img/whale.png", "A whale")
    # English soft line breaks keep CommonMark's meaning: one paragraph
    assert [s.text for s in book.sections[2].segments[1:]] == [
        "Hard-wrapped paragraph line one and line two of the same paragraph, and a third line that ends it."
    ]


def test_html_file_splits_at_its_chapter_headings() -> None:
    html = """<html lang="en"><head><title>Essays</title></head><body>
    <h1>Of Truth</h1><p>What is truth? said jesting Pilate.</p>
    <h1>Of Death</h1><p>Men fear death, as children fear to go in the dark.</p>
    <h2>A part</h2><p>Inner text.</p></body></html>"""
    book = parse_book(html.encode(), "essays.html")
    assert book.metadata.title == "Essays" and book.metadata.language == "en"
    assert [s.title for s in book.sections] == ["Of Truth", "Of Death"]
    assert [c.title for c in book.toc[1].children] == ["A part"]
