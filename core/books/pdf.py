"""Text PDFs as reflowable books: paragraphs rebuilt from lines, running heads and page numbers dropped,
hyphenated line ends joined, the outline as the contents, each page's first paragraph marked ``page-N``.

pypdf (BSD, pure Python, so it runs on phones too) reads the text with each run's position (its content streams
read by core/books/pdf_content.py, a faster reader giving the same operations); a paragraph ends
where the gap to the next line is clearly wider than the page's usual line spacing. A PDF with no text layer
(scanned pages) opens as pictures of its pages where pdfium can draw them (core/books/pdf_pages.py), and is
refused with a message saying why where it cannot (phones).
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from core.books import pdf_content, pdf_pages
from core.books.limits import check_count
from core.books.locator import Locator
from core.books.model import PAGE_LABEL, Book, Metadata, ReadProgress, Section, Segment, SegmentKind, TocEntry
from core.books.pdf_tree import PageTree, Unwalkable
from core.books.text import book_from_text, converted_lines
from core.books.textutil import display_width, guess_language, is_cjk, without_marks_at_end
from core.errors import BookFormatError, DrmProtectedError

log = logging.getLogger(__name__)

MAX_PAGES = 20_000
PARAGRAPH_GAP = 1.4  # a gap this many times the usual line spacing ends a paragraph
RUNNING_PAGES = 2  # a first or last line repeated (digits aside) on this many pages is a running head or foot
_SENTENCE_END = re.compile(r"[.!?:;\"'”’)\]。！？：；」』）…]$")
_LABEL = re.compile(r"[^\W_][\w.\-]{0,11}")
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[\divxlcdm]{1,6}$|^-\s*\d{1,5}\s*-$", re.I)


@dataclass
class _Line:
    y: float
    text: str
    page: int
    size: float = 0.0  # the font size most of its letters are drawn at (a heading's is larger)
    x: float = 0.0  # where its leftmost run starts
    opens: bool = False  # a drop cap was put before it: it is a paragraph's first line
    apart: bool = False  # a title a wide gap set apart from the text after it on the same line: its own paragraph
    title: str = ""  # the short run a wide gap sets apart at the line's start (split off once running lines are gone)


@dataclass
class _Paragraph:
    text: str
    pages: list[int] = field(default_factory=list)
    label: str = ""  # the printed label of its first page


def _anchors(paragraph: _Paragraph) -> tuple[str, ...]:
    """``page-N`` for each page the paragraph is on, and its first page's printed label (``PAGE_LABEL``)."""
    return (*(f"page-{page + 1}" for page in paragraph.pages), PAGE_LABEL + paragraph.label)


def read_pdf(
    data: bytes, fallback_title: str, progress: ReadProgress | None = None, *, first_pages: int | None = None
) -> Book:
    """Parse a text PDF into the book model; ``progress`` is told (pages read, pages in all) after each page.

    ``first_pages``: of a PDF more than twice as long, read only that many pages from the start (its first part,
    shown while the rest is read); ``Book.pages_read`` then says how many were read of how many."""
    with _quiet_pypdf():  # a damaged file is reported once, as our own error
        try:
            return _read_pdf(data, fallback_title, progress, first_pages, walk=first_pages is not None)
        except Unwalkable:  # a first part whose page tree's counts do not add up: pypdf numbers its pages
            return _read_pdf(data, fallback_title, progress, first_pages, walk=False)


@contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf's own warnings held back while a PDF is read, and its logger's level given back after."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _read_pdf(
    data: bytes, fallback_title: str, progress: ReadProgress | None, first_pages: int | None, *, walk: bool = False
) -> Book:
    """``walk``: a first part's pages found through the page tree's counts (``core/books/pdf_tree.py``), where
    the tree says the PDF is long, rather than pypdf reading every page object first."""
    import pypdf  # here: the format's readers load their libraries only when a file of theirs is read

    pdf_content.install()  # pages' content streams read a token at a time, not a byte (the same operations)

    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DrmProtectedError("this PDF is locked with a password: open it elsewhere and save it unlocked")
        tree = _walked(reader, first_pages) if walk else None
        pages: PageTree | Sequence[object] = tree if tree is not None else reader.pages
        check_count("pages", len(pages), MAX_PAGES)
        counts = Counter[str]()  # characters read back as U+0000 ("nul"), given by /ActualText, and all others
        lines = []
        undecodable: list[int] = []  # pages drawn with a filter pypdf cannot decode here (JBIG2 needs a program)
        reading = len(pages) if first_pages is None or len(pages) <= 2 * first_pages else first_pages
        for number in range(reading):
            page = pages[number]
            try:
                lines.append(_page_lines(page, number, counts))
            except pypdf.errors.DependencyError:
                lines.append([])
                undecodable.append(number + 1)
            if progress is not None:
                progress(number + 1, reading)
        # A first part is measured with pages from all through the book beside it (its own are mostly front
        # matter: contents, title pages), so its lines are judged by the measure the whole book's are.
        sampled = [] if reading == len(pages) else _sample(pages, lines)
        outline = _outline(reader, tree.number_of if tree is not None else None)
        defined = _defined_labels(reader, len(pages))
        info = reader.metadata
        title = str(info.title).strip() if info and info.title else fallback_title
        author = str(info.author).strip() if info and info.author else ""
    except pypdf.errors.FileNotDecryptedError as error:
        raise DrmProtectedError("this PDF is locked with a password") from error
    except (pypdf.errors.PyPdfError, pypdf.errors.DependencyError) as error:  # damaged, looping, or undecodable
        raise BookFormatError(f"this PDF cannot be read ({str(error)[:120]})") from error
    if undecodable and len(undecodable) == len(pages):
        raise BookFormatError(
            "this PDF's pages are stored in a form Quire cannot decode (JBIG2 without its decoder): "
            "convert it again, or print it to a new PDF"
        )
    unreadable = counts["nul"] > 0.3 * counts["all"]  # fonts without a character map: a script they lacked
    if unreadable:
        raise BookFormatError(
            "this PDF's letters cannot be read back (its fonts map them to nothing, and draw nothing either): "
            "convert it again from its source with the fonts embedded"
        )
    if sum(len(page) for page in lines) == 0:
        if reading < len(pages):  # no text yet in its first pages: whether it is scanned needs them all
            return _read_pdf(data, fallback_title, progress, None)  # (pypdf numbers the pages of a whole read)
        return _scanned_pages(data, len(pages), title, author)
    printed: dict[int, int] = {}
    beyond = [page for page in sampled if page and page[0].page >= reading]  # the sampled pages not in ``lines``
    words = _vocabulary(lines + beyond)  # read once: drop caps and line-end hyphens are judged by the document's words
    lines = _with_drop_caps(lines, words)
    lines = [_titles_apart(page) for page in _without_running_lines(lines, printed)]
    labels = defined or _printed_labels(printed, len(pages))
    measure = [line for page in _without_running_lines(_with_drop_caps(sampled, words), {}) for line in page]
    paragraphs = _paragraphs([line for page in lines for line in page], words, measure if sampled else None)
    if reading < len(pages):  # the first part only: its last page's paragraphs may go on past it
        paragraphs = [p for p in paragraphs if p.pages[-1] < reading - 1] or paragraphs
    sections, toc = _sections(paragraphs, outline, title, labels)
    notes = (
        [f"{len(undecodable)} page(s) could not be decoded and were left out (the first: {undecodable[0]})"]
        if undecodable
        else []
    )
    if not outline:  # no outline (a text file printed to PDF): the chapters are found in the text, as in a .txt
        found = _chapters_from_text(paragraphs, title)
        if found is not None:
            sections, toc = found
            notes.append("the PDF has no outline; its chapters were found in its text")
    sample = " ".join(p.text for p in paragraphs[:200])
    metadata = Metadata(title=title, authors=[author] if author else [], language=guess_language(sample))
    return Book("pdf", metadata, sections, toc, notes, (reading, len(pages)) if reading < len(pages) else None)


def _walked(reader: object, first_pages: int | None) -> PageTree | None:
    """The page tree to walk for a first part: where it says the PDF is long enough to be read in part (a
    shorter one, or one past the limit, is numbered by pypdf, as a whole read numbers it)."""
    tree = PageTree(reader)
    if first_pages is None or not 2 * first_pages < len(tree) <= MAX_PAGES:
        return None
    return tree


def _chapters_from_text(paragraphs: list[_Paragraph], title: str) -> tuple[list[Section], list[TocEntry]] | None:
    """Chapters found by the .txt reader in the paragraphs, each segment keeping its paragraph's page anchors
    (matched in order); None when it finds no more than one chapter."""
    lines = [line for p in paragraphs for line in (p.text, "")]
    converted = book_from_text(converted_lines(lines), title, "pdf")
    if len(converted.sections) < 2:
        return None
    anchors = [_anchors(p) for p in paragraphs]
    texts = ["".join(p.text.split()) for p in paragraphs]
    position = 0
    for section in converted.sections:
        for segment in section.segments:
            wanted = "".join(segment.text.split())
            found = next((i for i in range(position, min(position + 50, len(texts))) if texts[i] == wanted), None)
            if found is not None:
                segment.anchors, position = anchors[found], found + 1
    return converted.sections, converted.toc


def _scanned_pages(data: bytes, count: int, title: str, author: str) -> Book:
    """Scanned pages (no text layer): a book of page pictures, one chapter per page, where pages can be drawn."""
    if not pdf_pages.available():
        raise BookFormatError(
            "this PDF is scanned pages with no text layer: this device cannot draw PDF pages, so open it with "
            "Quire on a computer (search and chat need text in any case)"
        )
    cover = pdf_pages.render(data, pdf_pages.page_src(0), pdf_pages.COVER_WIDTH)
    metadata = Metadata(title=title, authors=[author] if author else [], cover=cover,
                        cover_media_type="image/png" if cover else "")  # fmt: skip
    sections = [
        Section(title=f"{n + 1}", segments=[Segment(SegmentKind.IMAGE, "", src=pdf_pages.page_src(n))])
        for n in range(count)
    ]
    toc = [TocEntry(f"{n + 1}", Locator(n, 0)) for n in range(count)]
    return Book("pdf", metadata, sections, toc, [])


def _page_lines(page: object, number: int, counts: Counter[str]) -> list[_Line]:
    """The page's lines in reading order, each with its vertical position; ``counts`` adds its characters.

    Marked content with an ``/ActualText`` (PDF 1.5, 14.9.4) says what its glyphs stand for, and wins over
    them: Chromium's PDF printer (so calibre's) writes CJK text that its font lacks as glyph 0, read back as
    U+0000, with the real characters there. pypdf hands text over a line at a time, so each such glyph is put
    back in its place in the line (one glyph per sequence, as Chromium writes them), or, when the counts
    differ, the sequences' text goes before the line's other glyphs.
    """
    runs: list[tuple[float, str, float, float]] = []  # (y, text, font size, x)
    marked: list[str | None] = []  # the open marked-content sequences, each with its /ActualText or None
    waiting: list[str] = []  # /ActualText of sequences shown since pypdf last handed text over
    spoken = [False]  # the outermost /ActualText open now has been queued already

    def actual() -> str | None:
        return next((text for text in marked if text is not None), None)  # the outermost covers the rest

    def before(operator: bytes, operands: list[object], cm: list[float], tm: list[float]) -> None:
        if operator in (b"BDC", b"BMC"):
            properties = operands[1] if operator == b"BDC" and len(operands) > 1 else None
            text = properties.get("/ActualText") if hasattr(properties, "get") else None
            marked.append(str(text) if text is not None and actual() is None else None)
        elif operator == b"EMC" and marked:
            if marked.pop() is not None:
                spoken[0] = False
        elif operator in (b"Tj", b"TJ", b"'", b'"') and actual() is not None and not spoken[0]:
            waiting.append(" ".join(str(actual()).replace("\x00", " ").split()))
            spoken[0] = True

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        y = round(tm[5] * cm[3] + cm[5], 1)
        x = round(tm[4] * cm[0] + cm[4], 1)
        drawn = round(abs(size * (tm[3] or 1) * (cm[3] or 1)), 1)
        if waiting and text.count("\x00") == len(waiting):
            given = iter(waiting)
            text = "".join(next(given) if char == "\x00" else char for char in text)
            counts["actual"] += sum(len(t) for t in waiting)
        elif waiting and text.strip() and "\x00" not in text:
            pass  # the glyphs read back as themselves: their /ActualText would say each word twice
        elif waiting:
            runs.extend((y, t, drawn, x) for t in waiting if t)
            counts["actual"] += sum(len(t) for t in waiting)
        waiting.clear()
        text = _unspaced(text)
        counts["nul"] += text.count("\x00")
        counts["all"] += len("".join(text.split()))  # its characters other than spaces (split: the same spaces)
        if text.strip():
            runs.append((y, text, drawn, x))
        elif "\n" in text and runs:
            runs.append((runs[-1][0], "\n", drawn, x))
        elif text and runs and runs[-1][0] == y:
            runs.append((y, " ", drawn, x))  # a space drawn on its own between two words (else they run together)

    contents = page.get_contents()  # type: ignore[attr-defined]
    marks = contents is not None and b"/ActualText" in contents.get_data()  # else skip a call per operator
    page.extract_text(visitor_operand_before=before if marks else None, visitor_text=visit)  # type: ignore[attr-defined]
    lines: list[_Line] = []
    parts: list[list[tuple[str, float]]] = []  # per line: its runs, (text, size)
    end = 0.0  # where the line's last run ends, as near as its characters' widths say
    for y, text, drawn, x in runs:
        if lines and abs(lines[-1].y - y) < 1.0 and text != "\n":
            so_far = "".join(p for p, _ in parts[-1])
            if text.strip() and len(parts[-1]) == 1 and _set_apart(so_far, x - end, drawn):
                lines[-1].title = tidy_line(so_far)  # "第二篇", a wide gap, then the essay's first line
            parts[-1].append((text, drawn))
            if text.strip():
                lines[-1].x = min(lines[-1].x, x)
        elif text != "\n":
            lines.append(_Line(y, text, number, x=x))
            parts.append([(text, drawn)])
        end = x + display_width(text) * drawn / 2 if text.strip() else end
    for line, pieces in zip(lines, parts, strict=True):
        line.text = tidy_line(_small_caps(pieces))
        letters = Counter[float]()
        for piece, drawn in pieces:
            letters[drawn] += len(piece.strip())
        line.size = letters.most_common(1)[0][0]
    return [line for line in lines if line.text]


def _titles_apart(page: list[_Line]) -> list[_Line]:
    """The page's lines with each title a wide gap set apart split off into a line of its own (after running heads
    and page numbers are gone: "Chapter 1      12" is a running head, not a title and a page)."""
    out = []
    for line in page:
        rest = line.text[len(line.title) :].strip()
        if line.title and line.text.startswith(line.title) and len(rest) >= 8 and not rest.isdigit():
            out += [dataclasses.replace(line, text=line.title, apart=True), dataclasses.replace(line, text=rest)]
        else:
            out.append(line)
    return out


TITLE_GAP = 3.0  # ems between a short run and the next on one line: a title and the text it heads, set apart


def _set_apart(before: str, gap: float, size: float) -> bool:
    """Whether a run drawn ``gap`` points after the line so far (``before``) starts anew: the line so far is a
    short title (no sentence's end) and the gap is wider than a word's space could be."""
    head = before.strip()
    return (
        0 < len(head) <= 20
        and gap > TITLE_GAP * max(size, 1.0)
        and _SENTENCE_END.search(without_marks_at_end(head)) is None
    )


# A space between two wide characters (CJK, full-width forms, circled numbers, CJK punctuation) is a gap pypdf
# read between two runs of one line: Chinese and Japanese put none there ("一九二 七年", "了 ①").
_WIDE = "\u2460-\u24ff\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u3040-\u30ff"
_WIDE_GAP = re.compile(f"(?<=[{_WIDE}]) (?=[{_WIDE}])")
_WIDE_END = re.compile(f"[{_WIDE}]$")


def tidy_line(text: str) -> str:
    """A line's text with its spaces made single, none left between two wide (CJK) characters."""
    return _WIDE_GAP.sub("", " ".join(text.replace("\x00", " ").replace("\ufffd", " ").split()))


def _unspaced(text: str) -> str:
    """A letter-spaced run ("C H A P T E R  1 .  L O O M I N G S ."): one space between its letters, two or more
    between its words (pypdf's reading of CSS letter-spacing), closed up into words ("CHAPTER 1. LOOMINGS.").
    Kerned pairs and ligatures come as two or three letters together ("st", "bat"): most pieces are one letter."""
    stripped = text.strip()
    pieces = stripped.split()
    if len(pieces) < 4 or max(map(len, pieces)) > 3 or sum(len(p) == 1 for p in pieces) < 0.6 * len(pieces):
        return text
    words = [w.replace(" ", "") for w in re.split(r" {2,}", stripped)]
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    return lead + " ".join(words) + trail


def _small_caps(pieces: list[tuple[str, float]]) -> str:
    """A line's runs joined; small capitals read back as lower case.

    Small capitals are capitals drawn smaller: "S" at 24 points then "CANDAL" at 17 with no gap is "Scandal". A
    line that has such a word has its other small capital words in lower case too ("IN" at 17: "in")."""
    big = max(size for _, size in pieces)

    def small(text: str, size: float) -> bool:
        letters = text.strip()
        return size < 0.85 * big and letters.isalpha() and letters.isupper()

    joined = any(
        small(text, size) and not text[:1].isspace() and before.rstrip()[-1:].isupper() and before_size >= big * 0.95
        for (before, before_size), (text, size) in itertools.pairwise(pieces)
        if before.strip()
    )
    if not joined:
        return "".join(text for text, _ in pieces)
    return "".join(text.lower() if small(text, size) else text for text, size in pieces)


def _vocabulary(pages: list[list[_Line]]) -> Counter[str]:
    """How often the document writes each word (folded) inside its lines."""
    return Counter(w.casefold() for page in pages for line in page for w in _WORDS.findall(line.text))


def _with_drop_caps(pages: list[list[_Line]], inline: Counter[str]) -> list[list[_Line]]:
    """A drop cap (one letter, drawn at least twice as large as the text beside it) goes before the first line
    beside it: the highest line on its page within its height. It starts that line's first word ("T" + "o
    Sherlock"), unless it is a word of its own ("I" + "have"): the document's own words decide, where they can."""
    kept = []
    for page in pages:
        body = [line for line in page if len(line.text) > 1]
        usual = Counter(line.size for line in body).most_common(1)[0][0] if body else 0.0
        drops = [line for line in page if len(line.text) == 1 and line.text.isalpha() and usual
                 and line.size >= 2 * usual]  # fmt: skip
        for drop in drops:
            beside = [line for line in body if drop.y - 1 <= line.y <= drop.y + drop.size]
            if not beside:
                continue
            first = max(beside, key=lambda line: line.y)
            word = (_WORDS.findall(first.text[:40]) or [""])[0]
            whole = inline[(drop.text + word).casefold()] > inline[word.casefold()] or (
                drop.text.upper() not in "AIO" and word[:1].islower()
            )
            first.text = drop.text + ("" if whole else " ") + first.text
            first.opens = True
        kept.append([line for line in page if line not in drops or not any(
            drop.y - 1 <= b.y <= drop.y + drop.size for b in body)])  # fmt: skip
    return kept


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


def _without_running_lines(pages: list[list[_Line]], printed: dict[int, int]) -> list[list[_Line]]:
    """Drop page numbers and running heads or foots (the same first or last line on many pages); ``printed``
    gets each page's own number where one was printed on it in digits."""
    edges = Counter(_shape(line.text) for page in pages for line in (page[:1] + page[-1:]))
    common = {shape for shape, count in edges.items() if count >= RUNNING_PAGES}
    kept = []
    for number, page in enumerate(pages):
        drop = set()
        for index in {0, len(page) - 1} if page else set():
            if _PAGE_NUMBER.match(page[index].text) or _shape(page[index].text) in common:
                drop.add(index)
                digits = page[index].text.strip(" -")
                if digits.isdigit() and len(digits) <= 5:
                    printed[number] = int(digits)
        kept.append([line for index, line in enumerate(page) if index not in drop])
    return kept


def _sample(pages: Sequence[object] | PageTree, read: list[list[_Line]], count: int = 24) -> list[list[_Line]]:
    """The lines of ``count`` pages spread evenly through the book (those among the first ones, ``read``, as read)."""
    import pypdf

    step = max(1, len(pages) // count)
    sampled = []
    for number in range(step // 2, len(pages), step):
        if number < len(read):  # copies: drop caps are put in place on the lines themselves
            sampled.append([dataclasses.replace(line) for line in read[number]])
            continue
        try:
            sampled.append(_page_lines(pages[number], number, Counter()))
        except (pypdf.errors.PyPdfError, pypdf.errors.DependencyError, KeyError, ValueError, TypeError):
            log.debug("a sampled page did not read", exc_info=True)  # the measure is a page short, that is all
    return sampled


def _paragraphs(lines: list[_Line], words: Counter[str], measure: list[_Line] | None = None) -> list[_Paragraph]:
    """Lines joined into paragraphs: a wide gap, or a short line ending a sentence, ends one. The usual line
    spacing and a full line's width are measured on ``measure`` (by default the lines themselves)."""
    measure = lines if measure is None else measure
    gaps = [abs(b.y - a.y) for a, b in itertools.pairwise(measure) if a.page == b.page and b.y != a.y]
    spacing = Counter(round(gap) for gap in gaps).most_common(1)[0][0] if gaps else 0
    widths = sorted(len(line.text) for line in measure)
    full = widths[int(len(widths) * 0.9)] if widths else 0
    paragraphs: list[_Paragraph] = []
    hyphens = _Hyphens(lines, words)
    for index, line in enumerate(lines):
        previous = lines[index - 1] if index else None
        starts = previous is None
        if previous is not None:
            gap = abs(line.y - previous.y)
            ended = _SENTENCE_END.search(without_marks_at_end(previous.text)) is not None  # “不去。”⑴ too
            resized = abs(line.size - previous.size) > 0.15 * max(line.size, previous.size)  # a heading's edge
            # Chinese and Japanese lines break anywhere, so one short of the measure ended its paragraph, with or
            # without a full stop: a heading set in the text's size and spacing ("阿长与山海经" then "长妈妈，…").
            closed = ended or _WIDE_END.search(previous.text) is not None
            # After a sentence's end, a line set in by an em or more starts anew: a paragraph's indent, a centred
            # heading, where paragraphs are told apart by indents alone (no gap), as Chinese books set them.
            indented = ended and line.x > previous.x + max(line.size, 1.0)
            if line.page == previous.page:
                starts = (
                    gap > PARAGRAPH_GAP * spacing
                    or (closed and len(previous.text) < 0.75 * full)
                    or resized
                    or indented
                )
            else:  # a new page: the paragraph goes on unless the last one ended a sentence on a short line
                # A paragraph goes on over a page break only from a full line: a short last line ended it, with or
                # without a full stop (a chapter's name at a page's foot, as a TXT converted to PDF has them).
                starts = len(previous.text) < (0.9 if ended else 0.75) * full or resized
        if line.opens or line.apart or (previous is not None and previous.apart):
            starts = True  # a drop cap's line: the paragraph's first; a title set apart on its line: its own
        if starts:
            paragraphs.append(_Paragraph(line.text, [line.page]))
            continue
        current = paragraphs[-1]
        current.text = _join(current.text, line.text, hyphens)
        if line.page not in current.pages:
            current.pages.append(line.page)
    return paragraphs


_LAST_WORD = re.compile(r"[^\W\d_][\w'’-]*$")
_FIRST_WORD = re.compile(r"^[\w'’-]+")
_WORDS = re.compile(r"[^\W\d_][\w'’]*(?:-[\w'’]+)*")


class _Hyphens:
    """Whether a hyphen at a line's end is the word's own ("sea-" / "unicorn") or was added to break the word
    ("docu-" / "ment"), judged by the document's own words: the form it uses inside lines wins; where it uses
    neither, what most such words in this document did (a calibre PDF keeps its hyphens, TeX breaks words)."""

    def __init__(self, lines: list[_Line], inline: Counter[str]) -> None:
        self.inline = inline
        decided = [self._known(a, b) for a, b in self._breaks(lines)]
        self.keep_by_default = decided.count(True) >= decided.count(False)

    @staticmethod
    def _breaks(lines: list[_Line]) -> list[tuple[str, str]]:
        pairs = []
        for a, b in itertools.pairwise(lines):
            head, tail = _LAST_WORD.search(a.text), _FIRST_WORD.search(b.text)
            if a.text.endswith("-") and head and tail and tail.group()[:1].islower():
                pairs.append((head.group()[:-1], tail.group()))
        return pairs

    def _known(self, head: str, tail: str) -> bool | None:
        kept, joined = self.inline[f"{head}-{tail}".casefold()], self.inline[f"{head}{tail}".casefold()]
        return None if kept == joined else kept > joined

    def keep(self, before: str, after: str) -> bool:
        head, tail = _LAST_WORD.search(before), _FIRST_WORD.search(after)
        if head is None or tail is None:
            return True
        known = self._known(head.group()[:-1], tail.group())
        return self.keep_by_default if known is None else known


def _join(before: str, after: str, hyphens: _Hyphens | None = None) -> str:
    """Two lines of one paragraph: a hyphen that broke a word is joined away (``hyphens`` judges which did);
    CJK lines join without a space."""
    if before.endswith("-") and len(before) > 1 and before[-2].isalpha() and after[:1].islower():
        return before + after if hyphens is not None and hyphens.keep(before, after) else before[:-1] + after
    if is_cjk(before[-1]) or is_cjk(after[0]):
        return before + after
    return before + " " + after


def _defined_labels(reader: object, count: int) -> list[str] | None:
    """Each page's label where the PDF defines them (/PageLabels: "i", "T-1", "12"), else None.

    A label is text from the file that reaches the AI beside the book's words: only short labels of letters,
    digits, dots and dashes are kept (a page number stands for any other)."""
    try:
        if "/PageLabels" not in reader.trailer["/Root"]:  # type: ignore[attr-defined]
            return None
        labels = [str(label) for label in _page_labels(reader, count)]
    except Exception:  # a damaged label tree: as if there were none
        log.debug("the page labels did not read", exc_info=True)
        return None
    if len(labels) != count:
        return None
    return [label if _LABEL.fullmatch(label) else str(n + 1) for n, label in enumerate(labels)]


def _page_labels(reader: object, count: int) -> list[object]:
    """pypdf's labels of the first ``count`` pages: its ``page_labels`` numbers every page first (the page tree
    flattened), which a first part does not; ``index2labels`` takes the count instead (a pypdf without it flattens)."""
    try:
        from pypdf._page_labels import index2labels
    except ImportError:  # an older pypdf
        return list(reader.page_labels)  # type: ignore[attr-defined]
    return list(index2labels(reader, count))  # type: ignore[arg-type]


def _printed_labels(printed: dict[int, int], count: int) -> list[str]:
    """Page labels from the numbers printed on the pages (a footer's "13"), where most agree on one offset from
    the page's place in the file; pages before the first number (a cover) get none. Else numbers from 1."""
    offsets = Counter(number - index for index, number in printed.items())
    if offsets:
        offset, agreeing = offsets.most_common(1)[0]
        if agreeing >= max(2, 0.8 * len(printed)) and len(printed) >= 0.5 * count:
            return [str(index + offset) if index + offset >= 1 else "" for index in range(count)]
    return [str(index + 1) for index in range(count)]


def _outline(reader: object, number_of: Callable[[object], int | None] | None = None) -> list[tuple[int, str, int]]:
    """(depth, title, page index) for every outline entry that points at a page (``number_of``: the index of
    the page an entry's destination names, where the pages were not numbered by pypdf)."""
    found: list[tuple[int, str, int]] = []

    def walk(items: list[object], depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            try:
                if number_of is None:
                    page = reader.get_destination_page_number(item)  # type: ignore[attr-defined]
                else:
                    page = number_of(getattr(item, "page", None))
            except Unwalkable:  # the page tree, not this entry: pypdf numbers the pages instead
                raise
            except Exception:  # a broken destination: the entry is left out, the book still opens
                log.debug("an outline entry's destination did not read", exc_info=True)
                continue
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if title and page is not None and page >= 0:
                found.append((depth, title, page))

    try:
        walk(reader.outline, 0)  # type: ignore[attr-defined]
    except Unwalkable:
        raise
    except Exception:  # an outline that cannot be read is no outline
        log.debug("the outline did not read", exc_info=True)
        return []
    return found[:20_000]


def _fold(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def _openings(paragraphs: list[_Paragraph], outline: list[tuple[int, str, int]]) -> dict[int, str]:
    """Paragraph index -> the outline entry's title that opens there, in order.

    An entry opens at its heading: the first paragraph on its page (or the next) that starts with its title, so a
    chapter that begins half-way down a page does not take the end of the one before it, and two chapters on one
    page are both found. Without such a paragraph, at the first paragraph on its page."""
    firsts: dict[int, int] = {}  # page -> the first paragraph on it
    for index, paragraph in enumerate(paragraphs):
        for page in paragraph.pages:
            firsts.setdefault(page, index)
    openings: dict[int, str] = {}
    after = 0  # entries open in order: each at or after the one before
    for _, name, page in outline:
        wanted = _fold(name)
        candidates = range(firsts.get(page, len(paragraphs)), len(paragraphs))
        found = next(
            (i for i in candidates if i >= after and paragraphs[i].pages[0] <= page + 1
             and wanted and _fold(paragraphs[i].text[: len(name) * 2 + 8]).startswith(wanted)),
            None,
        )  # fmt: skip
        if found is None:
            found = next((i for i in candidates if i >= after), None)
            if found is None or found in openings:
                continue  # no paragraph left for it, or the one there is taken: the entry adds no section
        openings[found], after = name, found + 1
    return openings


def _sections(
    paragraphs: list[_Paragraph], outline: list[tuple[int, str, int]], title: str, labels: list[str]
) -> tuple[list[Section], list[TocEntry]]:
    """A section starts at each outline entry's page (the pages before the first: the front matter).

    Each paragraph's anchors name the pages it is on, ``page-N`` (N from 1), and the printed label of the first
    (``PAGE_LABEL``): what a citation calls the page."""
    openings = _openings(paragraphs, outline)
    sections: list[Section] = []
    for index, paragraph in enumerate(paragraphs):
        if index in openings or not sections:
            sections.append(Section(title=openings.get(index, title)))
        paragraph.label = labels[paragraph.pages[0]]
        sections[-1].segments.append(Segment(SegmentKind.PARAGRAPH, paragraph.text, anchors=_anchors(paragraph)))
    toc: list[TocEntry] = []
    stack: list[tuple[int, TocEntry]] = []
    for number, section in enumerate(sections):
        depth = next((d for d, name, _ in outline if name == section.title), 0)
        entry = TocEntry(section.title, Locator(number, 0))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        (stack[-1][1].children if stack else toc).append(entry)
        stack.append((depth, entry))
    return sections, toc
