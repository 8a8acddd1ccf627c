"""Import speed, peak memory and in-book full-text search latency on the shared books.

    python -m bench.ingest --data ../shared/data/books [--repeat 3] [--json]

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
from pathlib import Path

from bench.common import percentile
from core.books import parse_book
from core.books.textutil import CJK_RUN
from core.library import Library
from core.services import Quire

BOOK_SUFFIXES = (".epub", ".txt", ".md", ".markdown", ".html")


def find_books(data: Path) -> list[Path]:
    """Every book file under ``data`` except the deliberately malformed ones."""
    return sorted(p for p in data.rglob("*") if p.suffix.lower() in BOOK_SUFFIXES and "malformed" not in p.parts)


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
            quire._default_chunking()  # load the tokenizer outside the timing, as a running app has
            start = time.perf_counter()
            record = quire.import_paths([path])[0].book
            import_times.append(time.perf_counter() - start)
            if run < repeat - 1:
                quire.close()
        library = quire.library
        peak_quire = Quire(Path(folder) / "peak")
        peak_quire._default_chunking()
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
        chunks = quire.chunks.count(record.id)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/books"), help="folder of books")
    parser.add_argument("--repeat", type=int, default=3, help="runs per book; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    books = find_books(args.data)
    if not books:
        print(f"no books found under {args.data}", file=sys.stderr)
        return 1
    results = [measure_book(path, args.repeat) for path in books]
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=2))
        return 0
    header = f"{'book':48} {'segs':>6} {'parse s':>8} {'import s':>9} {'peak MB':>8} {'find p50':>9} {'p95':>7} {'LIKE p50':>9}"
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r['book'][:48]:48} {r['segments']:>6} {r['parse_s']:>8.3f} {r['import_s']:>9.3f} {r['peak_mb']:>8.1f}"
            f" {r['search_p50_ms']:>8.2f}ms {r['search_p95_ms']:>5.2f}ms {r['like_scan_p50_ms']:>7.2f}ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
