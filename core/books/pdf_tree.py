"""A long PDF's page tree walked only where asked, so that its first part opens without reading every page object.

pypdf numbers pages by flattening the whole tree first: every page object read, a third of the first page of a
2,916-page PDF (and growing with the file). A first part needs its first pages, a sample spread through the book,
the count and the outline's page numbers: the tree's ``/Count`` entries find those, reading only the nodes on the
way. A tree whose counts do not add up is not walked (``Unwalkable``): pypdf flattens it, as before. The whole
book is always read with pypdf's own numbering, the same on every device; a first part that a lying tree numbered
otherwise is moved onto it like any other (``core/library/in_part.py``).
"""

from __future__ import annotations

from typing import Any

# The entries a page takes from its ancestors when it has none of its own (PDF 32000-1, 7.7.3.4).
_INHERITED = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")
_MAX_DEPTH = 32  # a tree this deep is damaged or hostile (a balanced tree of 20,000 pages is a few levels)


class Unwalkable(Exception):
    """The tree cannot be walked by its counts (missing, wrong or inconsistent): flatten it instead."""


class PageTree:
    """The pages of a pypdf reader by number, and page numbers by object, from the tree's counts."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._root = _node(reader.root_object.get("/Pages"))
        self._count = _count(self._root)
        self._numbers: dict[int, int] | None = None
        self._kids: dict[int, tuple[Any, list[tuple[Any, Any | None, int]]]] = {}  # by id(node), node kept

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, number: int) -> Any:
        """The page (a pypdf ``PageObject``, with what it inherits) at this index; ``Unwalkable`` if not found."""
        if not 0 <= number < self._count:
            raise IndexError(number)
        return self._find(number)

    def number_of(self, reference: Any) -> int | None:
        """The index of the page an outline destination names (an object reference), or None."""
        if self._numbers is None:
            numbers: dict[int, int] = {}
            self._number(self._root, 0, numbers, 0)
            self._numbers = numbers
        idnum = reference if isinstance(reference, int) else getattr(reference, "idnum", None)
        return self._numbers.get(idnum) if isinstance(idnum, int) else None

    def _find(self, number: int) -> Any:
        node, offset = self._root, number
        inherited: dict[str, Any] = {}
        for _ in range(_MAX_DEPTH):
            inherited = {**inherited, **{name: node[name] for name in _INHERITED if name in node}}
            for reference, kid, size in self._sized_kids(node):
                if offset >= size:
                    offset -= size
                    continue
                kid = _flat_kid(reference) if kid is None else kid
                if not _is_pages(kid):
                    return self._page(reference, kid, inherited)
                node = kid
                break
            else:
                raise Unwalkable("a page tree node holds fewer pages than its count")
        raise Unwalkable("the page tree is deeper than a PDF's")

    def _page(self, reference: Any, node: Any, inherited: dict[str, Any]) -> Any:
        from pypdf import PageObject
        from pypdf.generic import IndirectObject, NameObject

        page = PageObject(self._reader, reference if isinstance(reference, IndirectObject) else None)
        page.update(node)
        for name, value in inherited.items():  # as pypdf's flattening gives them: only where the page has none
            if name not in page:
                page[NameObject(name)] = value
        return page

    def _number(self, node: Any, start: int, numbers: dict[int, int], depth: int) -> None:
        """Each page's object number under ``node`` mapped to its index (the first page is ``start``)."""
        if depth > _MAX_DEPTH:
            raise Unwalkable("the page tree is deeper than a PDF's")
        for reference, kid, size in self._sized_kids(node):
            if size == 0:  # a node holding no pages: nothing to number (a loop of them would end the walk)
                continue
            if kid is None or not _is_pages(kid):  # a page, or a kid of a flat node (not read: one page)
                idnum = getattr(reference, "idnum", None)
                if isinstance(idnum, int):
                    numbers.setdefault(idnum, start)
            else:
                self._number(kid, start, numbers, depth + 1)
            start += size

    def _sized_kids(self, node: Any) -> list[tuple[Any, Any | None, int]]:
        """``_kids_of`` a node, kept: a first part asks the flat root of a long PDF for 64 pages."""
        kept = self._kids.get(id(node))
        if kept is None or kept[0] is not node:
            kept = self._kids[id(node)] = (node, _kids_of(node))
        return kept[1]


def _kids_of(node: Any) -> list[tuple[Any, Any | None, int]]:
    """(reference, kid or None where not read, pages under it) for each kid of a ``/Pages`` node.

    A node with as many pages as kids has one page under each kid: they are not read until one is wanted (the
    flat list of a PDF written by most programs). Otherwise each kid is read and the counts must add up."""
    kids = _node(node.get("/Kids"), array=True)
    count = _count(node)
    if count == len(kids):
        return [(kid, None, 1) for kid in kids]
    sized = []
    for kid in kids:
        read = _node(kid)
        sized.append((kid, read, _count(read) if _is_pages(read) else 1))
    if sum(size for _, _, size in sized) != count:
        raise Unwalkable("a page tree node's count is not the sum of its kids'")
    return sized


def _flat_kid(reference: Any) -> Any:
    """A kid of a node with as many pages as kids, read now that it is wanted: a page, or a node holding one."""
    kid = _node(reference)
    if _is_pages(kid) and _count(kid) != 1:
        raise Unwalkable("a kid of a flat page tree node holds more than one page")
    return kid


def _node(reference: Any, *, array: bool = False) -> Any:
    from pypdf.generic import ArrayObject, DictionaryObject

    try:
        node = reference.get_object() if reference is not None else None
    except Exception as error:  # a reference to nothing, or a damaged object
        raise Unwalkable(f"a page tree entry does not read ({str(error)[:80]})") from None
    if node is None or not isinstance(node, ArrayObject if array else DictionaryObject) or (not array and not node):
        raise Unwalkable("a page tree entry of the wrong kind, or empty")  # pypdf skips those: its numbers differ
    return node


def _count(node: Any) -> int:
    count = node.get("/Count")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise Unwalkable("a page tree node without a count")
    return int(count)


def _is_pages(node: Any) -> bool:
    """A ``/Pages`` node (else a page), typed as pypdf types them; another type pypdf skips: not walked."""
    kind = node.get("/Type")
    if kind not in (None, "/Page", "/Pages"):
        raise Unwalkable(f"a page tree entry of type {str(kind)[:40]}")
    return bool(kind == "/Pages" or (kind is None and "/Kids" in node))
