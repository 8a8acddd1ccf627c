"""EPUB 2 and 3 reader: the package document (``core.books.opf``), chapters, contents and cover, parsed safely."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urldefrag

from lxml import etree

from core.books.epub_archive import MAX_ENTRIES, EpubArchive, open_epub_archive
from core.books.html_blocks import document_title, extract_segments
from core.books.limits import MAX_SECTIONS, check_count
from core.books.locator import Locator
from core.books.model import Book, Metadata, Section, SegmentKind, TocEntry
from core.books.opf import XHTML_TYPE, Package, read_package
from core.books.safexml import local_name, parse_document, parse_xml
from core.books.svg import inline_styles
from core.books.textutil import guess_language
from core.errors import BookFormatError

_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/svg+xml", "image/webp")


def read_epub(data: bytes, fallback_title: str = "") -> Book:
    """Parse an EPUB file's bytes into a Book; raise BookFormatError when it cannot be read. The fallback title (the
    file's name) names a package with no title, as it does a book of any other format."""
    archive = open_epub_archive(data)
    try:
        opf = archive.read(archive.opf_path)
    except KeyError:
        raise BookFormatError(
            f"this EPUB's package document '{archive.opf_path}' is missing, so it cannot be read"
        ) from None
    _check_package_size(opf)
    return _BookBuilder(archive, read_package(opf), fallback_title).build()


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_VERTICAL = re.compile(r"(?<![\w-])(?:-epub-|-webkit-)?writing-mode\s*:\s*vertical-rl", re.IGNORECASE)
_ITEMREF = re.compile(rb"<(?:[\w.-]+:)?itemref[\s/>]")
_ITEM = re.compile(rb"<(?:[\w.-]+:)?item[\s/>]")


def _check_package_size(opf: bytes) -> None:
    """Refuse a package document with more chapters or resources than any book, before parsing it."""
    check_count("chapters in its reading order", len(_ITEMREF.findall(opf)), MAX_SECTIONS)
    check_count("files in its manifest", len(_ITEM.findall(opf)), MAX_ENTRIES)


class _BookBuilder:
    def __init__(self, archive: EpubArchive, package: Package, fallback_title: str = "") -> None:
        self.archive = archive
        self.package = package
        self.fallback_title = fallback_title
        self.opf_dir = posixpath.dirname(archive.opf_path)
        self.warnings = list(archive.warnings)
        self.anchor_map: dict[str, dict[str, int]] = {}  # document path -> anchor id -> segment index
        self.section_of: dict[str, int] = {}  # document path -> section index

    def path(self, href: str) -> str:
        return posixpath.normpath(posixpath.join(self.opf_dir, unquote(href)))

    def build(self) -> Book:
        self.report_missing()
        sections = self.read_sections()
        toc = self.read_toc()
        self.title_sections(sections, toc)
        metadata = self.read_metadata(sections)
        if not any(section.segments for section in sections):
            raise BookFormatError("this EPUB has no readable text in any of its chapters")
        return Book(format="epub", metadata=metadata, sections=sections, toc=toc, warnings=self.warnings)

    def report_missing(self) -> None:
        spine_ids = {idref for idref, _ in self.package.spine if idref}
        for item in self.package.items:
            path = self.path(item.href)
            if path not in self.archive.files:
                where = "a chapter in the reading order" if item.id in spine_ids else "a resource"
                self.warnings.append(f"missing file '{path}' ({item.media_type}), {where}, listed in the manifest")

    # -- sections ---------------------------------------------------------------------------
    def read_sections(self) -> list[Section]:
        sections: list[Section] = []
        for idref, linear in self.package.spine:
            if idref is None:  # a comment or a stray element inside <spine>
                continue
            item = self.package.item(idref)
            if item is None:
                self.warnings.append(f"the reading order names '{idref}', which the manifest does not list")
                continue
            path = self.path(item.href)
            data = self.archive.files.get(path)
            if not data:
                continue
            try:
                root = parse_document(data)
            except BookFormatError as error:
                self.warnings.append(f"skipped '{path}': {error}")
                continue
            resolve = lambda href, base=path: posixpath.normpath(posixpath.join(posixpath.dirname(base), unquote(href)))  # noqa: E731
            segments = extract_segments(root, resolve)
            for segment in segments:
                if segment.kind == SegmentKind.IMAGE and segment.src and segment.src not in self.archive.files:
                    self.warnings.append(f"missing image '{segment.src}' in '{path}'")
            self.section_of[path] = len(sections)
            self.anchor_map[path] = {anchor: index for index, seg in enumerate(segments) for anchor in seg.anchors}
            sections.append(Section(title=document_title(root), segments=segments, href=path, linear=linear != "no"))
        return sections

    def title_sections(self, sections: list[Section], toc: list[TocEntry]) -> None:
        toc_titles: dict[int, str] = {}
        stack = list(reversed(toc))
        while stack:
            entry = stack.pop()
            if entry.locator is not None and entry.locator.section not in toc_titles:
                toc_titles[entry.locator.section] = entry.title
            stack.extend(reversed(entry.children))
        for index, section in enumerate(sections):
            heading = next((s.text for s in section.segments if s.kind == SegmentKind.HEADING), "")
            section.title = toc_titles.get(index) or heading or section.title or f"Section {index + 1}"

    # -- table of contents ------------------------------------------------------------------
    def locate(self, href: str, base: str) -> Locator | None:
        target, fragment = urldefrag(href)
        path = posixpath.normpath(posixpath.join(posixpath.dirname(base), unquote(target))) if target else base
        section = self.section_of.get(path)
        if section is None:
            return None
        return Locator(section, self.anchor_map[path].get(unquote(fragment), 0) if fragment else 0)

    def read_toc(self) -> list[TocEntry]:
        nav = self.package.nav
        if nav is not None and nav.media_type == XHTML_TYPE:
            toc = self.read_nav(self.path(nav.href))
            if toc:
                return toc
        ncx = self.package.ncx
        if ncx is not None:
            toc = self.read_ncx(self.path(ncx.href))
            if toc:
                return toc
        self.warnings.append("the book has no usable table of contents; built one from its chapters")
        return []

    def read_nav(self, path: str) -> list[TocEntry]:
        data = self.archive.files.get(path)
        if not data:
            return []
        try:
            root = parse_document(data)
        except BookFormatError:
            return []
        navs = [el for el in root.iter() if local_name(el) == "nav"]
        toc_nav = next((n for n in navs if "toc" in (n.get("{http://www.idpf.org/2007/ops}type") or "").split()), None)
        toc_nav = toc_nav if toc_nav is not None else (navs[0] if navs else None)
        if toc_nav is None:
            return []
        top = next((el for el in toc_nav.iter() if local_name(el) in ("ol", "ul")), None)
        return self.nav_list(top, path) if top is not None else []

    def nav_list(self, list_element: etree._Element, base: str) -> list[TocEntry]:
        entries = []
        for item in list_element:
            if local_name(item) != "li":
                continue
            link = next((el for el in item if local_name(el) in ("a", "span")), None)
            title = _clean(" ".join(link.itertext())) if link is not None else ""
            href = link.get("href") if link is not None else None
            sublist = next((el for el in item if local_name(el) in ("ol", "ul")), None)
            children = self.nav_list(sublist, base) if sublist is not None else []
            locator = self.locate(href, base) if href else (children[0].locator if children else None)
            entries.append(TocEntry(title=title or "Untitled", locator=locator, children=children))
        return entries

    def read_ncx(self, path: str) -> list[TocEntry]:
        data = self.archive.files.get(path)
        if not data:
            return []
        try:
            root = parse_xml(data, path)
        except BookFormatError:
            return []
        nav_map = next((el for el in root.iter() if local_name(el) == "navmap"), None)
        return self.ncx_points(nav_map, path) if nav_map is not None else []

    def ncx_points(self, parent: etree._Element, base: str) -> list[TocEntry]:
        entries = []
        for point in parent:
            if local_name(point) != "navpoint":
                continue
            label = next((el for el in point if local_name(el) == "navlabel"), None)
            content = next((el for el in point if local_name(el) == "content"), None)
            title = _clean(" ".join(label.itertext())) if label is not None else ""
            children = self.ncx_points(point, base)
            src = content.get("src") if content is not None else None
            locator = self.locate(src, base) if src else (children[0].locator if children else None)
            entries.append(TocEntry(title=title or "Untitled", locator=locator, children=children))
        return entries

    # -- metadata ---------------------------------------------------------------------------
    def dc(self, name: str) -> list[str]:
        return [_clean(value) for value in self.package.metadata.get(name, []) if _clean(value)]

    def read_metadata(self, sections: list[Section]) -> Metadata:
        titles = self.dc("title")
        sample = " ".join(seg.text for section in sections[:20] for seg in section.segments[:50])
        languages = self.dc("language")
        cover, cover_type = self.read_cover()
        description = self.dc("description")
        return Metadata(
            title=titles[0] if titles else (self.fallback_title or (sections[0].title if sections else "Untitled")),
            authors=self.dc("creator"),
            language=languages[0] if languages else guess_language(sample),
            publisher=(self.dc("publisher") or [""])[0],
            identifiers=self.dc("identifier"),
            description=_strip_tags(description[0]) if description else "",
            cover=cover,
            cover_media_type=cover_type,
            writing_mode=self.writing_mode(languages[0] if languages else guess_language(sample)),
        )

    def writing_mode(self, language: str) -> str:
        """ "vertical-rl" when the book is set in vertical columns: its pages turn leftward (the spine's
        page-progression-direction) and it is in Chinese, Japanese or Korean, or a stylesheet sets vertical-rl."""
        if self.package.progression == "rtl" and language.split("-")[0].lower() in ("zh", "ja", "ko"):
            return "vertical-rl"
        for item in self.package.items:
            if item.media_type == "text/css":
                css = _CSS_COMMENT.sub(
                    "", (self.archive.files.get(self.path(item.href)) or b"").decode("utf-8", "replace")
                )
                if _VERTICAL.search(css):
                    return "vertical-rl"
        return ""

    def read_cover(self) -> tuple[bytes | None, str]:
        candidates = [i for i in self.package.items if "cover-image" in i.properties]
        candidates += [i for i in (self.package.item(c) for c in self.package.cover_ids) if i is not None]
        candidates += [i for i in self.package.items if i.media_type in _IMAGE_TYPES and "cover" in i.href.lower()]
        for item in candidates:
            data = self.archive.files.get(self.path(item.href))
            if data and item.media_type in _IMAGE_TYPES:
                if item.media_type == "image/svg+xml":
                    data = inline_styles(data)  # its stylesheet's colours, which the app's renderer ignores
                return data, item.media_type
        return None, ""


_WS = re.compile(r"\s+")


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _strip_tags(text: str) -> str:
    return _clean(re.sub(r"<[^>]+>", " ", text))
