"""Reader for a plain HTML file: one document, chapters at its headings."""

from __future__ import annotations

from core.books.html_blocks import document_title, extract_segments
from core.books.model import Book, Metadata
from core.books.safexml import local_name, parse_document
from core.books.sections import sectionize, title_heading
from core.books.textutil import guess_language
from core.errors import BookFormatError


def read_html(data: bytes, fallback_title: str) -> Book:
    """Parse an HTML book's bytes."""
    root = parse_document(data)
    segments = extract_segments(root)
    if not segments:
        raise BookFormatError("this HTML file has no text in it")
    title = document_title(root) or title_heading(segments) or fallback_title
    sections, toc = sectionize(segments, title)
    lang = next(
        (
            el.get("lang") or el.get("{http://www.w3.org/XML/1998/namespace}lang")
            for el in root.iter()
            if local_name(el) == "html"
        ),
        None,
    )
    sample = " ".join(s.text for s in segments[:400])
    metadata = Metadata(title=title, language=lang or guess_language(sample))
    return Book(format="html", metadata=metadata, sections=sections, toc=toc)
