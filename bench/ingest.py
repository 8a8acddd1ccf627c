"""Import speed, peak memory and in-book full-text search latency on the shared books.

    python -m bench.ingest --data ../shared/data/books [--repeat 3] [--json] [--no-fidelity]

Baselines measured in the same run, so ratios hold across machines:
- import: parse only (the format reader) vs the whole import through the facade (parse, store the
  segments and their full-text index, chunk for retrieval in the model's tokens, index the chunks);
- search: FTS5 with CJK bigrams vs a plain ``LIKE '%term%'`` scan over the same segments.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import asdict
from pathlib import Path

from bench.common import percentile
from bench.fidelity import run as compare_formats
from core import Quire, QuireError
from core.inside import CJK_RUN, Library, inside, parse_book

BOOK_SUFFIXES = (".epub", ".txt", ".md", ".markdown", ".html", ".fb2", ".cbz", ".pdf", ".mobi", ".azw3")


def find_books(data: Path) -> list[Path]:
    """Every book file under ``data`` except the deliberately malformed ones."""
    return sorted(
        p
        for p in data.rglob("*")
        if p.suffix.lower() in BOOK_SUFFIXES and "malformed" not in p.parts and p.name != "README.md"
    )


def sample_queries(library: Library, book_id: int, count: int = 30) -> list[str]:
    """Terms taken from the book itself: English words of 5+ letters, Chinese/Japanese 2-character words."""
    rng = random.Random(0)
    texts = [
        r[0] for r in library.conn.execute("SELECT text FROM segments WHERE book_id = ? ORDER BY ordinal", (book_id,))
    ]
    queries: list[str] = []
    for _ in range(count * 20):
        if len(queries) >= count or not texts:
            break
        text = rng.choice(texts)
        runs = [m.group() for m in CJK_RUN.finditer(text) if len(m.group()) >= 2]
        if runs:
            run = rng.choice(runs)
            start = rng.randrange(len(run) - 1)
            queries.append(run[start : start + 2])
        else:
            words = [w for w in re.findall(r"[A-Za-z]{5,}", text)]
            if words:
                queries.append(rng.choice(words).lower())
    return queries


def measure_book(path: Path, repeat: int) -> dict:
    data = path.read_bytes()
    parse_times, import_times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        book = parse_book(data, path.name)
        parse_times.append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as folder:
        for run in range(repeat):
            quire = Quire(Path(folder) / f"lib{run}")
            inside(quire).default_chunking()  # load the tokenizer outside the timing, as a running app has
            start = time.perf_counter()
            record = quire.import_paths([path])[0].book
            import_times.append(time.perf_counter() - start)
            if run < repeat - 1:
                quire.close()
        library = inside(quire).library
        peak_quire = Quire(Path(folder) / "peak")
        inside(peak_quire).default_chunking()
        tracemalloc.start()
        peak_quire.import_paths([path])
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peak_quire.close()

        queries = sample_queries(library, record.id)
        fts_ms, like_ms, hits = [], [], 0
        for query in queries:
            start = time.perf_counter()
            found = library.find(record.id, query, limit=20)
            fts_ms.append((time.perf_counter() - start) * 1000)
            hits += bool(found)
            start = time.perf_counter()
            library.conn.execute(
                "SELECT id, text FROM segments WHERE book_id = ? AND text LIKE ? LIMIT 20", (record.id, f"%{query}%")
            ).fetchall()
            like_ms.append((time.perf_counter() - start) * 1000)
        chunks = len(quire.text.passage_texts(record.id))
        quire.close()
    return {
        "book": str(path.name),
        "format": book.format,
        "title": book.metadata.title,
        "size_kb": round(len(data) / 1024, 1),
        "sections": len(book.sections),
        "segments": book.segment_count,
        "chunks": chunks,
        "parse_s": round(statistics.median(parse_times), 4),
        "import_s": round(statistics.median(import_times), 4),
        "store_share": round(1 - statistics.median(parse_times) / statistics.median(import_times), 3),
        "peak_mb": round(peak / 1024 / 1024, 1),
        "queries": len(queries),
        "queries_with_hits": hits,
        "search_p50_ms": round(percentile(fts_ms, 0.5), 3) if fts_ms else None,
        "search_p95_ms": round(percentile(fts_ms, 0.95), 3) if fts_ms else None,
        "like_scan_p50_ms": round(percentile(like_ms, 0.5), 3) if like_ms else None,
    }


_RSS_CHILD = """
import resource, sys, tempfile
from pathlib import Path
from core import Quire
from core.inside import inside, parse_book

def status(field):  # Linux: VmRSS (now) and VmHWM (peak since the last reset), in kB
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])

data = Path(sys.argv[1]).read_bytes()
quire = Quire(Path(tempfile.mkdtemp()) / "lib")
inside(quire).default_chunking()
Path("/proc/self/clear_refs").write_text("5")  # reset the peak to what is resident now
base = status("VmRSS")
if sys.argv[2] == "parse":
    parse_book(data, Path(sys.argv[1]).name)
else:
    result = quire.import_paths([sys.argv[1]])[0]
    assert result.error is None, result.error
print((status("VmHWM") - base) / 1024)
"""


def rss_growth_mb(path: Path, step: str) -> float:
    """Peak resident memory an import (or only its parse, the baseline) adds, in MB, in a fresh process."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(path), step],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    return float(done.stdout.strip().splitlines()[-1])


def measure_memory(paths: list[Path]) -> list[dict]:
    """Peak RSS per MB of input, for the whole import and for parsing alone (Linux: /proc/self/status)."""
    rows = []
    for path in paths:
        size_mb = path.stat().st_size / 1024 / 1024
        parse, whole = rss_growth_mb(path, "parse"), rss_growth_mb(path, "import")
        rows.append({"book": path.name, "size_mb": round(size_mb, 2), "parse_rss_mb": round(parse, 1),
                     "import_rss_mb": round(whole, 1), "import_rss_per_input_mb": round(whole / size_mb, 1)})  # fmt: skip
    return rows


def large_text(data: Path, folder: Path, megabytes: int = 10) -> Path | None:
    """A long Chinese TXT made by repeating the shared Lu Xun collection (a stand-in for a web novel)."""
    source = next(iter(sorted(data.glob("zh/*.txt"))), None)
    if source is None:
        return None
    text = source.read_text(encoding="utf-8")
    repeats = max(1, int(megabytes * 1024 * 1024 / len(text.encode("utf-8"))))
    path = folder / f"large-{megabytes}mb.txt"
    path.write_text((text + "\n\n") * repeats, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/books"), help="folder of books")
    parser.add_argument("--repeat", type=int, default=3, help="runs per book; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--large-mb", type=int, default=10, help="size of the generated long TXT (0: none)")
    parser.add_argument("--no-fidelity", dest="fidelity", action="store_false",
                        help="leave out the converted formats' text fidelity against their sources")  # fmt: skip
    args = parser.parse_args(argv)
    books = find_books(args.data)
    if not books:
        print(f"no books found under {args.data}", file=sys.stderr)
        return 1
    results, refused = [], []
    for path in books:
        try:
            results.append(measure_book(path, args.repeat))
        except QuireError as error:  # a scanned PDF, say: what it says is part of the report
            refused.append({"book": path.name, "refused": str(error)})
    with tempfile.TemporaryDirectory() as folder:
        large = large_text(args.data, Path(folder), args.large_mb) if args.large_mb else None
        memory = measure_memory([p for p in books if p.suffix == ".txt"] + ([large] if large else []))
    fidelity = [asdict(row) for row in compare_formats(args.data)] if args.fidelity else []
    if args.json:
        print(json.dumps({"books": results, "refused": refused, "memory": memory, "fidelity": fidelity},
                         ensure_ascii=False, indent=2))  # fmt: skip
        return 0
    header = f"{'book':48} {'segs':>6} {'parse s':>8} {'import s':>9} {'peak MB':>8} {'find p50':>9} {'p95':>7} {'LIKE p50':>9}"
    print(header)
    print("-" * len(header))
    for r in results:
        timing = (  # a book with no text (a comic) has no searches to time
            f" {r['search_p50_ms']:>8.2f}ms {r['search_p95_ms']:>5.2f}ms {r['like_scan_p50_ms']:>7.2f}ms"
            if r["search_p50_ms"] is not None
            else f" {'-':>10} {'-':>7} {'-':>9}"
        )
        print(
            f"{r['book'][:48]:48} {r['segments']:>6} {r['parse_s']:>8.3f} {r['import_s']:>9.3f} {r['peak_mb']:>8.1f}"
            + timing
        )
    for r in refused:
        print(f"{r['book'][:48]:48} refused: {r['refused']}")
    print(f"\n{'memory (fresh process)':40} {'MB in':>7} {'parse RSS':>10} {'import RSS':>11} {'RSS/MB in':>10}")
    for m in memory:
        print(f"{m['book'][:40]:40} {m['size_mb']:>7.2f} {m['parse_rss_mb']:>9.1f}M {m['import_rss_mb']:>10.1f}M"
              f" {m['import_rss_per_input_mb']:>9.1f}x")  # fmt: skip
    if fidelity:
        print(f"\n{'text fidelity vs the source (bench.fidelity)':40} {'similar':>8} {'chapters':>9}  missing / extra")
        for row in fidelity:
            print(f"{row['file']:40} {row['similarity']:>8.4f} {row['found']:>4}/{row['chapters']:<4}"
                  f"  {len(row['missing'])} / {len(row['extra'])}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
