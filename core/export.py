"""Export a book's highlights, notes and bookmarks as Markdown (reads well in Obsidian) or JSON."""

from __future__ import annotations

import json

from core.library.records import Bookmark, BookRecord, Highlight
from core.quotes import balanced


def export_markdown(
    book: BookRecord, highlights: list[Highlight], bookmarks: list[Bookmark], sections: dict[int, str]
) -> str:
    """Markdown with YAML front matter, highlights grouped under their chapter, notes beneath each."""
    authors = ", ".join(book.authors)
    lines = [
        "---",
        f"title: {json.dumps(book.title, ensure_ascii=False)}",
        f"author: {json.dumps(authors, ensure_ascii=False)}",
        f"language: {book.language or 'und'}",
        "source: quire",
        f"highlights: {len(highlights)}",
        "---",
        "",
        f"# {book.title}",
        "",
    ]
    if authors:
        lines += [f"*{authors}*", ""]
    if not highlights:
        lines += ["No highlights yet.", ""]
    current_section = None
    for highlight in highlights:
        section = sections.get(highlight.start.section, f"Section {highlight.start.section + 1}")
        if section != current_section:
            lines += [f"## {section}", ""]
            current_section = section
        quoted = "\n".join(f"> {line}" if line else ">" for line in balanced(highlight.text).splitlines())
        lines += [quoted, f"> — {highlight.color}, `{highlight.start}`", ""]
        if highlight.note.strip():
            lines += [f"**Note:** {highlight.note.strip()}", ""]
    if bookmarks:
        lines += ["## Bookmarks", ""]
        lines += [f"- `{b.locator}` {b.label}" for b in bookmarks]
        lines.append("")
    return "\n".join(lines)


def export_json(book: BookRecord, highlights: list[Highlight], bookmarks: list[Bookmark]) -> str:
    """The same content as machine-readable JSON."""
    payload = {
        "book": {"id": book.id, "title": book.title, "authors": book.authors, "language": book.language,
                 "content_hash": book.content_hash},
        "highlights": [h.to_dict() for h in highlights],
        "bookmarks": [b.to_dict() for b in bookmarks],
    }  # fmt: skip
    return json.dumps(payload, ensure_ascii=False, indent=2)
