"""XML and HTML parsing that never resolves external entities or touches the network (no XXE)."""

from __future__ import annotations

from lxml import etree, html as lxml_html

from core.errors import BookFormatError


def _xml_parser(recover: bool) -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        recover=recover,
    )


def parse_xml(data: bytes, what: str) -> etree._Element:
    """Parse XML leniently (recovering from small errors); raise BookFormatError if nothing is left."""
    parser = _xml_parser(recover=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise BookFormatError(f"{what} is not readable XML ({error})") from error
    if any("Excessive depth" in entry.message for entry in parser.error_log):
        # libxml2 stops at 256 levels and recovery keeps what came before: refused, not read as a cut-off book
        raise BookFormatError(f"{what} is nested too deeply to read safely")
    if root is None:
        raise BookFormatError(f"{what} is empty or not XML")
    return root


def parse_document(data: bytes) -> etree._Element:
    """Parse an (X)HTML document: strict XML first, then the forgiving HTML parser.

    The HTML parser knows HTML's named entities (``&nbsp;``) that XHTML files often use without a
    DTD, and, like the XML parser here, never loads external entities.
    """
    try:
        root = etree.fromstring(data, _xml_parser(recover=False))
        if root is not None:
            return root
    except etree.XMLSyntaxError:
        pass
    try:
        return lxml_html.document_fromstring(data, parser=lxml_html.HTMLParser(no_network=True))
    except (etree.ParserError, ValueError) as error:
        raise BookFormatError(f"document is not readable HTML ({error})") from error


def local_name(element: etree._Element) -> str:
    """The element's tag without its namespace, lower-cased ('' for comments and PIs)."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()
