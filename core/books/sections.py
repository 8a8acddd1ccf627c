"""Split a flat run of segments into sections at its chapter headings, and build the nested TOC.

Used by the single-file formats (TXT, Markdown, HTML), where chapters are only headings.
"""

from __future__ import annotations

from collections import Counter

from core.books.limits import MAX_SECTIONS, MAX_SEGMENTS, check_count
from core.books.locator import Locator
from core.books.model import Section, Segment, SegmentKind, TocEntry


def chapter_level(segments: list[Segment]) -> int | None:
    """The heading level that marks chapters: the highest level used at least twice.

    A lone top heading at the very start is the book's title, not a chapter.
    """
    counts = Counter(s.level for s in segments if s.kind == SegmentKind.HEADING)
    for level in sorted(counts):
        if counts[level] >= 2:
            return level
    return min(counts) if counts else None


def title_heading(segments: list[Segment]) -> str:
    """The text of a lone top-level heading that opens the document (the book's title), or ''."""
    level = chapter_level(segments)
    first = next((s for s in segments if s.kind == SegmentKind.HEADING), None)
    if first is None or level is None or first.level >= level or segments[0] is not first:
        return ""
    return first.text


def sectionize(segments: list[Segment], front_title: str) -> tuple[list[Section], list[TocEntry]]:
    """Sections that start at each chapter heading, and a TOC nested by heading level."""
    level = chapter_level(segments)
    check_count("paragraphs", len(segments), MAX_SEGMENTS)
    if level is not None:  # before any section is built: a million headings must not become a million sections
        chapters = sum(1 for s in segments if s.kind == SegmentKind.HEADING and s.level <= level)
        check_count("chapters", chapters, MAX_SECTIONS)
    sections: list[Section] = []
    current: Section | None = None
    for segment in segments:
        starts_chapter = segment.kind == SegmentKind.HEADING and level is not None and segment.level <= level
        if starts_chapter or current is None:
            current = Section(title=segment.text if starts_chapter else front_title)
            sections.append(current)
        current.segments.append(segment)
    sections = [s for s in sections if any(seg.text.strip() or seg.src for seg in s.segments)]
    return sections, _toc(sections, level)


def _toc(sections: list[Section], level: int | None) -> list[TocEntry]:
    toc: list[TocEntry] = []
    for s_index, section in enumerate(sections):
        first = section.segments[0]
        is_chapter = first.kind == SegmentKind.HEADING and level is not None and first.level <= level
        entry = TocEntry(title=section.title, locator=Locator(s_index, 0))
        toc.append(entry)
        stack: list[tuple[int, TocEntry]] = [(first.level if is_chapter else 0, entry)]
        for g_index, segment in enumerate(section.segments[1:], start=1):
            if segment.kind != SegmentKind.HEADING:
                continue
            while len(stack) > 1 and stack[-1][0] >= segment.level:
                stack.pop()
            child = TocEntry(title=segment.text, locator=Locator(s_index, g_index))
            stack[-1][1].children.append(child)
            stack.append((segment.level, child))
    return toc
