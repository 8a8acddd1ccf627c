"""An EPUB's package document (the OPF): its metadata, manifest and reading order, read with the safe parser.

Hand-written because it is small (three lists out of one XML file) and the library that did it, ebooklib, is
AGPL-licensed: Quire is MIT. Tolerant as readers are: namespace prefixes, missing attributes and a metadata block
nested the EPUB 2 way are all read; a file without a manifest or a reading order cannot be a book.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from core.books.safexml import local_name, parse_xml
from core.errors import BookFormatError

DC = "http://purl.org/dc/elements/1.1/"
NCX_TYPE = "application/x-dtbncx+xml"
XHTML_TYPE = "application/xhtml+xml"


@dataclass(frozen=True, slots=True)
class ManifestItem:
    """One file the package lists: its id, its address relative to the package document, its type."""

    id: str
    href: str
    media_type: str
    properties: frozenset[str] = frozenset()


@dataclass
class Package:
    """What the package document says: files, reading order (idref, linear), Dublin Core metadata, cover ids."""

    items: list[ManifestItem]
    spine: list[tuple[str | None, str]]
    metadata: dict[str, list[str]] = field(default_factory=dict)  # "title", "creator", ...: values in order
    cover_ids: list[str] = field(default_factory=list)  # <meta name="cover" content="…"> (EPUB 2)
    progression: str = ""  # the spine's page-progression-direction: "rtl" for a book whose pages turn leftward

    def item(self, item_id: str) -> ManifestItem | None:
        """The manifest item with this id (the first, when a damaged manifest repeats one)."""
        return next((i for i in self.items if i.id == item_id), None)

    @property
    def nav(self) -> ManifestItem | None:
        """The EPUB 3 navigation document."""
        return next((i for i in self.items if "nav" in i.properties), None)

    @property
    def ncx(self) -> ManifestItem | None:
        """The EPUB 2 table of contents."""
        return next((i for i in self.items if i.media_type == NCX_TYPE), None)


def read_package(data: bytes) -> Package:
    """Read a package document; BookFormatError when it is not one (no manifest, no reading order, not XML)."""
    try:
        root = parse_xml(data, "the package document")
    except BookFormatError as error:
        raise BookFormatError(f"this EPUB's package document is damaged and cannot be read ({error})") from error
    manifest = _child(root, "manifest")
    spine = _child(root, "spine")
    if manifest is None or spine is None:
        missing = "list of files (manifest)" if manifest is None else "reading order (spine)"
        raise BookFormatError(f"this EPUB's package document is damaged and cannot be read: it has no {missing}")
    items = [_item(element) for element in manifest if local_name(element) == "item" and element.get("href")]
    order = [
        (element.get("idref"), element.get("linear", "yes")) for element in spine if local_name(element) == "itemref"
    ]
    metadata: dict[str, list[str]] = {}
    covers: list[str] = []
    block = _child(root, "metadata")
    for element in block.iter() if block is not None else ():
        if not isinstance(element.tag, str):
            continue  # a comment or a processing instruction
        if element.tag.startswith(f"{{{DC}}}"):
            metadata.setdefault(local_name(element), []).append("".join(element.itertext()))
        elif local_name(element) == "meta" and element.get("name") == "cover" and element.get("content"):
            covers.append(element.get("content", ""))
    progression = (spine.get("page-progression-direction") or "").strip().lower()
    return Package(items, order, metadata, covers, progression)


def _child(root: etree._Element, name: str) -> etree._Element | None:
    return next((element for element in root if local_name(element) == name), None)


def _item(element: etree._Element) -> ManifestItem:
    media_type = (element.get("media-type") or "").strip().lower()
    if media_type == "image/jpg":  # a common mistake
        media_type = "image/jpeg"
    properties = frozenset((element.get("properties") or "").split())
    return ManifestItem(element.get("id") or "", element.get("href", ""), media_type, properties)
