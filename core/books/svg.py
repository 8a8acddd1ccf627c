"""SVG pictures made drawable by Flutter's SVG renderer, which ignores CSS ``<style>`` rules.

Standard Ebooks' covers colour their title text with a ``<style>`` block (``text { fill: #fff }``); drawn without
it the text is black on a dark band. Each rule with simple selectors (``tag``, ``.class``, ``#id``,
``tag.class``, comma lists) is copied into the matching elements' ``style`` attribute, before their own styles,
so that an element's own declarations still win. Anything else in the stylesheet is left as it was.
"""

from __future__ import annotations

import re

from lxml import etree

from core.books.safexml import local_name, parse_xml
from core.errors import BookFormatError

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_SIMPLE = re.compile(r"^([a-zA-Z][\w-]*)?(?:\.([\w-]+))?(?:#([\w-]+))?$")


def inline_styles(data: bytes) -> bytes:
    """The SVG with its stylesheet's simple rules copied onto the elements they select (unchanged if none)."""
    if b"<style" not in data:
        return data
    try:
        root = parse_xml(data, "an SVG picture")
    except BookFormatError:
        return data
    sheet = "".join("".join(s.itertext()) for s in root.iter() if local_name(s) == "style")
    rules: list[tuple[str, str | None, str | None, str]] = []
    for selectors, body in _RULE.findall(_COMMENT.sub("", sheet)):
        declarations = "; ".join(d.strip() for d in body.split(";") if ":" in d)
        for selector in selectors.split(","):
            match = _SIMPLE.match(selector.strip())
            if match and any(match.groups()) and declarations:
                rules.append((*match.groups(), declarations))  # type: ignore[arg-type]
    if not rules:
        return data
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        name, classes, ident = local_name(element), set(element.get("class", "").split()), element.get("id")
        matched = [  # a rule's declarations once, even when two of its selectors match
            declarations
            for tag, klass, wanted, declarations in rules
            if (tag is None or tag == name)
            and (klass is None or klass in classes)
            and (wanted is None or wanted == ident)
        ]
        if matched:
            own = element.get("style", "")
            element.set("style", "; ".join([*dict.fromkeys(matched), *([own] if own else [])]))
    return bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))
