"""The dictionary formats readers bring: StarDict (.ifo/.idx/.dict(.dz)/.syn), dictd (.index/.dict(.dz)) and
CC-CEDICT (its text file, plain or gzipped).

Each reader yields the headwords with where the article is (an offset and size in the article file) or, for
CC-CEDICT, the article itself (a line per entry: traditional, simplified, pinyin, senses). Articles become plain
text for the definition card: StarDict's Pango markup and HTML lose their tags, CC-CEDICT's numbered pinyin gets
its tone marks.
"""

from __future__ import annotations

import gzip
import html
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.dictionary.dictzip import MAX_OFFSET, gunzip, gunzip_chunks
from core.errors import BookFormatError

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
MAX_INDEX_BYTES = 96 * 1024 * 1024  # a StarDict .idx, unpacked (English Wiktionary's is near 40 MB)
MAX_HEADWORDS = 2_000_000  # English Wiktionary has about 1.2 million: each costs memory while it is imported
MAX_TEXT_BYTES = 256 * 1024 * 1024  # a dictd .index or a CC-CEDICT file, unpacked (CC-CEDICT is about 10 MB)
MAX_LINE_BYTES = 64 * 1024  # one line of those: a longer one is no entry, and is skipped without being kept


@dataclass(frozen=True, slots=True)
class Headword:
    """A headword and its article: where it is in the article file, or (CC-CEDICT) the article's text."""

    word: str
    offset: int = 0
    size: int = 0
    text: str = ""


@dataclass(frozen=True, slots=True)
class Source:
    """A dictionary found among the files given: its format, name, files and article type."""

    kind: str  # "stardict", "dictd" or "cedict"
    name: str
    index: Path  # .idx, .index or the CC-CEDICT file
    articles: Path | None  # .dict or .dict.dz (None for CC-CEDICT)
    synonyms: Path | None = None  # StarDict's .syn
    types: str = ""  # StarDict's sametypesequence (m: text, g: Pango markup, h: HTML, x: XDXF …)
    offset_bits: int = 32


def find_source(path: Path) -> Source:
    """The dictionary a file belongs to (any of its files, or its folder); BookFormatError when none is there."""
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    for file in files:
        name = file.name
        if name.endswith(".ifo"):
            return _stardict(file)
        if name.endswith(".index"):
            return _dictd(file)
        if re.search(r"cedict.*\.(txt|u8)(\.gz)?$", name, re.I) or _looks_like_cedict(file):
            return Source("cedict", "CC-CEDICT", file, None)
    for file in files:  # a StarDict or dictd file other than the one naming it: look beside it
        stem = re.sub(r"\.(idx|dict|dict\.dz|syn)(\.gz)?$", "", file.name)
        for sibling in (file.with_name(stem + ".ifo"), file.with_name(stem + ".index")):
            if sibling.exists() and sibling != file:
                return find_source(sibling)
    raise BookFormatError(
        f"{path.name} is not a dictionary Quire reads: give a StarDict .ifo (with its .idx and .dict.dz), a dictd "
        ".index (with its .dict.dz) or a CC-CEDICT file"
    )


def _looks_like_cedict(file: Path) -> bool:
    if not file.is_file() or file.suffix not in (".txt", ".u8", ".gz"):
        return False
    opener = gzip.open if file.suffix == ".gz" else open
    try:
        with opener(file, "rt", encoding="utf-8", errors="replace") as text:
            head = text.read(400)
    except (OSError, EOFError, zlib.error):  # not a gzip, cut short, or corrupt: not CC-CEDICT, whatever it is
        return False
    return "CC-CEDICT" in head


def _beside(index: Path, stem: str, endings: tuple[str, ...]) -> Path | None:
    return next((index.with_name(stem + e) for e in endings if index.with_name(stem + e).exists()), None)


def _stardict(ifo: Path) -> Source:
    fields = {}
    lines = ifo.read_text(encoding="utf-8", errors="replace").splitlines()
    if not lines or "StarDict" not in lines[0]:
        raise BookFormatError(f"{ifo.name} does not start as a StarDict .ifo file does")
    for line in lines[1:]:
        key, _, value = line.partition("=")
        fields[key.strip()] = value.strip()
    stem = ifo.name.removesuffix(".ifo")
    index = _beside(ifo, stem, (".idx", ".idx.gz"))
    articles = _beside(ifo, stem, (".dict.dz", ".dict"))
    if index is None or articles is None:
        raise BookFormatError(f"{ifo.name} needs its {stem}.idx and {stem}.dict.dz beside it")
    bits = fields.get("idxoffsetbits", "32") or "32"
    if bits not in ("32", "64"):
        raise BookFormatError(f"{ifo.name} says idxoffsetbits={bits[:20]}: StarDict offsets are 32 or 64 bits")
    return Source("stardict", fields.get("bookname") or stem, index, articles, _beside(ifo, stem, (".syn",)),
                  fields.get("sametypesequence", ""), int(bits))  # fmt: skip


def _dictd(index: Path) -> Source:
    stem = index.name.removesuffix(".index")
    articles = _beside(index, stem, (".dict.dz", ".dict"))
    if articles is None:
        raise BookFormatError(f"{index.name} needs its {stem}.dict.dz beside it")
    return Source("dictd", stem, index, articles)


def headwords(source: Source) -> Iterator[Headword]:
    """Every headword of the dictionary (synonyms too, pointing at their article); BookFormatError past
    MAX_HEADWORDS."""
    if source.kind == "stardict":
        words = _stardict_words(source)
    elif source.kind == "dictd":
        words = _dictd_words(source.index)
    else:
        words = _cedict_words(source.index)
    for count, word in enumerate(words, start=1):
        if count > MAX_HEADWORDS:
            raise BookFormatError(f"{source.index.name} holds more than {MAX_HEADWORDS:,} headwords: not imported")
        yield word


def _read_bounded(path: Path, limit: int) -> bytes:
    """A file's bytes (a .gz one unpacked), refused past ``limit`` bytes before they are all in memory."""
    if path.suffix == ".gz":
        return gunzip(path, limit)
    if path.stat().st_size > limit:
        raise BookFormatError(f"{path.name} is larger than {limit // (1024 * 1024)} MB: not a dictionary Quire reads")
    return path.read_bytes()


def _lines(path: Path) -> Iterator[str]:
    """A text file's lines (a .gz one unpacked as it is read), at most MAX_TEXT_BYTES in all; a line longer than
    MAX_LINE_BYTES is skipped without being held whole."""
    with path.open("rb") as file:
        pieces = gunzip_chunks(file, MAX_TEXT_BYTES, path.name) if path.suffix == ".gz" else _plain(file, path.name)
        pending, overlong = b"", False
        for piece in pieces:
            pending += piece
            *whole, pending = pending.split(b"\n")
            for line in whole:
                if not overlong:
                    yield line.decode("utf-8", errors="replace")
                overlong = False
            if len(pending) > MAX_LINE_BYTES:
                pending, overlong = b"", True
        if pending and not overlong:
            yield pending.decode("utf-8", errors="replace")


def _plain(file: object, name: str) -> Iterator[bytes]:
    total = 0
    while piece := file.read(1024 * 1024):  # type: ignore[attr-defined]
        total += len(piece)
        if total > MAX_TEXT_BYTES:
            raise BookFormatError(
                f"{name} is larger than {MAX_TEXT_BYTES // (1024 * 1024)} MB: not a dictionary Quire reads"
            )
        yield piece


def _stardict_words(source: Source) -> Iterator[Headword]:
    data = _read_bounded(source.index, MAX_INDEX_BYTES)
    width = 8 if source.offset_bits == 64 else 4
    entries: list[Headword] = []
    at = 0
    while at < len(data):
        end = data.find(b"\x00", at)
        if end < 0 or end + 1 + width + 4 > len(data):
            raise BookFormatError(f"{source.index.name} is cut short: its last entry is incomplete")
        word = data[at:end].decode("utf-8", errors="replace")
        offset = int.from_bytes(data[end + 1 : end + 1 + width], "big")
        (size,) = struct.unpack(">I", data[end + 1 + width : end + 5 + width])
        entries.append(Headword(word, offset, size) if offset <= MAX_OFFSET else Headword(word))  # past any file
        at = end + 5 + width
        if len(entries) > MAX_HEADWORDS:
            raise BookFormatError(f"{source.index.name} holds more than {MAX_HEADWORDS:,} headwords: not imported")
    yield from (e for e in entries if e.size)
    if source.synonyms is not None:
        syn = _read_bounded(source.synonyms, MAX_INDEX_BYTES)
        at = 0
        while at < len(syn):
            end = syn.find(b"\x00", at)
            if end < 0 or end + 5 > len(syn):
                break
            (target,) = struct.unpack(">I", syn[end + 1 : end + 5])
            if target < len(entries) and entries[target].size:
                found = entries[target]
                yield Headword(syn[at:end].decode("utf-8", errors="replace"), found.offset, found.size)
            at = end + 5


def _b64(text: str) -> int:
    if len(text) > 8:  # 48 bits: past any real file
        raise BookFormatError(f"a dictd index holds {text[:20]!r}…, a number too large for any file")
    value = 0
    for char in text:
        digit = _B64.find(char)
        if digit < 0:
            raise BookFormatError(f"a dictd index holds {text!r} where a number belongs")
        value = value * 64 + digit
    return value


def _dictd_words(index: Path) -> Iterator[Headword]:
    for line in _lines(index):
        parts = line.rstrip("\r").split("\t")
        if len(parts) < 3 or parts[0].startswith("00-database"):
            continue  # the database's own entries (its name, its URL)
        yield Headword(parts[0], _b64(parts[1]), _b64(parts[2]))


_CEDICT = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")


def _cedict_words(path: Path) -> Iterator[Headword]:
    for line in _lines(path):
        match = _CEDICT.match(line)
        if match is None:
            continue  # comments (#) and anything else
        traditional, simplified, pinyin, senses = match.groups()
        text = f"{tone_marks(pinyin)}\n" + "; ".join(s for s in senses.split("/") if s)
        yield Headword(simplified, text=text)
        if traditional != simplified:
            yield Headword(traditional, text=text)


def plain_text(article: bytes, source: Source) -> str:
    """An article as plain text: StarDict's markup without its tags (types g, h, x); dictd's reflowed (its lines
    were broken to fit a terminal: a card wraps them itself), each sense and paragraph kept on its own line."""
    text = article.decode("utf-8", errors="replace")
    if source.kind == "stardict" and (not source.types or source.types[0] in "ghx"):
        text = re.sub(r"<br\s*/?>|</p>|</div>|</li>", "\n", text, flags=re.I)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    if source.kind == "dictd":
        text = reflow(text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_SENSE = re.compile(r"^(?:[a-z]{1,4}\.?\s+)?\d{1,3}\s*[:.)]|^[a-z]{1,4}\s*:|^[\[(]?\d{1,3}[\]).]\s|^[-*•]\s")


def reflow(text: str) -> str:
    """dictd's hard-wrapped lines joined into one line per sense or paragraph: a line indented deeper than the line
    its block began with continues it, unless it starts a sense ("n 1:", "2:", "v 1:") or follows a blank line."""
    out: list[str] = []
    block_indent: int | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if not stripped:
            out.append("")
            block_indent = None
            continue
        continues = (
            out and out[-1] and block_indent is not None and indent > block_indent and not _SENSE.match(stripped)
        )
        if continues:
            out[-1] = f"{out[-1]} {stripped}"
        else:
            out.append(stripped if out else line)
            block_indent = indent
    return "\n".join(out)


_TONES = {"a": "āáǎàa", "e": "ēéěèe", "i": "īíǐìi", "o": "ōóǒòo", "u": "ūúǔùu", "ü": "ǖǘǚǜü"}


def tone_marks(pinyin: str) -> str:
    """CC-CEDICT's numbered pinyin with tone marks (ni3 hao3: nǐ hǎo): the mark goes on a or e, on the o of ou,
    else on the last vowel; "u:" is ü. Hand-written (a dozen lines; the packages that do it bring much more)."""
    syllables = []
    for syllable in pinyin.split():
        match = re.fullmatch(r"([a-zA-Zü:]+)([1-5])", syllable)
        if match is None:
            syllables.append(syllable)
            continue
        letters, tone = match.group(1).replace("u:", "ü").replace("U:", "Ü"), int(match.group(2))
        lower = letters.lower()
        at = (
            lower.find("a")
            if "a" in lower
            else lower.find("e")
            if "e" in lower
            else lower.find("o")
            if "ou" in lower
            else -1
        )
        if at < 0:
            at = max(lower.rfind(v) for v in "iouü")
        if at < 0:
            syllables.append(letters)
            continue
        marked = _TONES[lower[at]][tone - 1]
        syllables.append(letters[:at] + (marked.upper() if letters[at].isupper() else marked) + letters[at + 1 :])
    return " ".join(syllables)
