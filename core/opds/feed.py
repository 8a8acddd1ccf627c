"""OPDS 1.2 feeds (Atom) read safely: entries, their books and covers, paging and search, on the catalog's host only.

Hand-written over lxml (already a dependency, on phones too) rather than a feed library: the known OPDS readers on
the registry are unmaintained, and what matters here is what is refused. The parser resolves no entities, reads
no DTD and nothing from the network (no XXE), and libxml2's own limits stop deep nesting and entity expansion;
a feed is read only up to MAX_FEED_BYTES and MAX_ENTRIES. A link to another host than the catalog's is dropped
(counted in ``OpdsFeed.elsewhere``): the login is for that catalog alone, and a feed must not send Quire
elsewhere.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import asdict, dataclass, field
from typing import Any

from lxml import etree

from core.errors import CatalogError

MAX_FEED_BYTES = 8 * 1024 * 1024
MAX_ENTRIES = 2_000
ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ACQUISITION = "http://opds-spec.org/acquisition"
# A book's format from its acquisition link's media type, in the order a download prefers them.
FORMATS = {
    "application/epub+zip": "epub",
    "application/x-mobi8-ebook": "azw3",
    "application/vnd.amazon.ebook": "azw3",
    "application/x-mobipocket-ebook": "mobi",
    "application/pdf": "pdf",
    "application/fb2+zip": "fb2",
    "application/x-fictionbook+xml": "fb2",
    "application/x-cbz": "cbz",
    "application/vnd.comicbook+zip": "cbz",
    "text/plain": "txt",
    "text/markdown": "md",
    "text/html": "html",
}


@dataclass(frozen=True, slots=True)
class Acquisition:
    """A way to download an entry's book: its URL, media type and format name."""

    href: str
    type: str
    format: str


@dataclass(frozen=True, slots=True)
class OpdsEntry:
    """One entry: a book (with acquisitions) or a way into another feed (``feed``)."""

    id: str
    title: str
    authors: tuple[str, ...] = ()
    summary: str = ""
    acquisitions: tuple[Acquisition, ...] = ()
    feed: str | None = None  # a navigation entry: the feed it leads to
    cover: str | None = None
    thumbnail: str | None = None

    @property
    def formats(self) -> list[str]:
        return [a.format for a in self.acquisitions]

    def best(self) -> Acquisition | None:
        """The acquisition to download: EPUB, then AZW3, MOBI, PDF and the rest (FORMATS' order)."""
        order = list(dict.fromkeys(FORMATS.values()))
        ranked = sorted(self.acquisitions, key=lambda a: order.index(a.format) if a.format in order else len(order))
        return ranked[0] if ranked else None

    def to_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["authors"], found["formats"] = list(self.authors), self.formats
        return found


@dataclass(frozen=True, slots=True)
class OpdsFeed:
    """A feed as read: its entries, where its next and previous pages are, and how to search the catalog."""

    url: str
    title: str
    entries: list[OpdsEntry] = field(default_factory=list)
    next: str | None = None
    previous: str | None = None
    search: str | None = None  # a URL template with {searchTerms}
    search_description: str | None = None  # an OpenSearch description to read the template from
    elsewhere: int = 0  # links to other hosts, dropped

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url, "title": self.title, "entries": [e.to_dict() for e in self.entries],
            "next": self.next, "previous": self.previous, "search": self.search, "elsewhere": self.elsewhere,
        }  # fmt: skip


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def origin(url: str) -> tuple[str, str, int | None]:
    """A URL's server: scheme, host and port (a catalog's login and links belong to its own)."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


class _Links:
    """Resolves a feed's links against its URL and keeps only those on the catalog's own host."""

    def __init__(self, base: str, home: str) -> None:
        self.base, self.home, self.elsewhere = base, origin(home), 0

    def __call__(self, href: str | None) -> str | None:
        if not href:
            return None
        template = "{searchTerms}" in href
        target = urllib.parse.urljoin(self.base, href.replace("{searchTerms}", "QUIRE_TERMS") if template else href)
        if origin(target) != self.home:
            self.elsewhere += 1
            return None
        return target.replace("QUIRE_TERMS", "{searchTerms}") if template else target


def _root(data: bytes, what: str) -> etree._Element:
    if len(data) > MAX_FEED_BYTES:
        raise CatalogError(f"the {what} is larger than {MAX_FEED_BYTES // (1024 * 1024)} MB: Quire does not read it")
    try:
        return etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as error:
        raise CatalogError(f"the {what} is not readable XML ({str(error)[:120]})") from None


def _text(node: etree._Element | None) -> str:
    return " ".join("".join(node.itertext()).split()) if node is not None else ""


def parse_feed(data: bytes, url: str, home: str) -> OpdsFeed:
    """The OPDS feed in ``data``, fetched from ``url`` in the catalog at ``home``. CatalogError when it is not one."""
    root = _root(data, "catalog's feed")
    if root.tag != f"{ATOM}feed":
        raise CatalogError("the address does not give an OPDS catalog (an Atom feed): check the catalog's URL")
    link = _Links(url, home)
    feed: dict[str, Any] = {}
    for node in root.findall(f"{ATOM}link"):
        rel, kind = node.get("rel", ""), node.get("type", "")
        if rel in ("next", "previous") and rel not in feed:
            feed[rel] = link(node.get("href"))
        elif rel == "search":
            if "opensearchdescription" in kind:
                feed["search_description"] = link(node.get("href"))
            elif "{searchTerms}" in node.get("href", ""):
                feed["search"] = link(node.get("href"))
    entries = [_entry(node, link) for node in root.findall(f"{ATOM}entry")[:MAX_ENTRIES]]
    return OpdsFeed(url, _text(root.find(f"{ATOM}title")), entries, elsewhere=link.elsewhere, **feed)


def _entry(node: etree._Element, link: _Links) -> OpdsEntry:
    acquisitions: list[Acquisition] = []
    leads: str | None = None
    images: dict[str, str | None] = {}
    for anchor in node.findall(f"{ATOM}link"):
        rel, kind = anchor.get("rel", ""), anchor.get("type", "").split(";")[0].strip().lower()
        if rel.startswith(ACQUISITION):
            href = link(anchor.get("href"))
            if href and kind in FORMATS:
                acquisitions.append(Acquisition(href, kind, FORMATS[kind]))
        elif rel in ("http://opds-spec.org/image", "http://opds-spec.org/cover"):
            images.setdefault("cover", link(anchor.get("href")))
        elif rel in ("http://opds-spec.org/image/thumbnail", "http://opds-spec.org/thumbnail"):
            images.setdefault("thumbnail", link(anchor.get("href")))
        elif kind == "application/atom+xml" and leads is None:
            leads = link(anchor.get("href"))
    authors = tuple(_text(a.find(f"{ATOM}name")) for a in node.findall(f"{ATOM}author"))
    summary = _text(node.find(f"{ATOM}summary")) or _text(node.find(f"{ATOM}content"))
    return OpdsEntry(
        _text(node.find(f"{ATOM}id")) or _text(node.find(f"{ATOM}title")), _text(node.find(f"{ATOM}title")),
        tuple(a for a in authors if a), summary[:2_000], tuple(acquisitions), leads if not acquisitions else None,
        images.get("cover"), images.get("thumbnail"),
    )  # fmt: skip


def search_template(data: bytes, url: str, home: str) -> str | None:
    """The Atom search template ({searchTerms}) of an OpenSearch description; None when it has none here."""
    root = _root(data, "catalog's search description")
    link = _Links(url, home)
    for node in root.iter(f"{OPENSEARCH}Url", "Url"):
        kind = node.get("type", "")
        if "atom" in kind and "{searchTerms}" in node.get("template", ""):
            return link(node.get("template"))
    return None
