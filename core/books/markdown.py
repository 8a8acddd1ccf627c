"""Markdown reader (CommonMark + tables, via markdown-it-py): headings become chapters and TOC."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.books.front_matter import front_matter, yaml_front_matter
from core.books.html_blocks import extract_segments
from core.books.model import ALT_TEXT, Book, Metadata, Segment, SegmentKind, Span
from core.books.safexml import parse_document
from core.books.sections import sectionize, title_heading
from core.books.text import decode_text, normalise_newlines, wrap_width
from core.books.textutil import display_width, guess_language, is_cjk
from core.errors import BookFormatError

_CJK_PUNCTUATION = "。！？…”“」「』『；：，、）（》《—"
_STYLES = {"em_open": "em", "strong_open": "strong", "link_open": "link"}


class _Converter:
    def __init__(self, soft_breaks_split: bool) -> None:
        self.soft_breaks_split = soft_breaks_split
        self.segments: list[Segment] = []
        self.kinds: list[SegmentKind] = []  # enclosing quote / list item context
        self.depth = 0
        self.row: list[str] | None = None

    def convert(self, tokens: list[Token]) -> list[Segment]:
        heading_level = 0
        for token in tokens:
            kind = token.type
            if kind == "heading_open":
                heading_level = int(token.tag[1:])
            elif kind == "heading_close":
                heading_level = 0
            elif kind == "blockquote_open":
                self.kinds.append(SegmentKind.QUOTE)
            elif kind in ("bullet_list_open", "ordered_list_open"):
                self.depth += 1
            elif kind in ("bullet_list_close", "ordered_list_close"):
                self.depth -= 1
            elif kind == "list_item_open":
                self.kinds.append(SegmentKind.LIST_ITEM)
            elif kind in ("blockquote_close", "list_item_close"):
                self.kinds.pop()
            elif kind == "tr_open":
                self.row = []
            elif kind == "tr_close":
                if self.row and any(self.row):
                    self.segments.append(Segment(SegmentKind.TABLE_ROW, " | ".join(c for c in self.row if c)))
                self.row = None
            elif kind in ("fence", "code_block"):
                if token.content.strip():
                    self.segments.append(Segment(SegmentKind.PREFORMATTED, token.content.rstrip("\n")))
            elif kind == "html_block":
                self.segments.extend(extract_segments(parse_document(token.content.encode("utf-8"))))
            elif kind == "inline":
                self.inline(token, heading_level)
        return self.segments

    def inline(self, token: Token, heading_level: int) -> None:
        if self.row is not None:
            self.row.append(token.content.strip())
            return
        if heading_level:
            self.segments.append(Segment(SegmentKind.HEADING, _plain(token.children or []), level=heading_level))
            return
        kind = self.kinds[-1] if self.kinds else SegmentKind.PARAGRAPH
        level = self.depth if kind == SegmentKind.LIST_ITEM else 0
        text: list[str] = []
        spans: list[Span] = []
        open_spans: list[tuple[int, str]] = []
        length = 0

        def emit() -> None:
            nonlocal text, spans, length
            joined = "".join(text)
            if joined.strip():
                lead = len(joined) - len(joined.lstrip())
                clean = joined.strip()
                kept = tuple(
                    Span(max(0, s.start - lead), min(len(clean), s.end - lead), s.style)
                    for s in spans
                    if s.end - lead > 0 and s.start - lead < len(clean)
                )
                self.segments.append(Segment(kind, clean, level=level, spans=kept))
            text, spans, length = [], [], 0

        for child in token.children or []:
            piece = ""
            if child.type in ("text", "html_inline"):
                piece = child.content if child.type == "text" else ""
            elif child.type == "code_inline":
                spans.append(Span(length, length + len(child.content), "code"))
                piece = child.content
            elif child.type == "softbreak":
                last = next((t for t in reversed(text) if t), " ")[-1]
                cjk = is_cjk(last) or last in _CJK_PUNCTUATION
                if self.soft_breaks_split and cjk:
                    emit()  # CJK text, not hard-wrapped: one paragraph per line, no blank lines between
                    continue
                piece = "" if cjk else " "
            elif child.type == "hardbreak":
                piece = "\n"
            elif child.type in _STYLES:
                open_spans.append((length, _STYLES[child.type]))
            elif child.type.endswith("_close") and open_spans:
                start, style = open_spans.pop()
                if length > start:
                    spans.append(Span(start, length, style))
            elif child.type == "image":
                emit()
                alt = _plain(child.children or [])  # ![alt](src): a screen reader's name for it, not a caption
                src = str(child.attrs.get("src") or "") or None
                self.segments.append(Segment(SegmentKind.IMAGE, alt, level=ALT_TEXT if alt else 0, src=src))
                continue
            text.append(piece)
            length += len(piece)
        emit()


def _plain(children: list[Token]) -> str:
    return "".join(
        c.content if c.type in ("text", "code_inline") else " " if c.type == "softbreak" else "" for c in children
    ).strip()


def read_markdown(data: bytes, fallback_title: str) -> Book:
    """Parse a Markdown book's bytes; chapters are its most frequent top heading level."""
    text = normalise_newlines(decode_text(data)).lstrip("\ufeff")
    lines = text.split("\n")
    yaml = yaml_front_matter(lines)
    text = "\n".join(lines[yaml.lines :])  # a YAML block is metadata, not text
    widths = [display_width(line) for line in text.split("\n") if line.strip() and not line.startswith("#")]
    parser = MarkdownIt("commonmark").enable("table")
    segments = _Converter(soft_breaks_split=wrap_width(widths) is None).convert(parser.parse(text))
    if not segments:
        raise BookFormatError("this Markdown file has no text in it")
    stated = front_matter(text.split("\n"))
    title = yaml.title or title_heading(segments) or stated.title or fallback_title
    author = yaml.author or stated.author
    sections, toc = sectionize(segments, title)
    sample = " ".join(s.text for s in segments[:400])
    metadata = Metadata(title=title, authors=[author] if author else [], language=guess_language(sample))
    return Book(format="markdown", metadata=metadata, sections=sections, toc=toc)
