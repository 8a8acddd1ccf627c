"""A book's identity on a KOReader sync server, and KOReader's xpointers to and from Quire's paragraphs.

KOReader names a document by the MD5 of 1 KB samples of its file at 0, 1 KB, 4 KB, 16 KB … 1 GB ("binary"
matching, its default); the same EPUB file on a Kobo and in Quire has the same name. Its place in an EPUB is an
xpointer into the chapter's XHTML as its engine (crengine) sees it: ``/body/DocFragment[N]/body/div[2]/p[5]/
text().17``, where N counts the spine's items from 1 and each step names an element with its position among
same-named siblings (written only when there are several). Quire keeps the EPUB as imported, so the chapter's
XHTML is read again here: a paragraph is found by its text, and an xpointer resolved by walking its steps.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from core.books.epub_archive import open_epub_archive
from core.books.opf import read_package

PREFIX = 40  # characters of a paragraph's text compared with an element's, whitespace folded
_XPOINTER = re.compile(  # indexes of 1 to 9 ASCII digits: a 5,000-digit one is no book's (and int() refuses it)
    r"^/body/DocFragment\[([0-9]{1,9})\](?P<path>(?:/[^/]+)*?)(?:/text\(\)(?:\[[0-9]{1,9}\])?\.(?P<offset>[0-9]{1,9}))?$"
)
_STEP = re.compile(r"^([A-Za-z_][\w.-]*)(?:\[([0-9]{1,9})\])?$")
BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "dd", "dt", "td", "th",
          "figcaption", "section", "article", "aside"}  # fmt: skip


def partial_md5(path: Path) -> str:
    """KOReader's document id: MD5 over 1 KB at offsets 0 and 1024·4^i (i = 0…10), stopping at the file's end."""
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as file:
        for i in range(-1, 11):
            file.seek(0 if i < 0 else 1024 << (2 * i))  # LuaJIT's lshift by -2 wraps to 0: the first sample is at 0
            sample = file.read(1024)
            if not sample:
                break
            digest.update(sample)
    return digest.hexdigest()


def fold(text: str) -> str:
    """Whitespace folded, the first PREFIX characters: how a paragraph and an element are compared."""
    return " ".join(text.split())[:PREFIX]


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


@dataclass(frozen=True, slots=True)
class Place:
    """Where an xpointer leads: a chapter (by its file in the EPUB), the text its element starts with, an offset."""

    href: str
    text: str  # the element's text, folded (empty: the chapter's start)
    offset: int


class EpubPointers:
    """xpointers for one EPUB file, by its spine and its chapters' XHTML."""

    def __init__(self, data: bytes) -> None:
        archive = open_epub_archive(data)
        package = read_package(archive.read(archive.opf_path))
        base = posixpath.dirname(archive.opf_path)
        self._archive = archive
        self.spine: list[str] = []
        for idref, _ in package.spine:
            item = package.item(idref or "")
            self.spine.append(posixpath.normpath(posixpath.join(base, item.href)) if item is not None else "")
        self._bodies: dict[str, etree._Element | None] = {}

    def _body(self, href: str) -> etree._Element | None:
        if href not in self._bodies:
            try:
                parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=True)
                root = etree.fromstring(self._archive.read(href), parser)
                self._bodies[href] = next((e for e in root.iter() if _local(e) == "body"), None)
            except (KeyError, etree.XMLSyntaxError, ValueError):
                self._bodies[href] = None
        return self._bodies[href]

    def xpointer(self, href: str, text: str, offset: int = 0) -> str | None:
        """The xpointer of the paragraph whose text is ``text`` in the chapter ``href`` (at ``offset`` into it);
        the chapter's start when the paragraph is not found; None when the chapter is not in the spine."""
        if href not in self.spine:
            return None
        start = f"/body/DocFragment[{self.spine.index(href) + 1}]"
        element = self._element(href, text)
        if element is None:
            return start
        return f"{start}{self._path(element, self._body(href))}/text().{offset}"

    def point(self, href: str, text: str, offset: int) -> str | None:
        """The xpointer of one character of a paragraph (``offset`` into Quire's ``text`` of it), at its text node
        as crengine addresses it: ``…/p[3]/em/text().4``, or ``…/p/text()[2].7`` for a paragraph's second run of
        text. crengine keeps a text node's whitespace runs as one space, so the offset counts that way. The
        paragraph's own xpointer (its start) when its words differ from the XHTML's before that character."""
        element = self._element(href, text)
        if element is None:
            return self.xpointer(href, text, 0)
        start = f"/body/DocFragment[{self.spine.index(href) + 1}]"
        nodes, places = _text_nodes(element)
        folded, wanted = "".join(c for c, _ in places), _fold_upto(text, offset)
        if not folded.startswith(wanted) or len(wanted) > len(folded):
            return f"{start}{self._path(element, self._body(href))}/text().0"
        if len(wanted) == len(folded):  # the paragraph's end: just past its last character
            node, at = places[-1][1] if places else (0, 0)
            at += 1
        else:
            node, at = places[len(wanted)][1]
        parent, index, count = nodes[node]
        step = "text()" if count == 1 else f"text()[{index}]"
        return f"{start}{self._path(parent, self._body(href))}/{step}.{at}"

    def _element(self, href: str, text: str) -> etree._Element | None:
        """The innermost block of the chapter whose text starts as ``text`` does."""
        body = self._body(href) if href in self.spine else None
        wanted = fold(text)
        if body is None or not wanted:
            return None
        found: etree._Element | None = None
        for element in body.iter():
            if element is found or _local(element) not in BLOCKS:
                continue
            if fold("".join(element.itertext())).startswith(wanted):
                if found is not None and found not in element.iterancestors():
                    break  # past the first match's insides: the innermost block holding it is found
                found = element
        return found

    @staticmethod
    def _path(element: etree._Element, body: etree._Element) -> str:
        steps = []
        node: etree._Element | None = element
        while node is not None and node is not body.getparent():
            parent = node.getparent()
            name = _local(node)
            if parent is None:
                break
            same = [c for c in parent if _local(c) == name]
            steps.append(f"{name}[{same.index(node) + 1}]" if len(same) > 1 else name)
            node = parent
        return "/" + "/".join(reversed(steps))

    def place(self, xpointer: str) -> Place | None:
        """Where KOReader's xpointer leads; None when it is not one of this book's."""
        match = _XPOINTER.match(xpointer.strip())
        if match is None:
            return None
        number = int(match.group(1))
        if not 1 <= number <= len(self.spine) or not self.spine[number - 1]:
            return None
        href = self.spine[number - 1]
        offset = int(match.group("offset") or 0)
        steps = [s for s in (match.group("path") or "").split("/") if s]
        body = self._body(href)
        if body is None or not steps or steps[0] != "body":
            return Place(href, "", 0)
        node = body
        for step in steps[1:]:
            found = _STEP.match(step)
            if found is None:
                break
            same = [c for c in node if _local(c) == found.group(1)]
            index = int(found.group(2) or 1) - 1
            if not 0 <= index < len(same):
                break
            node = same[index]
        return Place(href, fold("".join(node.itertext())) if node is not body else "", offset)


def _text_nodes(
    element: etree._Element,
) -> tuple[list[tuple[etree._Element, int, int]], list[tuple[str, tuple[int, int]]]]:
    """The text nodes under ``element`` as crengine numbers them (parent, its n-th text child, how many it has),
    and the element's text folded (no leading space, one space a run) with each character's node and its offset
    in that node's text (whitespace runs as one space)."""
    runs: list[tuple[etree._Element, str]] = []

    def walk(node: etree._Element) -> None:
        if node.text:
            runs.append((node, node.text))
        for child in node:
            if isinstance(child.tag, str):
                walk(child)
            if child.tail:
                runs.append((node, child.tail))

    walk(element)
    places: list[tuple[str, tuple[int, int]]] = []
    for number, (_, raw) in enumerate(runs):
        collapsed = re.sub(r"\s+", " ", raw)
        for at, char in enumerate(collapsed):
            if char == " " and (not places or places[-1][0] == " "):
                continue
            places.append((char, (number, at)))
    while places and places[-1][0] == " ":
        places.pop()
    kept = sorted({node for _, (node, _) in places})  # blank runs at a block's edges are no text node of crengine's
    counts: dict[int, int] = {}
    index: dict[int, int] = {}
    for node in kept:
        parent = id(runs[node][0])
        counts[parent] = counts.get(parent, 0) + 1
        index[node] = counts[parent]
    nodes = [(runs[n][0], index.get(n, 1), counts.get(id(runs[n][0]), 1)) for n in range(len(runs))]
    return nodes, places


def _fold_upto(text: str, offset: int) -> str:
    """``text`` before ``offset``, folded as an element's text is (no leading space, one space a run)."""
    return re.sub(r"\s+", " ", text[:offset]).lstrip()
