"""Plain-text reader: encoding detection, hard-wrap joining and chapter-heading detection."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from charset_normalizer import from_bytes

from core.books.front_matter import front_matter
from core.books.model import Book, Metadata, Segment, SegmentKind
from core.books.sections import sectionize
from core.books.textutil import display_width, guess_language, is_cjk, without_marks_at_end
from core.errors import BookFormatError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_CN_NUM = "0-9０-９零〇一二三四五六七八九十百千万两"
_ROMAN = "ivxlcdm"
_EN_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|twenty|thirty|forty|fifty"
)
_HEADING_PATTERNS = (  # (pattern, level); levels are relative and normalised by sectionize
    (re.compile(r"^(#{1,6})\s+(.+?)\s*#*$"), None),  # Markdown heading: level from the hashes
    (re.compile(rf"^第[{_CN_NUM}]+[卷部篇集](?:[\s　:：·].{{0,40}})?$"), 1),
    (re.compile(rf"^卷[{_CN_NUM}]+(?:[\s　:：·].{{0,40}})?$"), 1),
    # "第二章 优胜记略", or "第二章优胜记略" where a PDF lost the space: a short name with no sentence's punctuation
    (re.compile(rf"^第[{_CN_NUM}]+[章回](?:[\s　:：·].{{0,40}}|[^\s，。！？、；：,.!?]{{1,12}})?$"), 2),
    (re.compile(rf"^第[{_CN_NUM}]+节(?:[\s　:：·].{{0,40}})?$"), 3),
    (re.compile(rf"^(?:book|part|volume)\s+(?:\d+|[{_ROMAN}]+|{_EN_WORDS})\b.{{0,60}}$", re.I), 1),
    (re.compile(rf"^chapter\s+(?:\d+|[{_ROMAN}]+|{_EN_WORDS})\b.{{0,60}}$", re.I), 2),
)
_SCENE_NUMBER = re.compile(rf"^[{_CN_NUM}]{{1,4}}$")  # "一", "十二": a numbered part inside a story
_NOTES_HEADING = re.compile(r"^[□■◆◇●○※*]*\s*(注释|注解|注|notes|footnotes|endnotes)\s*[:：]?$", re.I)
_NOTE_MARKERS = re.compile(r"(?:[⑴-⒇①-⑳]|\[\d{1,3}\]|〔\d{1,3}〕)+$")
_SENTENCE_END = re.compile(r"[。！？，；：、…”」』）,.!?;:)\]〕]$")
_BRACKETED = re.compile(r"^[〔\[(（【].*[〕\])）】]$")
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_DATE = re.compile(  # a dateline closing a piece ("三月十日", "一九二六年二月二十一日夜", "March 10, 1926"), not a title
    rf"^(?:[{_CN_NUM}]{{2,4}}年)?[{_CN_NUM}]{{1,3}}月[{_CN_NUM}]{{1,3}}[日号][早晨夜晚]?(?:[，,]?\S{{0,8}}[记作写])?$"
    rf"|^[{_CN_NUM}]{{2,4}}年(?:[{_CN_NUM}]{{1,3}}月)?$"
    rf"|^(?:(?:{_MONTHS})\.?\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+(?:{_MONTHS})\.?\s+\d{{4}}|\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}})$",
    re.I,
)
_LEADER = re.compile(r"(\.{4,}|…{2,}|·{4,})")
_PLACEHOLDERS = "〓\ufffd"  # a character the text's maker could not give (the geta mark): it ends nothing


CUT_SHORT = "the file ends part-way through a character (cut short?): its last, incomplete character is left out"


def decode_text(data: bytes, warnings: list[str] | None = None) -> str:
    """Decode a text file: BOMs first, then strict UTF-8, then charset-normalizer's best guess. UTF-8 cut inside
    its last character (a download or copy one byte short) keeps what reads, with a warning in ``warnings``."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason == "unexpected end of data" and error.start >= len(data) - 3:
            try:
                text = data[: error.start].decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                if warnings is not None:
                    warnings.append(CUT_SHORT)
                return text
    best = from_bytes(data[:200_000]).best()
    if best is None or best.encoding is None:
        raise BookFormatError("this file is not text in any encoding Quire knows; is it really a .txt book?")
    return data.decode(best.encoding, errors="replace")


def normalise_newlines(text: str) -> str:
    """Unix line breaks, no form feeds or Unicode line separators."""
    return re.sub(r"\r\n?|[\u2028\u2029\f\v\x85]", "\n", text)


@dataclass
class _Line:
    raw: str
    text: str  # stripped of ASCII and ideographic spaces
    indent: int  # display columns of leading whitespace
    width: int  # display width of the whole line
    blank_before: int = 0
    blank_after: int = 0


def _lines(text: str) -> list[_Line]:
    lines = []
    for raw in text.split("\n"):
        raw = raw.rstrip(" \t\u3000")
        stripped = raw.lstrip(" \t\u3000")
        lines.append(_Line(raw, stripped, display_width(raw[: len(raw) - len(stripped)]), display_width(raw)))
    run = 0
    for line in lines:
        line.blank_before = run
        run = run + 1 if not line.text else 0
    run = 0
    for line in reversed(lines):
        line.blank_after = run
        run = run + 1 if not line.text else 0
    return lines


def wrap_width(widths: list[int]) -> int | None:
    """The column a hard-wrapped text was wrapped at, or None when lines are not hard-wrapped.

    Hard wrapping shows as most multi-line paragraphs' lines ending close to one width.
    """
    if len(widths) < 10:
        return None
    ordered = sorted(widths)
    top = ordered[int(len(ordered) * 0.9)]
    if top > 200 or top < 30:
        return None
    near = sum(1 for w in widths if top * 0.8 <= w <= top + 2)
    return top if near >= len(widths) * 0.4 else None


def _heading_level(line: _Line) -> tuple[int, str] | None:
    """(level, title) when the line matches an explicit chapter-heading pattern."""
    text = line.text
    if len(text) > 80:
        return None
    for pattern, level in _HEADING_PATTERNS:
        match = pattern.match(text)
        if match:
            if level is None:  # Markdown
                return len(match.group(1)), match.group(2)
            return level, _squash(text)
    return None


def _is_isolated(line: _Line, index: int) -> bool:
    return (line.blank_before >= 1 or index == 0) and line.blank_after >= 1


def _is_title_line(line: _Line, index: int) -> bool:
    """A short line standing alone, set off like a title: centred, footnoted or after a wide gap."""
    bare = without_marks_at_end(line.text)
    if not bare or display_width(bare) > 30 or not _is_isolated(line, index):
        return False
    if _SENTENCE_END.search(bare) or _BRACKETED.match(bare) or _LEADER.search(bare) or _SCENE_NUMBER.match(bare):
        return False
    if _DATE.match(bare):
        return False
    if _NOTES_HEADING.match(bare) or _heading_level(line):
        return False
    return index == 0 or line.blank_before >= 2 or line.indent >= 8 or bare != line.text


def _squash(text: str) -> str:
    return re.sub(r"[\s\u3000]+", " ", text).strip()


def _classify(lines: list[_Line]) -> dict[int, tuple[int, str]]:
    """Line index -> (level, title) for every heading line."""
    explicit = {i: h for i, line in enumerate(lines) if line.text and (h := _heading_level(line))}
    titles = {i: line for i, line in enumerate(lines) if line.text and _is_title_line(line, i)}
    for i in sorted(titles):  # a byline right under a title ("孔乙己" then "鲁迅") is not a chapter
        if i - titles[i].blank_before - 1 in titles:
            del titles[i]
    headings = dict(explicit)
    depth = 0
    if len(titles) >= 3 and len(titles) > len(explicit):
        depth = 1  # stand-alone titles are the chapters; numbered headings are parts inside them
        headings = {i: (level + 1, title) for i, (level, title) in explicit.items()}
        headings.update({i: (1, _NOTE_MARKERS.sub("", line.text).strip()) for i, line in titles.items()})
    for i, line in enumerate(lines):
        if not headings:
            break  # notes and scene numbers subdivide chapters: in a text without chapters they stay text
        if i in headings or not line.text or not _is_isolated(line, i):
            continue
        if _SCENE_NUMBER.match(line.text) or _NOTES_HEADING.match(line.text):
            headings[i] = (4 + depth, _squash(line.text.lstrip("□■◆◇●○※*")))
    return headings


def _joins(previous: str, following: str) -> str:
    if is_cjk(previous[-1]) or is_cjk(following[0]) or not previous[-1].isascii() or not following[0].isascii():
        return ""
    return "" if previous.endswith("-") and following[:1].islower() else " "


def _paragraphs(lines: list[_Line], headings: dict[int, tuple[int, str]]) -> list[Segment]:
    width = wrap_width([line.width for line in lines if line.text])
    segments: list[Segment] = []
    current: list[str] = []
    previous: _Line | None = None

    def flush() -> None:
        if current:
            segments.append(Segment(kind=SegmentKind.PARAGRAPH, text="".join(current)))
            current.clear()

    for index, line in enumerate(lines):
        if index in headings:
            flush()
            level, title = headings[index]
            segments.append(Segment(kind=SegmentKind.HEADING, text=title, level=level))
            previous = None
            continue
        if not line.text:
            flush()
            previous = None
            continue
        continues = (
            width is not None and previous is not None and previous.width >= width * 0.8 and line.indent < 2 and current
        )
        if continues:
            current.append(_joins(current[-1], line.text) + line.text)
        else:
            flush()
            current.append(line.text)
        previous = line
    flush()
    return segments


def book_from_text(text: str, fallback_title: str, format_name: str = "txt") -> Book:
    """Build a Book from decoded plain text."""
    lines = _lines(normalise_newlines(text).lstrip("\ufeff"))
    segments = _paragraphs(lines, _classify(lines))
    if not segments:
        raise BookFormatError("this file has no text in it")
    stated = front_matter([line.text for line in lines])
    title = stated.title or fallback_title
    sections, toc = sectionize(segments, title)
    sample = " ".join(s.text for s in segments[:400])
    metadata = Metadata(title=title, authors=[stated.author] if stated.author else [], language=guess_language(sample))
    return Book(format=format_name, metadata=metadata, sections=sections, toc=toc)


def converted_lines(lines: list[str]) -> str:
    """The text of a book another program converted from a text file, one paragraph per line ('' for a blank).

    A converter drops the centring that marks a title; a short line standing alone, not ending a sentence, gets
    a second blank line before it, which is how ``book_from_text`` tells a title from a line of text.
    """
    spaced: list[str] = []
    for index, line in enumerate(lines):
        alone = (index == 0 or not lines[index - 1]) and (index + 1 == len(lines) or not lines[index + 1])
        ended = _SENTENCE_END.search(without_marks_at_end(line))  # “不去。” with a footnote's mark still ends one
        if index and line and alone and display_width(line) <= 30 and not ended:
            spaced.append("")  # (the first line needs none: the start of a text sets a title off already)
        spaced.append(line)
    return "\n".join(spaced)


def read_text(data: bytes, fallback_title: str) -> Book:
    """Parse a plain-text book's bytes."""
    if b"\x00" in data[:4096] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise BookFormatError("this file is binary, not text: Quire cannot read it as a .txt book")
    warnings: list[str] = []
    book = book_from_text(decode_text(data, warnings), fallback_title)
    book.warnings += warnings
    return book
