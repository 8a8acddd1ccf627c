"""Turn an (X)HTML document body into ordered segments, with inline spans and anchor ids."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from core.books.model import ALT_TEXT, Segment, SegmentKind, Span
from core.books.safexml import local_name
from core.books.textutil import CJK_CHAR

_SKIP = {"head", "script", "style", "noscript", "template", "rt", "rp", "title", "math"}
_CONTAINERS = {
    "html", "body", "div", "section", "article", "aside", "header", "footer", "main", "nav", "center",
    "ul", "ol", "dl", "table", "thead", "tbody", "tfoot", "details", "hgroup", "form", "fieldset",
    "address", "blockquote", "figure", "colgroup",
}  # fmt: skip
_LEAVES = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "dt", "dd", "figcaption", "caption", "summary"}
_BLOCK_OTHERS = {"img", "image", "figure", "tr", "hr"}
_INLINE_STYLES = {"em": "em", "i": "em", "cite": "em", "strong": "strong", "b": "strong", "code": "code"}
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_SPACES = re.compile(r"[ \t\r\n\f]+")
_SPACE_BETWEEN_CJK = re.compile(rf"(?<={CJK_CHAR}) (?={CJK_CHAR})")


@dataclass
class _Context:
    kind: SegmentKind = SegmentKind.PARAGRAPH
    level: int = 0
    pre: bool = False


@dataclass
class _Buffer:
    """The inline text of the segment being built."""

    text: list[str] = field(default_factory=list)
    length: int = 0
    spans: list[Span] = field(default_factory=list)
    last: str = " "

    def add(self, text: str, pre: bool) -> None:
        if not text:
            return
        if not pre:
            text = _SPACES.sub(" ", text)
            if text.startswith(" ") and (self.last in " \n" or (len(text) > 1 and _is_cjk_pair(self.last, text[1]))):
                text = text[1:]
            text = _SPACE_BETWEEN_CJK.sub("", text)
        if text:
            self.text.append(text)
            self.length += len(text)
            self.last = text[-1]


def _is_cjk_pair(a: str, b: str) -> bool:
    return bool(re.match(CJK_CHAR, a)) and bool(re.match(CJK_CHAR, b))


class _Walker:
    def __init__(self, resolve: Callable[[str], str]) -> None:
        self.resolve = resolve
        self.segments: list[Segment] = []
        self.buffer = _Buffer()
        self.context = _Context()
        self.pending_anchors: list[str] = []
        self.buffer_anchors: list[str] = []

    # -- emitting -------------------------------------------------------------------------
    def flush(self) -> None:
        raw = "".join(self.buffer.text)
        text = raw if self.context.pre else raw.rstrip()
        lead = 0 if self.context.pre else len(text) - len(text.lstrip())
        text = text if self.context.pre else text.strip()
        if text.strip():
            spans = tuple(
                Span(max(0, s.start - lead), min(len(text), s.end - lead), s.style)
                for s in self.buffer.spans
                if min(len(text), s.end - lead) > max(0, s.start - lead)
            )
            anchors = tuple(self.pending_anchors + self.buffer_anchors)
            kind = self.context.kind
            self.segments.append(Segment(kind=kind, text=text, level=self.context.level, spans=spans, anchors=anchors))
            self.pending_anchors = []
        else:
            self.pending_anchors.extend(self.buffer_anchors)
        self.buffer = _Buffer()
        self.buffer_anchors = []

    def emit_image(self, src: str, caption: str, alt: str = "") -> None:
        """A picture: its caption (the book's figcaption) shown under it, else its alt text, kept for search and
        screen readers but never shown as if it were a caption ("Illo2" under a picture)."""
        self.flush()
        anchors = tuple(self.pending_anchors)
        self.pending_anchors = []
        text = _SPACES.sub(" ", caption).strip()
        level = 0
        if not text:
            text, level = _SPACES.sub(" ", alt).strip(), ALT_TEXT
        self.segments.append(
            Segment(
                kind=SegmentKind.IMAGE, text=text, level=level if text else 0, src=self.resolve(src), anchors=anchors
            )
        )

    def note_anchor(self, element: etree._Element) -> None:
        anchor = element.get("id") or (element.get("name") if local_name(element) == "a" else None)
        if anchor:
            (self.buffer_anchors if self.buffer.length else self.pending_anchors).append(anchor)

    # -- walking --------------------------------------------------------------------------
    def walk(self, element: etree._Element) -> None:
        name = local_name(element)
        if not name or name in _SKIP:
            return
        if name in _CONTAINERS or name in _LEAVES or name in _BLOCK_OTHERS:
            self.flush()  # so that this element's id goes to the segment it starts, not the one before
        self.note_anchor(element)
        if name in ("img", "image"):
            src = element.get("src") or element.get(_XLINK_HREF) or element.get("href")
            if src:
                self.emit_image(src, "", element.get("alt") or "")
            return
        if name == "figure":
            self.walk_figure(element)
            return
        if name == "tr":
            self.walk_row(element)
            return
        if name == "br":
            self.buffer.add("\n", pre=True)
            self.buffer.last = "\n"
            return
        if name == "hr":
            self.flush()
            return
        if name in _CONTAINERS or name in _LEAVES:
            self.walk_block(element, name)
            return
        self.walk_inline(element, name)

    def walk_children(self, element: etree._Element) -> None:
        self.buffer.add(element.text or "", self.context.pre)
        for child in element:
            self.walk(child)
            self.buffer.add(child.tail or "", self.context.pre)

    def walk_block(self, element: etree._Element, name: str) -> None:
        self.flush()
        saved = self.context
        self.context = self.block_context(name, saved)
        self.walk_children(element)
        self.flush()
        self.context = saved

    @staticmethod
    def block_context(name: str, outer: _Context) -> _Context:
        if name[0] == "h" and name[1:].isdigit():
            return _Context(SegmentKind.HEADING, int(name[1:]))
        if name == "pre":
            return _Context(SegmentKind.PREFORMATTED, 0, pre=True)
        if name == "blockquote":
            return _Context(SegmentKind.QUOTE, outer.level)
        if name in ("ul", "ol"):
            return _Context(outer.kind, outer.level + 1, outer.pre)
        if name == "li":
            return _Context(SegmentKind.LIST_ITEM, max(1, outer.level))
        if outer.kind in (SegmentKind.QUOTE, SegmentKind.LIST_ITEM):
            return outer
        return _Context(SegmentKind.PARAGRAPH, 0, outer.pre)

    def walk_inline(self, element: etree._Element, name: str) -> None:
        style = _INLINE_STYLES.get(name) or ("link" if name == "a" and element.get("href") else None)
        start = self.buffer.length
        self.walk_children(element)
        if style and self.buffer.length > start:
            self.buffer.spans.append(Span(start, self.buffer.length, style))

    def walk_figure(self, element: etree._Element) -> None:
        captions = [child for child in element.iter() if local_name(child) == "figcaption"]
        caption = " ".join(" ".join(c.itertext()) for c in captions)
        images = [child for child in element.iter() if local_name(child) in ("img", "image")]
        if not images:
            self.walk_block(element, "div")
            return
        self.flush()
        for image in images:
            src = image.get("src") or image.get(_XLINK_HREF) or image.get("href")
            if src:
                self.emit_image(src, caption, image.get("alt") or "")

    def walk_row(self, element: etree._Element) -> None:
        self.flush()
        cells = [child for child in element if local_name(child) in ("td", "th")]
        texts = [_SPACES.sub(" ", " ".join(cell.itertext())).strip() for cell in cells]
        row = " | ".join(text for text in texts if text)
        if row:
            anchors = tuple(self.pending_anchors)
            self.pending_anchors = []
            self.segments.append(Segment(kind=SegmentKind.TABLE_ROW, text=row, anchors=anchors))


def extract_segments(root: etree._Element, resolve: Callable[[str], str] = lambda href: href) -> list[Segment]:
    """Segments of a parsed document's body, in order; ``resolve`` maps image hrefs to book paths."""
    body = next((el for el in root.iter() if local_name(el) == "body"), root)
    walker = _Walker(resolve)
    walker.walk(body)
    walker.flush()
    if walker.pending_anchors and walker.segments:
        last = walker.segments[-1]
        last.anchors = last.anchors + tuple(walker.pending_anchors)
    return walker.segments


def document_title(root: etree._Element) -> str:
    """The document's <title>, or ''."""
    for element in root.iter():
        if local_name(element) == "title":
            return _SPACES.sub(" ", "".join(element.itertext())).strip()
    return ""
