"""Markdown the chat may draw: book text escaped when placed into it, and no image that would be fetched.

A chat answer mixes the model's Markdown with text from the book; neither may make the client fetch a
URL on its own (``![](http://…)`` is a tracking pixel, or a way to send what the reader asked elsewhere).
Links stay, since following one is the reader's choice.
"""

from __future__ import annotations

import re

# The characters that open inline syntax (emphasis, code, links, images, HTML, strike-through). Block syntax
# needs a line start, and escaped text is always one line placed after Quire's own words.
_SPECIAL = re.compile(r"([\\`*_\[\]<>~])")
_IMAGE_START = re.compile(r"!\[")
_HTML_IMAGE = re.compile(r"<(?=\s*(?:img|image|svg|picture|source|video|audio|iframe|object|embed)\b)", re.I)


def escape_markdown(text: str) -> str:
    """``text`` shown literally inside Markdown: no emphasis, links, images or HTML of its own; one line."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def without_remote_images(markdown: str) -> str:
    """Markdown whose images (inline, reference, or HTML tags) are shown as their text, never fetched."""
    return _HTML_IMAGE.sub("&lt;", _IMAGE_START.sub(r"!\\[", markdown))
