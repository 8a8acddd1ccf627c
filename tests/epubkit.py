"""Build small EPUB files inside tests (for crafted and hostile cases)."""

from __future__ import annotations

import io
import zipfile

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

OPF = """<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>{title}</dc:title><dc:language>{language}</dc:language><dc:identifier id="id">urn:test:{title}</dc:identifier>
    <dc:creator>Test Author</dc:creator>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    {items}
  </manifest>
  <spine>{itemrefs}</spine>
</package>"""

NAV = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>nav</title></head>
<body><nav epub:type="toc"><ol>{entries}</ol></nav></body></html>"""


def chapter(title: str, body: str, doctype: str = "") -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{doctype}'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>'
        f"{title}</title></head><body><h1>{title}</h1>{body}</body></html>"
    )


def make_epub(
    chapters: list[tuple[str, str]] | None = None,
    *,
    title: str = "Crafted Book",
    language: str = "en",
    extra: dict[str, bytes | str] | None = None,
    raw_chapters: dict[str, str] | None = None,
    compression: int = zipfile.ZIP_DEFLATED,
) -> bytes:
    """An EPUB 3 with the given (title, body HTML) chapters and any extra archive entries."""
    chapters = chapters if chapters is not None else [("One", "<p>First chapter text.</p>")]
    files: dict[str, bytes | str] = {}
    items, itemrefs, entries = [], [], []
    for index, (name, body) in enumerate(chapters, start=1):
        href = f"ch{index}.xhtml"
        files[f"OEBPS/{href}"] = (raw_chapters or {}).get(href) or chapter(name, body)
        items.append(f'<item id="c{index}" href="{href}" media-type="application/xhtml+xml"/>')
        itemrefs.append(f'<itemref idref="c{index}"/>')
        entries.append(f'<li><a href="{href}">{name}</a></li>')
    files["OEBPS/nav.xhtml"] = NAV.format(entries="".join(entries))
    files["OEBPS/content.opf"] = OPF.format(
        title=title, language=language, items="".join(items), itemrefs="".join(itemrefs)
    )
    files["META-INF/container.xml"] = CONTAINER
    files.update(extra or {})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()
