"""Reading a text PDF against pdfium's own text of all its pages, as issue 40 asks (goal 3x).

    python -m bench.pdf_text [--data ../shared/data/books/formats] [--repeat 1] [--books a.pdf,b.pdf] [--json]

For each text PDF of the shared books, in one process, process CPU time, the median of ``--repeat`` runs:
- the baseline: pypdfium2 opening the file and taking the text of every page (``get_text_range``);
- Quire's parse (``parse_book``: pypdf's text with positions, content streams read by ``core/books/pdf_content.py``,
  then lines, paragraphs, contents), against that baseline;
- the same parse with pypdf's own content-stream reader, as it read them before (a reference: what the faster reader
  gained).
Prints a row per book, ``--json`` a list of ``{"book", "pages", "pdfium_s", "parse_s", "ratio", "pypdf_reader_s",
"goal", "met"}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.common import cpu_seconds
from core.inside import parse_book, pypdfs_own_reader

GOAL = 3.0
BOOKS = ("epubjs-alice.pdf", "libtasn1-manual-pdftex.pdf", "luxun-nahan.pdf", "idpf-moby-dick.pdf")


def _pdfium_text(data: bytes) -> int:
    """What pdfium's own extraction costs: every page's text; the characters read."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    read = 0
    for index in range(len(document)):
        page = document[index]
        text_page = page.get_textpage()
        read += len(text_page.get_text_range())
        text_page.close()
        page.close()
    document.close()
    return read


def run(folder: Path, repeat: int = 1, books: tuple[str, ...] = BOOKS) -> list[dict]:
    rows = []
    for name in books:
        data = (folder / name).read_bytes()
        _pdfium_text(data)  # once outside the timing: pdfium's library loaded (0.2 s, once per process)
        baseline = cpu_seconds(lambda data=data: _pdfium_text(data), repeat)
        book = parse_book(data, name)  # once outside the timing: pypdf's modules loaded
        parse = cpu_seconds(lambda data=data, name=name: parse_book(data, name), repeat)
        with pypdfs_own_reader():
            before = cpu_seconds(lambda data=data, name=name: parse_book(data, name), repeat)
        rows.append({"book": name, "pages": _pages(data), "paragraphs": book.segment_count,
                     "pdfium_s": round(baseline, 3), "parse_s": round(parse, 3), "ratio": round(parse / baseline, 2),
                     "pypdf_reader_s": round(before, 3), "pypdf_reader_ratio": round(before / baseline, 2),
                     "goal": GOAL, "met": parse / baseline <= GOAL})  # fmt: skip
    return rows


def _pages(data: bytes) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    count = len(document)
    document.close()
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/books/formats"))
    parser.add_argument("--repeat", type=int, default=1, help="runs per measure; medians are reported")
    parser.add_argument("--books", default=",".join(BOOKS), help="which of the shared PDFs, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (args.data / BOOKS[-1]).exists():
        sys.exit(f"bench.pdf_text needs the shared PDFs ({args.data})")
    rows = run(args.data, max(1, args.repeat), tuple(args.books.split(",")))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'book':30} {'pages':>6} {'pdfium s':>9} {'parse s':>8} {'ratio':>7} {'pypdf reader s':>15} {'ratio':>7}")
    for r in rows:
        print(f"{r['book']:30} {r['pages']:>6} {r['pdfium_s']:>9.3f} {r['parse_s']:>8.3f} {r['ratio']:>6.2f}x"
              f" {r['pypdf_reader_s']:>15.3f} {r['pypdf_reader_ratio']:>6.2f}x"
              f"  goal {GOAL}x {'met' if r['met'] else 'NOT met'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
